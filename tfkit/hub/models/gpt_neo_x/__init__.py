"""GPT-NeoX on tfkit: ``GPTNeoXBackbone``, ``GPTNeoXTokenizer``, ``GPTNeoXCausalLMPreprocessor``, ``GPTNeoXCausalLM``."""
