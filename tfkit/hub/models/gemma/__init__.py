"""Gemma (1 and 2) on tfkit: ``GemmaBackbone``, ``GemmaTokenizer``, ``GemmaCausalLMPreprocessor``, ``GemmaCausalLM``."""
