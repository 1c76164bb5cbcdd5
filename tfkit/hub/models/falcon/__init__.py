"""Falcon on tfkit: ``FalconBackbone``, ``FalconTokenizer``, ``FalconCausalLMPreprocessor``, ``FalconCausalLM``."""
