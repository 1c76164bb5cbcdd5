"""XLM-RoBERTa on tfkit: ``XLMRobertaBackbone``, ``XLMRobertaTokenizer``, ``XLMRobertaTextClassifier`` and ``XLMRobertaMaskedLM`` with their preprocessors."""
