"""Mistral on tfkit: ``MistralBackbone``, ``MistralTokenizer``, ``MistralCausalLMPreprocessor``, ``MistralCausalLM``."""
