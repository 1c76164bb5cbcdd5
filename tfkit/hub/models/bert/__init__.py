"""BERT on tfkit: ``BertBackbone``, ``BertTokenizer``, ``BertTextClassifier`` and ``BertMaskedLM`` with their preprocessors."""
