"""``tfkit.hub.tokenizers``: KerasHub's tokenizers (WordPiece, byte-pair, SentencePiece) in TensorFlow ops.

    tokenizer = keras_hub.tokenizers.BytePairTokenizer(vocabulary=vocab, merges=merges)
    ids = tokenizer(["a quick fox"])                       # eager: lists; in tf.data: a tf.RaggedTensor
    dataset = dataset.map(tokenizer)                       # runs in tf.data and inside exported SavedModels

Each has KerasHub 0.32's arguments, config and asset files, and gives its ids and text;
``ByteTokenizer`` and ``UnicodeCodepointTokenizer`` need no vocabulary, and
``compute_word_piece_vocabulary`` / ``compute_sentence_piece_proto`` train one.
"""

from tfkit.hub.tokenizers.byte_pair_tokenizer import BytePairTokenizer
from tfkit.hub.tokenizers.byte_tokenizer import ByteTokenizer
from tfkit.hub.tokenizers.sentence_piece_tokenizer import SentencePieceTokenizer
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.hub.tokenizers.unicode_codepoint_tokenizer import UnicodeCodepointTokenizer
from tfkit.hub.tokenizers.vocabulary_training import compute_sentence_piece_proto, compute_word_piece_vocabulary
from tfkit.hub.tokenizers.word_piece_tokenizer import WordPieceTokenizer

__all__ = [
    "Tokenizer",
    "WordPieceTokenizer",
    "BytePairTokenizer",
    "SentencePieceTokenizer",
    "ByteTokenizer",
    "UnicodeCodepointTokenizer",
    "compute_word_piece_vocabulary",
    "compute_sentence_piece_proto",
]
