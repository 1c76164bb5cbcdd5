"""DeBERTa-v3 on tfkit: ``DebertaV3Backbone``, ``DebertaV3Tokenizer``, ``DebertaV3TextClassifier``, ``DebertaV3MaskedLM``
and their preprocessors."""
