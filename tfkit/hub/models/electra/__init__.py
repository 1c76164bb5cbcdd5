"""ELECTRA on tfkit: ``ElectraBackbone`` and ``ElectraTokenizer`` (KerasHub 0.32 has no ELECTRA task)."""
