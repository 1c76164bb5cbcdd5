"""T5Gemma on tfkit: ``T5GemmaBackbone``, ``T5GemmaTokenizer``, ``T5GemmaSeq2SeqLMPreprocessor``,
``T5GemmaSeq2SeqLM``, and the Transformers converter (``model_type: t5gemma``).

Gemma 2's blocks made an encoder-decoder: a bidirectional encoder, a causal decoder with cross-attention, RMS norms
around every attention and feedforward network, soft caps, sliding windows and grouped-query attention.
"""
