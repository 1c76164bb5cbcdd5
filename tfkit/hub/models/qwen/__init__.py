"""Qwen 2 on tfkit: ``QwenBackbone``, ``QwenTokenizer``, ``QwenCausalLMPreprocessor``, ``QwenCausalLM``."""
