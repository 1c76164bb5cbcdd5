"""Moonshine (Useful Sensors' speech recognition encoder-decoder on raw audio): backbone, audio converter, tokenizer."""
