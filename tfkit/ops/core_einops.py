"""``rearrange``: einops-style reshapes and transposes written as a pattern, as ``keras.ops.rearrange``.

    y = tfkit.ops.rearrange(x, "b h w c -> b c h w")                  # a transpose
    y = tfkit.ops.rearrange(x, "b (h w) c -> b h w c", h=4)          # split an axis (w inferred)
    y = tfkit.ops.rearrange(x, "b h w c -> b (h w c)")               # flatten

Each side lists the axes once; parentheses group axes into one. Both sides name the same axes.
"""

from __future__ import annotations

import re
from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export
from tfkit.ops._convert import tensor as as_tensor

_TOKEN = re.compile(r"\(|\)|[A-Za-z_][A-Za-z0-9_]*|\S")


def _groups(side: str, pattern: str) -> list[list[str]]:
    """``"b (h w) c"`` -> ``[["b"], ["h", "w"], ["c"]]``; ``ValueError`` on anything else."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    for token in _TOKEN.findall(side):
        if token == "(":
            if current is not None:
                raise ValueError(f"rearrange: nested parentheses in pattern {pattern!r}")
            current = []
        elif token == ")":
            if current is None:
                raise ValueError(f"rearrange: unbalanced ')' in pattern {pattern!r}")
            groups.append(current)
            current = None
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token):
            if current is None:
                groups.append([token])
            else:
                current.append(token)
        else:
            raise ValueError(
                f"rearrange: unexpected {token!r} in pattern {pattern!r}; axes are names, optionally "
                f"grouped in parentheses"
            )
    if current is not None:
        raise ValueError(f"rearrange: unbalanced '(' in pattern {pattern!r}")
    names = [a for g in groups for a in g]
    if len(set(names)) != len(names):
        raise ValueError(f"rearrange: an axis is named twice on one side of pattern {pattern!r}")
    return groups


def rearrange(tensor: Any, pattern: str, **axes_lengths: int) -> tf.Tensor:
    """Rearranges the axes of a tensor using an einops-style pattern.

    The pattern reads `"input axes -> output axes"`. Each side names every axis
    once; parentheses group several axes into one (a reshape), and reordering
    the names transposes. Both sides must name the same axes. Ellipsis (`...`),
    anonymous axes (`1`) and nested parentheses are not supported.

    Args:
        tensor: Input tensor.
        pattern: String describing the rearrangement in einops notation, such
            as `"b h w c -> b c h w"` or `"b (h w) c -> b h w c"`.
        **axes_lengths: Keyword arguments giving the lengths of axes that are
            split from a group: all but one axis of each left-side group needs
            one (the last is inferred).

    Returns:
        Tensor: A tensor with rearranged axes.

    Raises:
        ValueError: If `pattern` is malformed (no single `->`, unbalanced or
            nested parentheses, an axis named twice, or sides naming different
            axes), if `axes_lengths` names an axis not in the pattern, if the
            left side does not have one entry per axis of `tensor`, or if an
            axis cannot be split into the given lengths.

    Example:
        >>> images = tfkit.ops.ones((32, 30, 40, 3))
        >>> tfkit.ops.rearrange(images, "b h w c -> b c h w").shape
        TensorShape([32, 3, 30, 40])
        >>> tfkit.ops.rearrange(images, "b h w c -> b (h w c)").shape
        TensorShape([32, 3600])
        >>> tfkit.ops.rearrange(images, "b (h1 h) w c -> b h1 h w c", h1=2).shape
        TensorShape([32, 2, 15, 40, 3])
    """
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"rearrange: pattern must read 'in axes -> out axes', got {pattern!r}")
    x = as_tensor(tensor)
    left, right = pattern.split("->")
    inputs, outputs = _groups(left, pattern), _groups(right, pattern)
    in_names, out_names = [a for g in inputs for a in g], [a for g in outputs for a in g]
    if set(in_names) != set(out_names):
        raise ValueError(
            f"rearrange: both sides of {pattern!r} must name the same axes, got {sorted(set(in_names))} "
            f"and {sorted(set(out_names))}"
        )
    unknown = set(axes_lengths) - set(in_names)
    if unknown:
        raise ValueError(f"rearrange: axes_lengths names {sorted(unknown)}, which are not in pattern {pattern!r}")
    if len(inputs) != len(x.shape):
        raise ValueError(
            f"rearrange: the left side of {pattern!r} has {len(inputs)} axes but the tensor has rank "
            f"{len(x.shape)} (shape {tuple(x.shape)})"
        )
    dynamic = tf.shape(x)
    sizes: dict[str, Any] = {}
    for i, group in enumerate(inputs):
        dim = x.shape[i] if x.shape[i] is not None else dynamic[i]
        if len(group) == 1:
            sizes[group[0]] = axes_lengths.get(group[0], dim)
            continue
        missing = [a for a in group if a not in axes_lengths]
        if len(missing) > 1:
            raise ValueError(
                f"rearrange: give the lengths of all but one of {group} in {pattern!r}, e.g. {missing[0]}=..."
            )
        known = 1
        for a in group:
            if a in axes_lengths:
                known *= axes_lengths[a]
                sizes[a] = axes_lengths[a]
        if isinstance(dim, int) and (dim % known or (not missing and dim != known)):
            raise ValueError(
                f"rearrange: axis {i} of size {dim} cannot be split into {group} with lengths "
                f"{ {a: axes_lengths[a] for a in group if a in axes_lengths} }"
            )
        if missing:
            sizes[missing[0]] = dim // known
    x = tf.reshape(x, [sizes[a] for a in in_names])
    x = tf.transpose(x, [in_names.index(a) for a in out_names])
    shape = []
    for group in outputs:
        size: Any = 1
        for a in group:
            size = size * sizes[a]
        shape.append(size)
    return tf.reshape(x, shape)


__all__ = ["rearrange"]
export(globals(), __all__)
