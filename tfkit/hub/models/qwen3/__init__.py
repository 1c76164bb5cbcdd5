"""Qwen 3 on tfkit: ``Qwen3Backbone``, ``Qwen3Tokenizer``, ``Qwen3CausalLMPreprocessor``, ``Qwen3CausalLM``."""
