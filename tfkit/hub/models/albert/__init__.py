"""ALBERT on tfkit: ``AlbertBackbone``, ``AlbertTokenizer``, ``AlbertTextClassifier`` and ``AlbertMaskedLM`` with their preprocessors."""
