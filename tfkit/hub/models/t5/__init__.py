"""T5 (Raffel et al., 2019): the encoder-decoder backbone, its SentencePiece tokenizer, preprocessors and tasks."""
