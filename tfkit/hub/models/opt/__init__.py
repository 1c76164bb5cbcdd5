"""OPT on tfkit: ``OPTBackbone``, ``OPTTokenizer``, ``OPTCausalLMPreprocessor``, ``OPTCausalLM``."""
