"""DistilBERT on tfkit: ``DistilBertBackbone``, ``DistilBertTokenizer``, ``DistilBertTextClassifier`` and ``DistilBertMaskedLM`` with their preprocessors."""
