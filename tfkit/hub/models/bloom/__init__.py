"""Bloom on tfkit: ``BloomBackbone``, ``BloomTokenizer``, ``BloomCausalLMPreprocessor``, ``BloomCausalLM``."""
