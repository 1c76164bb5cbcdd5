"""``tfkit.hub``: KerasHub's pretrained models on tfkit, under KerasHub's names.

    import tfkit.hub as keras_hub
    tokenizer = keras_hub.tokenizers.BytePairTokenizer(vocabulary=vocab, merges=merges)
    sampler = keras_hub.samplers.TopKSampler(k=5)

The public names mirror ``keras_hub`` 0.32 (``models``, ``tokenizers``, ``layers``,
``samplers``, ``utils``), with the same arguments, defaults and outputs, so KerasHub
code runs with ``import tfkit.hub as keras_hub`` and ``import tfkit as keras``.
KerasHub itself is never imported: its presets are read as data through
``tfkit.saving``, and its text libraries (``tensorflow-text``, ``sentencepiece``)
are imported only by the tokenizers that need them (the ``hub`` extra).

Packages: ``tokenizers`` (WordPiece, byte-pair, SentencePiece, in TensorFlow ops:
usable in ``tf.data`` and inside an exported SavedModel), ``samplers`` (greedy,
top-k, top-p, random, beam: the compiled decoding loop of ``generate``),
``layers`` (the blocks families share: embeddings, rotary embeddings, RMSNorm,
attention with a key/value cache, transformer encoder and decoder, packers),
``metrics`` (perplexity, edit distance, BLEU, ROUGE), ``utils`` (ImageNet and COCO class names).
"""

from tfkit.base.version import version  # noqa: F401  (keras_hub.version(): here tfkit's, which tfkit.hub is part of)
from tfkit.hub import layers, metrics, models, samplers, tokenizers, utils  # noqa: F401

# keras_hub.tokenizers also names every family's tokenizer (keras_hub.tokenizers.GPT2Tokenizer). The families
# live in tfkit.hub.models and build on tfkit.hub.tokenizers, so they are added to its namespace here, once both
# are imported, rather than imported by it (which would be circular).
_FAMILY_TOKENIZERS = [name for name in models.__all__ if name.endswith("Tokenizer") and name != "Tokenizer"]
for _name in _FAMILY_TOKENIZERS:
    setattr(tokenizers, _name, getattr(models, _name))
tokenizers.__all__ = [*tokenizers.__all__, *_FAMILY_TOKENIZERS]
