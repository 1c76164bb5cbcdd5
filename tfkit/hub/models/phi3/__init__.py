"""Phi-3 on tfkit: ``Phi3Backbone``, ``Phi3Tokenizer``, ``Phi3CausalLMPreprocessor``, ``Phi3CausalLM``."""
