"""Qwen MoE on tfkit: ``QwenMoeBackbone``, ``QwenMoeTokenizer``, ``QwenMoeCausalLMPreprocessor``, ``QwenMoeCausalLM``."""
