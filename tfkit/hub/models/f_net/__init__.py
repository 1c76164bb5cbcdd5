"""FNet on tfkit: ``FNetBackbone``, ``FNetTokenizer``, ``FNetTextClassifier`` and ``FNetMaskedLM`` with their preprocessors."""
