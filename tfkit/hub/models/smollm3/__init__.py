"""SmolLM3 on tfkit: ``SmolLM3Backbone``, ``SmolLM3Tokenizer``, ``SmolLM3CausalLMPreprocessor``, ``SmolLM3CausalLM``."""
