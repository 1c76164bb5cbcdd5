"""Whisper (OpenAI's speech recognition encoder-decoder): backbone, audio converter, tokenizer, speech-to-text task."""
