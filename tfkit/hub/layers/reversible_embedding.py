"""``ReversibleEmbedding``: KerasHub's name (``keras_hub>ReversibleEmbedding``) for tfkit's reversible embedding.

    embedding = ReversibleEmbedding(100, 32)
    logits = embedding(embedding(token_ids), reverse=True)   # tied input and output embeddings

KerasHub's class is Keras's ``ReversibleEmbedding`` under its own registered
name; so is this one, over ``tfkit.layers.ReversibleEmbedding``.
"""

from __future__ import annotations

from typing import Any

from tfkit import layers, regularizers
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ReversibleEmbedding(layers.ReversibleEmbedding):
    """An embedding layer which can project backwards to the input dim.

    Called on token ids it embeds them; called with `reverse=True` on hidden
    states it projects them back to logits over the vocabulary, through the
    transposed `embeddings` (`tie_weights=True`) or its own
    `reverse_embeddings` weight `(output_dim, input_dim)`. The language
    models' shared input and output embedding. This is
    `tfkit.layers.ReversibleEmbedding` registered as KerasHub's
    `keras_hub>ReversibleEmbedding`, with the same weights.

    Args:
        input_dim: Integer, the size of the vocabulary.
        output_dim: Integer, the dimension of the dense embedding.
        tie_weights: Whether the reverse projection uses the transposed
            embeddings. Defaults to `True`.
        embeddings_initializer: Initializer of the embeddings (and reverse
            embeddings). Defaults to `"uniform"`.
        embeddings_regularizer: Regularizer of the embeddings. Defaults to
            `None`.
        embeddings_constraint: Constraint on the embeddings. Defaults to
            `None`.
        mask_zero: Whether id 0 is padding, masked in forward calls. Defaults
            to `False`.
        reverse_dtype: Optional dtype the reverse projection computes in.
            Defaults to `None` (the layer's compute dtype).
        logit_soft_cap: Optional positive number: reverse logits become
            `tanh(logits / logit_soft_cap) * logit_soft_cap`. Defaults to
            `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Token ids, or with `reverse=True` hidden states whose last
            axis is `output_dim`.
        reverse: Whether to project back to logits. Defaults to `False`.

    Returns:
        `(..., output_dim)` embeddings, or `(..., input_dim)` logits when
        `reverse=True`.

    Raises:
        ValueError: If `logit_soft_cap` is not a positive number.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> embedding = keras_hub.layers.ReversibleEmbedding(10, 4)
        >>> hidden = embedding(np.array([[1, 2, 3]]))
        >>> hidden.shape, embedding(hidden, reverse=True).shape
        (TensorShape([1, 3, 4]), TensorShape([1, 3, 10]))
    """

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.setdefault("activity_regularizer", regularizers.serialize(self.activity_regularizer))  # as Keras
        return config
