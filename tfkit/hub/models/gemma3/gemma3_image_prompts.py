"""The image side of Gemma 3's prompts: placeholder tokens, the images' tensor and the placeholders' positions.

    prompts = expand_image_tokens(prompts, tokenizer, 256)     # <start_of_image> -> 256 <img> between image tokens
    images = images_tensor(images, True, image_converter, 2)  # (batch, 2, 896, 896, 3), zero images as padding
    indices = vision_indices(token_ids == tokenizer.image_placeholder_id, 2 * 256)

TensorFlow ops only, as KerasHub's ``Gemma3CausalLMPreprocessor`` computes them,
so they run in ``tf.data``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf


def expand_image_tokens(prompts: Any, tokenizer: Any, num_vision_tokens_per_image: int) -> tf.Tensor:
    """Each ``<start_of_image>`` of ``prompts`` (strings) as ``\\n\\n<start_of_image>``, the image's ``<img>``
    placeholders, ``<end_of_image>\\n\\n``."""
    start = tokenizer.start_of_image_token
    image = start + tokenizer.image_placeholder * num_vision_tokens_per_image + tokenizer.end_of_image_token
    return tf.strings.regex_replace(prompts, start, f"\n\n{image}\n\n")


def images_tensor(images: Any, batched: bool, image_converter: Any, max_images_per_prompt: int) -> tf.Tensor:
    """``images`` (one list of images a prompt, of any sizes; one list for an unbatched prompt) converted, each
    prompt's padded with zero images to ``max_images_per_prompt``: ``(batch, max_images_per_prompt, height,
    width, 3)``.

    Raises:
        ValueError: If ``images`` is neither a list, an array nor a tensor.
    """
    if isinstance(images, np.ndarray):
        images = tf.RaggedTensor.from_tensor(tf.convert_to_tensor(images))
    elif isinstance(images, list):
        images = tf.ragged.constant(images)
    elif isinstance(images, tf.Tensor):
        images = tf.RaggedTensor.from_tensor(images)
    elif not isinstance(images, tf.RaggedTensor):
        raise ValueError(
            f"Gemma3CausalLMPreprocessor: `images` must be a list, an array, a tensor or a ragged tensor, got "
            f"{type(images).__name__}"
        )
    if not batched:
        images = tf.expand_dims(images, axis=0)
    if images.shape.rank == 4:  # one image a prompt
        images = tf.expand_dims(images, axis=1)
    images = images.to_tensor(shape=[None, max_images_per_prompt, None, None, 3], default_value=0)
    shape = tf.shape(images)
    images = image_converter(tf.reshape(images, [-1, shape[2], shape[3], shape[4]]))
    height, width = image_converter.image_size
    return tf.reshape(images, [shape[0], max_images_per_prompt, height, width, shape[4]])


def vision_indices(vision_mask: Any, width: int) -> tf.Tensor:
    """The positions of each row's placeholder tokens (``vision_mask``), padded with ``0`` to ``width``."""
    length = tf.shape(vision_mask)[1]
    flat = tf.cast(tf.where(tf.reshape(vision_mask, [-1]))[:, 0], tf.int32)
    rows = tf.RaggedTensor.from_row_lengths(flat, tf.reduce_sum(tf.cast(vision_mask, tf.int32), axis=1))
    rows = rows - (tf.range(tf.shape(vision_mask)[0], dtype=tf.int32) * length)[:, tf.newaxis]
    return rows.to_tensor(shape=[None, width], default_value=0)
