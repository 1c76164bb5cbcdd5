"""RoBERTa on tfkit: ``RobertaBackbone``, ``RobertaTokenizer``, ``RobertaTextClassifier`` and ``RobertaMaskedLM`` with their preprocessors."""
