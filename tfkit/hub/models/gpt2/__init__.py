"""GPT-2 on tfkit: ``GPT2Backbone``, ``GPT2Tokenizer``, ``GPT2CausalLMPreprocessor``, ``GPT2CausalLM``."""
