"""Augmentation policies of Keras 3: ``RandAugment`` and ``AugMix``, built from the single augmentations.

    augment = tfkit.layers.RandAugment(value_range=(0, 255), num_ops=2, factor=0.5, seed=1)
    mixed = tfkit.layers.AugMix(value_range=(0, 1), num_chains=3, chain_depth=3, seed=2)
    dataset = dataset.map(lambda x, y: (augment(x, training=True), y))

Which augmentation runs is drawn with TensorFlow's random ops on every call
(``tf.switch_case``), so each batch of a ``tf.data`` pipeline or a compiled
``fit`` step gets a new choice; as in Keras one choice serves the whole
batch while each augmentation draws its strength per image.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_affine import RandomRotation, RandomTranslation
from tfkit.layers.preprocessing.image_augment_base import RandomAugmentation
from tfkit.layers.preprocessing.image_color import (
    RandomBrightness,
    RandomColorDegeneration,
    RandomPosterization,
    Solarization,
)
from tfkit.layers.preprocessing.image_filter import RandomSharpness
from tfkit.layers.preprocessing.image_geometry import RandomShear
from tfkit.layers.preprocessing.image_histogram import AutoContrast, Equalization
from tfkit.layers.preprocessing.image_random import RandomContrast

__all__ = ["RandAugment", "AugMix"]

_GEOMETRIC = ("random_shear", "random_translation", "random_rotation")
_ALL_OPS = (
    "random_shear",
    "random_translation",
    "random_rotation",
    "random_brightness",
    "random_color_degeneration",
    "random_contrast",
    "random_sharpness",
    "random_posterization",
    "solarization",
    "auto_contrast",
    "equalization",
)
_AUGMIX_BASIC = (
    "random_shear",
    "random_translation",
    "random_rotation",
    "random_posterization",
    "solarization",
    "auto_contrast",
    "equalization",
)


class _Policy(RandomAugmentation):
    """Holds the single augmentations, each built with this layer's factor, value range and seed."""

    def __init__(
        self,
        value_range: Any,
        factor: Any,
        interpolation: str,
        names: tuple[str, ...],
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, **kwargs)
        who = self._who()
        self.value_range = base.value_range_pair(value_range, who)
        self.factor = base.factor_range(factor, "factor", who, 0.0, 1.0)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{who} expected interpolation 'nearest' or 'bilinear', got {interpolation!r}")
        self.interpolation = interpolation
        self._op_names = names
        f, vr = self.factor, self.value_range
        seeds = iter(range(len(names))) if seed is None else iter(range(seed, seed + len(names)))

        def next_seed() -> Any:
            value = next(seeds)
            return None if seed is None else value

        makers = {
            "random_shear": lambda: RandomShear(x_factor=f, y_factor=f, interpolation=interpolation, seed=next_seed()),
            "random_translation": lambda: RandomTranslation(f, f, interpolation=interpolation, seed=next_seed()),
            "random_rotation": lambda: RandomRotation(f, interpolation=interpolation, seed=next_seed()),
            "random_brightness": lambda: RandomBrightness(f, value_range=vr, seed=next_seed()),
            "random_color_degeneration": lambda: RandomColorDegeneration(f, value_range=vr, seed=next_seed()),
            "random_contrast": lambda: RandomContrast(f, value_range=vr, seed=next_seed()),
            "random_sharpness": lambda: RandomSharpness(f, value_range=vr, seed=next_seed()),
            "random_posterization": lambda: RandomPosterization(
                max(1, int(8 * f[1])), value_range=vr, seed=next_seed()
            ),
            "solarization": lambda: Solarization(
                addition_factor=f, threshold_factor=f, value_range=vr, seed=next_seed()
            ),
            "auto_contrast": lambda: AutoContrast(value_range=vr),
            "equalization": lambda: Equalization(value_range=vr),
        }
        for name in names:
            setattr(self, name, makers[name]())

    def apply_op(self, images: tf.Tensor, index: tf.Tensor, with_identity: bool = False) -> tf.Tensor:
        """The augmentation number ``index`` (a scalar tensor) applied to the batch; the last is "none"."""
        shape = images.shape

        def branch(name: str) -> Any:
            return lambda: tf.ensure_shape(getattr(self, name).augment(images), shape)

        branches = [branch(name) for name in self._op_names]
        if with_identity:
            branches.append(lambda: images)
        return tf.ensure_shape(tf.switch_case(index, branches), shape)

    def clip(self, images: tf.Tensor) -> tf.Tensor:
        return tf.clip_by_value(
            images, tf.cast(self.value_range[0], images.dtype), tf.cast(self.value_range[1], images.dtype)
        )

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: Any) -> tf.Tensor:
        raise NotImplementedError(f"{self._who()} does not transform segmentation masks yet; augment images only")

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(value_range=list(self.value_range), factor=list(self.factor), interpolation=self.interpolation)
        return config


def repeat(times: int, step: Any, images: tf.Tensor) -> tf.Tensor:
    """``images = step(i, images)`` for ``i`` in ``range(times)``, as one ``tf.while_loop``.

    The loop traces ``step`` (and so every branch of a policy's
    ``tf.switch_case``) once instead of ``times`` times, which keeps
    ``tf.data`` maps, ``fit`` and XLA compiles of the policies quick.
    """
    shape = images.shape
    _, out = tf.while_loop(
        lambda i, _: i < times,
        lambda i, x: (i + 1, tf.ensure_shape(step(i, x), shape)),
        (tf.constant(0), images),
        maximum_iterations=times,
    )
    return out


@registry.builtin("layers")
class RandAugment(_Policy):
    """RandAugment performs the Rand Augment operation on input images.

    This layer can be thought of as an all-in-one image augmentation layer.
    It applies `num_ops` augmentations in a row, each picked uniformly from
    eleven (shear, translation, rotation, brightness, color degeneration,
    contrast, sharpness, posterization, solarization, auto-contrast and
    equalization), all with strength `factor`. As in Keras, one choice of
    augmentations serves the whole batch while each augmentation draws its
    strength per image; the choice is drawn with TensorFlow's random ops on
    every call, so each batch of a `tf.data` pipeline or compiled `fit` step
    gets a new one.

    References:
        - [RandAugment](https://arxiv.org/abs/1909.13719).

    Args:
        value_range: The range of values the input images can take, a pair
            `(low, high)` (sorted if given in the other order); results are
            clipped to it. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        num_ops: Positive integer, the number of augmentations to apply
            sequentially. Defaults to `2`.
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the
            strength range given to every augmentation (a float `f` means
            `(0, f)`). Defaults to `0.5`.
        interpolation: Interpolation mode of the geometric augmentations,
            `"nearest"` or `"bilinear"`. Defaults to `"bilinear"`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged). Images are computed on in the
            layer's float compute dtype; a dict input returns a dict.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as floats).
            Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `value_range` is not a pair of distinct numbers,
            `num_ops` is not a positive integer, `factor` is not a number or
            a pair in `[0, 1]`, `interpolation` or `data_format` is unknown, or
            `seed` is not an int; on call, if the images are not 3D or 4D.

    Example:
        >>> layer = tfkit.layers.RandAugment(value_range=(0, 255), num_ops=2, factor=0.5, seed=1)
        >>> images = np.random.uniform(0, 255, (2, 8, 8, 3))
        >>> layer(images).shape
        TensorShape([2, 8, 8, 3])
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        num_ops: int = 2,
        factor: Any = 0.5,
        interpolation: str = "bilinear",
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(value_range, factor, interpolation, _ALL_OPS, seed=seed, data_format=data_format, **kwargs)
        self.num_ops = positive_int(num_ops, "num_ops", self._who())

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        picks = self.uniform((self.num_ops,), 0.0, float(len(self._op_names)))
        return {"ops": tf.minimum(tf.cast(picks, tf.int32), len(self._op_names) - 1)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        ops = transformation["ops"]
        return repeat(self.num_ops, lambda i, x: self.apply_op(x, ops[i]), images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["num_ops"] = self.num_ops
        return config


@registry.builtin("layers")
class AugMix(_Policy):
    """Performs the AugMix data augmentation technique.

    AugMix aims to produce images with variety while preserving the image
    semantics and local statistics. It runs `num_chains` chains of up to
    `chain_depth` random augmentations on the images, mixes the chains with
    Dirichlet weights, then blends the result with the original images by a
    `Beta(alpha, alpha)` weight, and clips to `value_range`.

    References:
        - [AugMix paper](https://arxiv.org/abs/1912.02781).

    Args:
        value_range: The range of values the input images can take, a pair
            `(low, high)` (sorted if given in the other order); results are
            clipped to it. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        num_chains: Positive integer, the number of augmentation chains to
            mix. Defaults to `3`.
        chain_depth: Positive integer, the depth of each chain (each step
            may also be "no augmentation"). Defaults to `3`.
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the
            strength range given to every augmentation (a float `f` means
            `(0, f)`). Defaults to `0.3`.
        alpha: Positive float, the parameter of the Dirichlet and Beta
            distributions of the mixing weights. Defaults to `1.0`.
        all_ops: Whether to use all the augmentations. `False` leaves out the
            color augmentations (brightness, color degeneration, contrast,
            sharpness), as in Keras. Defaults to `True`.
        interpolation: Interpolation mode of the geometric augmentations,
            `"nearest"` or `"bilinear"`. Defaults to `"bilinear"`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged). Images are computed on in the
            layer's float compute dtype; a dict input returns a dict.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as floats).
            Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `value_range` is not a pair of distinct numbers,
            `num_chains` or `chain_depth` is not a positive integer, `factor`
            is not a number or a pair in `[0, 1]`, `alpha` is not positive,
            `interpolation` or `data_format` is unknown, or `seed` is not an
            int; on call, if the images are not 3D or 4D.

    Example:
        >>> layer = tfkit.layers.AugMix(value_range=(0, 1), num_chains=2, chain_depth=2, seed=2)
        >>> y = layer(np.random.uniform(0, 1, (2, 8, 8, 3)))
        >>> y.shape
        TensorShape([2, 8, 8, 3])
        >>> bool(tf.reduce_min(y) >= 0.0 and tf.reduce_max(y) <= 1.0)
        True
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        num_chains: int = 3,
        chain_depth: int = 3,
        factor: Any = 0.3,
        alpha: float = 1.0,
        all_ops: bool = True,
        interpolation: str = "bilinear",
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            value_range,
            factor,
            interpolation,
            _ALL_OPS if all_ops else _AUGMIX_BASIC,
            seed=seed,
            data_format=data_format,
            **kwargs,
        )
        who = self._who()
        self.num_chains = positive_int(num_chains, "num_chains", who)
        self.chain_depth = positive_int(chain_depth, "chain_depth", who)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
            raise ValueError(f"{who} expected alpha to be a positive number, got {alpha!r}")
        self.alpha = alpha
        self.all_ops = bool(all_ops)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        choices = len(self._op_names) + 1  # the last choice is "no augmentation"
        picks = self.uniform((self.num_chains, self.chain_depth), 0.0, float(choices))
        return {
            "chain_weights": base.dirichlet(self.num_chains, self.alpha, self.seed_generator),
            "original_weight": base.beta((), self.alpha, self.alpha, self.seed_generator),
            "ops": tf.minimum(tf.cast(picks, tf.int32), choices - 1),
        }

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        ops, weights = transformation["ops"], tf.cast(transformation["chain_weights"], images.dtype)

        def chain(c: tf.Tensor, mixed: tf.Tensor) -> tf.Tensor:
            augmented = repeat(self.chain_depth, lambda d, x: self.apply_op(x, ops[c, d], with_identity=True), images)
            return mixed + weights[c] * augmented

        mixed = repeat(self.num_chains, chain, tf.zeros_like(images))
        weight = tf.cast(transformation["original_weight"], images.dtype)
        return self.clip(weight * images + (1.0 - weight) * mixed)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(num_chains=self.num_chains, chain_depth=self.chain_depth, alpha=self.alpha, all_ops=self.all_ops)
        return config
