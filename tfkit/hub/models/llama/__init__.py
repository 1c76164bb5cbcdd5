"""Llama on tfkit: ``LlamaBackbone``, ``LlamaTokenizer``, ``LlamaCausalLMPreprocessor``, ``LlamaCausalLM``,
and the blocks Llama 3, Mistral and Qwen build on (``LlamaAttention``, ``LlamaTransformerDecoder``,
``LlamaLayerNorm``, ``LlamaRotaryEmbedding``)."""
