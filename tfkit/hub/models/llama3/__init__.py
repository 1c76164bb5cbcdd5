"""Llama 3 on tfkit: ``Llama3Backbone``, ``Llama3Tokenizer``, ``Llama3CausalLMPreprocessor``, ``Llama3CausalLM``,
and the Transformers checkpoint converter (``model_type: llama``)."""
