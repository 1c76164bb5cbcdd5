"""The ViT-style encoder shared by the vision families: pre-norm block, block stack, patches, image checks.

    class ViTEncoderBlock(PreNormEncoderBlock):
        _norm_1, _attention = StoredAs("layer_norm_1"), StoredAs("mha")   # KerasHub's attribute names
        _norm_2, _feed_forward = StoredAs("layer_norm_2"), StoredAs("mlp")
        def make_parts(self): ...                                        # KerasHub's layer names and order
    hidden = ViTEncoderBlock(num_heads=12, hidden_dim=768, mlp_dim=3072)(tokens)

ViT, DeiT, DINOv2, CLIP and SigLIP run the same block, ``h = x + attention(norm_1(x))`` then
``h + feed_forward(norm_2(h))``, under different attribute names, layer names and creation
orders (KerasHub's, which Keras's weight files key and order by). The block here holds the
computation; a family declares its names with ``StoredAs`` class attributes and makes its parts
in ``make_parts``, in KerasHub's order, and overrides a hook where its block adds a step
(dropout, layer scale, drop path). A block's or stack's constructor arguments are declared once, in
its signature: they become attributes and config keys (``declared_config.DeclaredLayer``, which the
families' other layers use too, as a ``Backbone``'s do). The patch flattening, the backbones' image-shape checks and the CLIP-style
encoders' stack and config are here as well.
"""

from __future__ import annotations

import inspect
from typing import Any

import tensorflow as tf

from tfkit.base.data_format import standardize_data_format
from tfkit.hub.layers.cached_multi_head_attention import keras_attention
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.layers import Dropout, LayerNormalization, MultiHeadAttention


class KerasAttention(MultiHeadAttention):
    """``MultiHeadAttention`` whose attention is computed as Keras 3's on TensorFlow (see ``keras_attention``), so
    that the vision families' outputs are KerasHub's within float32 rounding."""

    def _compute_attention(
        self,
        query: tf.Tensor,
        key: tf.Tensor,
        value: tf.Tensor,
        attention_mask: Any = None,
        training: Any = None,
        return_attention_scores: bool = False,
    ) -> tuple[tf.Tensor, tf.Tensor | None]:
        return keras_attention(self, query, key, value, attention_mask, training, return_attention_scores)


def patches_to_sequence(patches: tf.Tensor, data_format: str) -> tf.Tensor:
    """A patch convolution's output `(batch, rows, columns, dim)` (channels first: `(batch, dim, rows, columns)`)
    as a sequence `(batch, rows * columns, dim)`, row by row.

    Args:
        patches: The convolution's output.
        data_format: `"channels_last"` or `"channels_first"`.

    Returns:
        The patches, one per position.

    Example:
        >>> from tfkit.hub.layers.vit_style_encoder import patches_to_sequence
        >>> patches_to_sequence(tf.zeros((2, 6, 3, 4)), "channels_first").shape
        TensorShape([2, 12, 6])
    """
    if data_format == "channels_first":
        patches = tf.transpose(patches, (0, 2, 3, 1))
    return tf.reshape(patches, [tf.shape(patches)[0], -1, patches.shape[-1]])


class PreNormEncoderBlock(DeclaredLayer):
    """Pre-norm transformer encoder block: `h = x + attention(norm_1(x))`, then `h + feed_forward(norm_2(h))`.

    A family subclasses it with its constructor (the signature only: each
    argument becomes an attribute and a config key; `hidden_dim` and
    `num_heads` are expected) and declares:

    - `_norm_1`, `_attention`, `_norm_2`, `_feed_forward`: the parts the
      block reads, each a `StoredAs` with KerasHub's attribute name;
    - `make_parts()`: makes them (and any other part) under KerasHub's layer
      names, in KerasHub's order (Keras lists weights in that order); called
      by `build` when `make_parts_in_build`, else by the family's
      constructor;
    - the hooks its block needs: `attend`, `after_attention`,
      `feed_forward`, `after_feed_forward`, `feed_forward_residual`,
      `build_feed_forward`.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.layers.attribute_names import StoredAs
        >>> from tfkit.hub.layers.vit_style_encoder import PreNormEncoderBlock
        >>> class Block(PreNormEncoderBlock):
        ...     _norm_1, _attention = StoredAs("ln_a"), StoredAs("attn")
        ...     _norm_2, _feed_forward = StoredAs("ln_b"), StoredAs("ffn")
        ...     def __init__(self, hidden_dim: int, num_heads: int, layer_norm_epsilon: float = 1e-6, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.make_parts()
        ...     def make_parts(self):
        ...         self._norm_1, self._attention = self.layer_norm("ln_a"), self.self_attention("attn")
        ...         self._norm_2 = self.layer_norm("ln_b")
        ...         self._feed_forward = tfkit.layers.Dense(self.hidden_dim, name="ffn")
        >>> block = Block(hidden_dim=8, num_heads=2)
        >>> block(np.ones((1, 3, 8))).shape, block.attn.name, block.get_config()["num_heads"]
        (TensorShape([1, 3, 8]), 'attn', 2)
    """

    make_parts_in_build = False
    use_causal_mask = False
    attention_class: type[MultiHeadAttention] = KerasAttention

    @property
    def key_dim(self) -> int:
        """The size of each attention head, `hidden_dim // num_heads`."""
        return int(self.hidden_dim) // int(self.num_heads)

    def make_parts(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must make its parts in make_parts()")

    def layer_norm(self, name: str, epsilon: float | None = None) -> LayerNormalization:
        """A layer norm named `name`, of epsilon `epsilon` (default: the block's `layer_norm_epsilon`)."""
        epsilon = self.layer_norm_epsilon if epsilon is None else epsilon
        return LayerNormalization(epsilon=epsilon, dtype=self.dtype_policy, name=name)

    def self_attention(self, name: str, use_bias: bool = True, dropout: float = 0.0) -> MultiHeadAttention:
        """The block's multi-head attention (an `attention_class`), `num_heads` heads of `key_dim`, named `name`."""
        return self.attention_class(
            num_heads=self.num_heads,
            key_dim=self.key_dim,
            use_bias=use_bias,
            dropout=dropout,
            dtype=self.dtype_policy,
            name=name,
        )

    def dropout_layer(self, rate: float, name: str = "dropout") -> Dropout:
        """A dropout layer of `rate`, named `name`."""
        return Dropout(rate, dtype=self.dtype_policy, name=name)

    def build(self, input_shape: Any) -> None:
        if self.make_parts_in_build:
            self.make_parts()
        self._norm_1.build(input_shape)
        if isinstance(self._attention, MultiHeadAttention):
            self._attention.build(input_shape, input_shape)
        else:
            self._attention.build(input_shape)
        self._norm_2.build(input_shape)
        self.build_feed_forward(input_shape)

    def build_feed_forward(self, input_shape: Any) -> None:
        """Builds the feed-forward part(s) for inputs of `input_shape`."""
        self._feed_forward.build(input_shape)

    def attend(self, x: tf.Tensor, attention_mask: Any, training: Any) -> tf.Tensor:
        """The attention of the normalized states `x`."""
        return self._attention(
            x, x, attention_mask=attention_mask, training=training, use_causal_mask=self.use_causal_mask
        )

    def after_attention(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        """The attention's output before the residual (dropout, layer scale ...); as it is by default."""
        return x

    def feed_forward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        """The feed-forward output of the normalized states `x`."""
        return self._feed_forward(x, training=training)

    def after_feed_forward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        """The feed-forward's output before the residual; as it is by default."""
        return x

    def feed_forward_residual(self, hidden: tf.Tensor, training: Any) -> tf.Tensor:
        """`hidden` plus the feed-forward output of `norm_2(hidden)`."""
        return hidden + self.after_feed_forward(self.feed_forward(self._norm_2(hidden), training), training)

    def encode(self, inputs: tf.Tensor, attention_mask: Any = None, training: Any = None) -> tf.Tensor:
        """The block's computation (a family's `call` passes its arguments here)."""
        hidden = inputs + self.after_attention(self.attend(self._norm_1(inputs), attention_mask, training), training)
        return self.feed_forward_residual(hidden, training)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        return self.encode(inputs, None, training)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class PreNormEncoder(DeclaredLayer):
    """A stack of `num_layers` blocks (`encoder_layers`, `"transformer_block_1"`...), then a layer norm (`"ln"`).

    A family subclasses it with its constructor (the signature only:
    `num_layers` and its block's arguments, `hidden_dim` and
    `layer_norm_epsilon` among them) and declares `block_class`, and
    `input_dropout` when dropout (`"dropout"`) is applied to the inputs.
    The blocks, the dropout and the norm are made in `build`, in that order.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.layers.vit_style_encoder import PreNormEncoder
        >>> from tfkit.hub.models.vit.vit_layers import ViTEncoder
        >>> issubclass(ViTEncoder, PreNormEncoder)
        True
    """

    block_class: type[PreNormEncoderBlock]
    input_dropout = False

    def build(self, input_shape: Any) -> None:
        block_arguments = inspect.signature(self.block_class.__init__).parameters
        arguments = {name: getattr(self, name) for name in block_arguments if hasattr(self, name) and name != "self"}
        blocks = []
        for index in range(self.num_layers):
            block = self.block_class(**arguments, dtype=self.dtype_policy, name=f"transformer_block_{index + 1}")
            block.build((None, None, self.hidden_dim))
            blocks.append(block)
        self.encoder_layers = blocks
        if self.input_dropout:
            self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")
        self.layer_norm = LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name="ln")
        self.layer_norm.build((None, None, self.hidden_dim))

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.dropout(inputs, training=training) if self.input_dropout else inputs
        for block in self.encoder_layers:
            x = block(x, training=training)
        return self.layer_norm(x)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


def patch_grid(owner: str, image_shape: Any, patch_size: Any, data_format: str) -> tuple[tuple, tuple, Any]:
    """Checks a ViT-style backbone's `image_shape` against `patch_size`.

    Args:
        owner: The backbone's class name, for the messages.
        image_shape: `(height, width, channels)` (channels first:
            `(channels, height, width)`).
        patch_size: An int or `(height, width)`.
        data_format: `"channels_last"` or `"channels_first"`.

    Returns:
        `((height, width), (patch_height, patch_width), channels)`.

    Raises:
        ValueError: If the image is not 3 numbers with a known height and
            width, or the patch size does not divide them.

    Example:
        >>> from tfkit.hub.layers.vit_style_encoder import patch_grid
        >>> patch_grid("ViTBackbone", (8, 12, 3), 4, "channels_last")
        ((8, 12), (4, 4), 3)
    """
    h_axis, w_axis, channels_axis = (-3, -2, -1) if data_format == "channels_last" else (-2, -1, -3)
    if len(image_shape) != 3 or image_shape[h_axis] is None or image_shape[w_axis] is None:
        raise ValueError(
            f"{owner}: image_shape must be 3 numbers with a known height and width ({data_format}), got {image_shape}"
        )
    patch_size = (patch_size, patch_size) if isinstance(patch_size, int) else tuple(patch_size)
    for axis, patch, what in ((h_axis, patch_size[0], "height"), (w_axis, patch_size[1], "width")):
        if image_shape[axis] % patch != 0:
            raise ValueError(
                f"{owner}: the image {what} {image_shape[axis]} must be divisible by the patch {what} {patch}"
            )
    return (image_shape[h_axis], image_shape[w_axis]), patch_size, image_shape[channels_axis]


def square_image_side(owner: str, image_shape: Any, data_format: str | None) -> tuple[str, int]:
    """The data format resolved and the side of a CLIP-style encoder's square images.

    Args:
        owner: The encoder's class name, for the messages.
        image_shape: The images' shape without the batch axis.
        data_format: `"channels_last"`, `"channels_first"` or `None`.

    Returns:
        `(data_format, side)`.

    Raises:
        ValueError: If the image's height and width differ.

    Example:
        >>> from tfkit.hub.layers.vit_style_encoder import square_image_side
        >>> square_image_side("CLIPVisionEncoder", (3, 8, 8), "channels_first")
        ('channels_first', 8)
    """
    data_format = standardize_data_format(data_format, owner)
    height, width = image_shape[:2] if data_format == "channels_last" else image_shape[1:]
    if height != width:
        raise ValueError(f"{owner}: the height and width of image_shape must be equal, got {tuple(image_shape)}")
    return data_format, height


def encoder_outputs(x: Any, blocks: list, final_norm: Any, intermediate_output_index: int | None = None) -> Any:
    """Runs `blocks` then `final_norm` (CLIP's and SigLIP's encoders' stacks, in their functional graphs).

    Args:
        x: The blocks' input.
        blocks: The encoder blocks.
        final_norm: The layer norm after them.
        intermediate_output_index: The index of a block whose output is
            returned too, or `None`.

    Returns:
        The normalized output, or (with `intermediate_output_index`) a dict
        of it (`"sequence_output"`) and that block's (`"intermediate_output"`).

    Example:
        >>> from tfkit.hub.layers.vit_style_encoder import encoder_outputs
        >>> encoder_outputs(np.ones((1, 2, 4)), [], tfkit.layers.LayerNormalization()).shape
        TensorShape([1, 2, 4])
    """
    intermediate = None
    for index, block in enumerate(blocks):
        x = block(x)
        if index == intermediate_output_index:
            intermediate = x
    sequence_output = final_norm(x)
    if intermediate_output_index is None:
        return sequence_output
    return {"sequence_output": sequence_output, "intermediate_output": intermediate}


class ChannelsFirstInConfig:
    """Mixin for a backbone whose config, as KerasHub's, has no `data_format`: tfkit's keeps it only when it is
    `"channels_first"` (so that such an encoder is rebuilt as it was)."""

    def get_config(self) -> dict[str, Any]:
        """The config: KerasHub's keys, and `data_format` when it is `"channels_first"` (KerasHub keeps none).

        Returns:
            A dict of plain values.
        """
        config = super().get_config()  # type: ignore[misc]  # the backbone's
        if config["data_format"] == "channels_last":
            del config["data_format"]
        return config
