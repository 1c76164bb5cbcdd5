"""GPT-OSS: a mixture-of-experts decoder with attention sinks and alternating sliding-window layers (KerasHub's)."""
