"""BART on tfkit: ``BartBackbone``, ``BartTokenizer``, ``BartSeq2SeqLMPreprocessor``, ``BartSeq2SeqLM``, and the
Transformers converter (``model_type: bart``)."""
