"""``WithoutPaddingMask``: a preprocessor's packed inputs less ``padding_mask``, for FNet, which takes none.

class FNetTextClassifierPreprocessor(WithoutPaddingMask, TextClassifierPreprocessor): ...
"""

from __future__ import annotations

from typing import Any

from tfkit.utils import pack_x_y_sample_weight, unpack_x_y_sample_weight


class WithoutPaddingMask:
    """A preprocessor mixin: the base class's packed inputs, less `padding_mask` (a backbone that takes none).

    Example:
        >>> from tfkit.hub.models.f_net.without_padding_mask import WithoutPaddingMask
        >>> class Packed:
        ...     def call(self, x, y=None, sample_weight=None):
        ...         return {"token_ids": x, "padding_mask": x > 0}, y
        >>> class Unmasked(WithoutPaddingMask, Packed):
        ...     pass
        >>> x, y = Unmasked().call(np.array([[3, 0]]), y=np.array([1]))
        >>> sorted(x), y.tolist()
        (['token_ids'], [1])
    """

    def call(self, x: Any, y: Any = None, sample_weight: Any = None) -> Any:
        """The base class's `call`, its `x` without `padding_mask`.

        Args:
            x: The raw inputs.
            y: The labels, passed through. Defaults to `None`.
            sample_weight: The sample weights, passed through. Defaults to
                `None`.

        Returns:
            What the base class returns, `padding_mask` left out of `x`.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(super().call(x, y=y, sample_weight=sample_weight))
        x = {key: value for key, value in x.items() if key != "padding_mask"}
        return pack_x_y_sample_weight(x, y, sample_weight)
