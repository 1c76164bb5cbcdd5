"""Qwen 3 MoE on tfkit: ``Qwen3MoeBackbone``, ``Qwen3MoeTokenizer``, ``Qwen3MoeCausalLMPreprocessor``, ``Qwen3MoeCausalLM``."""
