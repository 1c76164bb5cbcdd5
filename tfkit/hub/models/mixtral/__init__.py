"""Mixtral on tfkit: ``MixtralBackbone``, ``MixtralTokenizer``, ``MixtralCausalLMPreprocessor``, ``MixtralCausalLM``."""
