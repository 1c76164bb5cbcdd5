"""``tfkit.hub.tokenizers``: KerasHub's tokenizers (WordPiece, byte-pair, SentencePiece) in TensorFlow ops.

    tokenizer = keras_hub.tokenizers.BytePairTokenizer(vocabulary=vocab, merges=merges)
    ids = tokenizer(["a quick fox"])                       # eager: lists; in tf.data: a tf.RaggedTensor
    dataset = dataset.map(tokenizer)                       # runs in tf.data and inside exported SavedModels

Each has KerasHub 0.32's arguments, config and asset files, and gives its ids and text.
"""

from tfkit.hub.tokenizers.byte_pair_tokenizer import BytePairTokenizer
from tfkit.hub.tokenizers.sentence_piece_tokenizer import SentencePieceTokenizer
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.hub.tokenizers.word_piece_tokenizer import WordPieceTokenizer

__all__ = ["Tokenizer", "WordPieceTokenizer", "BytePairTokenizer", "SentencePieceTokenizer"]
