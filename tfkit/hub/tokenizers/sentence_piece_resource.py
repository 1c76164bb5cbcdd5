"""A SentencePiece model resource that outlives TensorFlow's kernel cache (seeding clears it).

    model = persistent_sentence_piece(tf_text, proto, out_type=tf.int32, add_bos=False, add_eos=False)
    tfkit.utils.set_random_seed(0)        # the tokenizer keeps working
    model.tokenize(["a b"])

TensorFlow Text's ``SentencepieceTokenizer`` keeps its model in a resource owned by
the kernel that made it. ``tf.random.set_seed`` (and so ``tfkit.utils.set_random_seed``
and Keras's ``set_random_seed``) clears the eager kernel cache, the kernel goes, and
every later call fails with "Resource ... SentencepieceOp ... does not exist". Here the
same op makes the resource under a name of its own (``shared_name``), so the resource
manager keeps it until the tokenizer is collected, whatever the kernel cache does; in
``tf.function`` graphs and SavedModels it is made the same way. TensorFlow Text has no
public way to ask for this, so its resource class is extended; if that class ever
changes, the tokenizer keeps TensorFlow Text's own resource (and the seeding caveat).
"""

from __future__ import annotations

import sys
import uuid
from types import ModuleType
from typing import Any

import tensorflow as tf


def persistent_sentence_piece(tf_text: ModuleType, proto: bytes, **arguments: Any) -> Any:
    """A `tensorflow_text.SentencepieceTokenizer` of `proto` whose model resource survives kernel-cache clears.

    Args:
        tf_text: The `tensorflow_text` module.
        proto: The serialized SentencePiece model.
        **arguments: `SentencepieceTokenizer`'s other arguments (`out_type`, `add_bos`, ...).

    Returns:
        The tokenizer.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
        >>> from tfkit.hub.tokenizers.sentence_piece_resource import persistent_sentence_piece
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(["a b c", "b c a"] * 5),
        ...     model_writer=model, vocab_size=6, model_type="word", minloglevel=2)
        >>> tokenizer = persistent_sentence_piece(tensorflow_text("example"), model.getvalue())
        >>> before = tokenizer.tokenize(["a b"]).to_list()
        >>> tfkit.utils.set_random_seed(0)
        >>> tokenizer.tokenize(["a b"]).to_list() == before
        True
    """
    model = tf_text.SentencepieceTokenizer(model=proto, **arguments)
    module = sys.modules.get(f"{tf_text.__name__}.python.ops.sentencepiece_tokenizer")  # imported by tf_text
    base = getattr(module, "_SentencepieceModelResource", None)
    make_op = getattr(getattr(module, "gen_sentencepiece_tokenizer", None), "sentencepiece_op", None)
    if base is None or make_op is None or not hasattr(model, "_model_resource"):
        return model  # another TensorFlow Text layout: its own resource

    class NamedModelResource(base):
        def _create_resource(self) -> tf.Tensor:
            return make_op(model=self._model, shared_name=self._shared_name)

        def _destroy_resource(self) -> None:
            tf.raw_ops.DestroyResourceOp(resource=self.resource_handle, ignore_lookup_error=True)

    resource = NamedModelResource.__new__(NamedModelResource)
    resource._shared_name = f"tfkit_sentencepiece_{uuid.uuid4().hex}"
    NamedModelResource.__init__(resource, proto, "SentencepieceModel")
    model._model_resource = resource
    return model
