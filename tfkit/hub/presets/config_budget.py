"""A preset's config held to what its weights store, before anything is built.

    sizes = StoredSizes.of(shape for shape in weight_shapes)       # count, largest and total elements
    check_arguments(backbone_config, sizes, "preset p: config.json")   # ValueError naming the field
    with building_within(sizes, "preset p: config.json"):
        backbone = GPT2Backbone(**backbone_config)                 # no variable larger than the file stores

A few digits of a ``config.json`` can ask for a model of any size:
``num_layers=10**6`` builds for hours, ``vocabulary_size=10**12`` asks
terabytes, ``num_heads=0`` divides by zero, ``sequence_length=2**40`` loads
and then pads every input to a trillion tokens. Each such field is checked
here against what the preset's weights actually store (every layer holds at
least one array, so there are no more layers than arrays; every width of
the model is the length of some stored array's axis, so none is wider than
the largest array) and against fixed limits far above any real model, and
refused naming the file and the field. What the checks cannot see is caught
while the model is built: every variable it creates is sized before it is
allocated and refused past what the weights store (``building_within``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Iterable, Mapping, Sequence

from tfkit.engine.config_cost import MAX_SAMPLE_ELEMENTS
from tfkit.saving.guard import variable_budget
from tfkit.saving.rebuild import SLACK_ELEMENTS, SLACK_VARIABLES

# The model's layer count: each layer stores at least one array.
LAYER_COUNTS = ("num_layers",)
# Widths a backbone's weights are made of: each is an axis of some stored array (an embedding's vocabulary and
# width, a projection's heads and head size, a feedforward's width, a learned position table's length, a
# patch embedding's kernel, a classifier's classes), so none can exceed the largest array's element count.
STORED_WIDTHS = (
    "vocabulary_size",
    "hidden_dim",
    "intermediate_dim",
    "mlp_dim",
    "head_dim",
    "num_heads",
    "num_query_heads",
    "num_key_value_heads",
    "num_segments",
    "num_classes",
    "embedding_dim",
    "pooling_intermediate_dim",
    "max_sequence_length",
    "patch_size",
)
POSITIVE_COUNTS = LAYER_COUNTS + STORED_WIDTHS
# Without weights (a config alone, built with load_weights=False), what no real model exceeds: the deepest have a
# few hundred layers, the widest vocabularies 262,144 tokens.
MAX_LAYERS_UNSIZED = 4096
MAX_WIDTH_UNSIZED = 2**24
# The pixels an image converter resizes every image to, a side: KerasHub's converters use 224 to 1,024.
IMAGE_SIZES = ("image_size",)
MAX_IMAGE_SIDE = 2**14
# The tokens a preprocessor or tokenizer pads every input to: KerasHub's presets use 512 to 131,072.
SEQUENCE_LENGTHS = ("sequence_length",)
MAX_SEQUENCE_LENGTH = 2**20


@dataclasses.dataclass(frozen=True)
class StoredSizes:
    """What a preset's weights store, in sizes only: how many arrays, the largest's and all their elements.

    Args:
        count: The number of stored arrays.
        largest: The element count of the largest array.
        total: The element count of all arrays together.
    """

    count: int
    largest: int
    total: int

    @classmethod
    def of(cls, shapes: Iterable[Sequence[int]]) -> "StoredSizes":
        """The sizes of arrays of these ``shapes``."""
        elements = [math.prod(int(d) for d in shape) for shape in shapes]
        return cls(len(elements), max(elements, default=0), sum(elements))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def described(field: str, value: Any, origin: Mapping[str, Any] | None = None) -> str:
    """``field=value``, with the fields of ``origin`` (a Hugging Face config) that hold the same value."""
    shown = f"{field}={value!r}"[:120]
    if origin is None:
        return shown
    sources = [key for key, item in origin.items() if item == value and type(item) is type(value)]
    return f"{shown} (from its {', '.join(sources[:3])})" if sources else shown


def check_arguments(
    arguments: Mapping[str, Any],
    sizes: StoredSizes | None,
    source: str,
    origin: Mapping[str, Any] | None = None,
    unstored: tuple[str, ...] = (),
) -> None:
    """Refuses a backbone's constructor ``arguments`` that ask for more than ``sizes`` (its weights) store.

    Args:
        arguments: The backbone's constructor arguments (KerasHub's names).
        sizes: What the preset's weights store, or `None` where it has
            none to read (fixed limits apply then: at most
            `MAX_LAYERS_UNSIZED` layers, widths up to `MAX_WIDTH_UNSIZED`).
        source: The file the arguments come from, for errors.
        origin: The Hugging Face config they were converted from, whose
            field names the errors add.
        unstored: Fields the backbone class declares sizing no array
            (`unstored_widths`: Phi-3's `max_sequence_length` scales its
            rotary frequencies, where GPT-2's sizes a position table):
            checked positive, not against the weights.

    Raises:
        ValueError: naming ``source`` and the field, if a layer count or width
            is not a positive integer, or exceeds what the weights store.
    """
    for field in LAYER_COUNTS + STORED_WIDTHS:
        if field not in arguments or arguments[field] is None:
            continue
        value = arguments[field]
        _check_positive(field, value, source, origin)
        if field in unstored:
            continue
        if sizes is None:  # no weights to size it by (a config alone, loaded without weights): fixed limits
            limit = MAX_LAYERS_UNSIZED if field in LAYER_COUNTS else MAX_WIDTH_UNSIZED
            if max(_ints(value)) > limit:
                raise ValueError(
                    f"{source}: {described(field, value, origin)}; without weights to size the model by, a "
                    f"preset's {'layer count' if field in LAYER_COUNTS else 'widths'} may be at most {limit}"
                )
            continue
        if field in LAYER_COUNTS and value > sizes.count:
            raise ValueError(
                f"{source}: {described(field, value, origin)}, but the weights store only {sizes.count} arrays, "
                f"and each layer stores at least one: the config describes a larger model than its weights"
            )
        if max(_ints(value)) > max(sizes.largest, 1):
            raise ValueError(
                f"{source}: {described(field, value, origin)}, wider than the largest array the weights store "
                f"({sizes.largest} elements): the config describes a larger model than its weights"
            )


def _check_positive(field: str, value: Any, source: str, origin: Mapping[str, Any] | None = None) -> None:
    """``ValueError`` naming ``field`` unless ``value`` is a positive integer (or a list of them: a patch size)."""
    items = _ints(value)
    wrong = next((item for item in items if not _is_int(item) or item < 1), None) if items else value
    if wrong is not None or not items:
        kind = "" if _is_int(wrong) else f" ({type(wrong).__name__})"
        raise ValueError(f"{source}: {described(field, value, origin)}{kind}; expected a positive integer")


def check_values(config: Any, source: str, origin: Mapping[str, Any] | None = None) -> None:
    """Refuses numbers in a preset's config (any of its objects) that no real model has.

    A sequence length over :data:`MAX_SEQUENCE_LENGTH` tokens, an image size
    over :data:`MAX_IMAGE_SIDE` pixels a side, an integer
    over ``config_cost.MAX_SAMPLE_ELEMENTS``, a layer count or width that is
    not a positive integer, and a float that is not finite (``Infinity`` or
    ``NaN``, which Python's JSON reader accepts).

    Args:
        config: A parsed preset file (``config.json``, ``task.json``,
            ``preprocessor.json``, ``tokenizer.json``).
        source: The file, for errors.
        origin: The Hugging Face config ``config`` was converted from, whose
            field names the errors add.

    Raises:
        ValueError: naming ``source`` and the field.
    """
    stack: list[tuple[Any, str]] = [(config, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                path = f"{where}.{key}" if where else str(key)
                if key in POSITIVE_COUNTS and item is not None:
                    _check_positive(path, item, source, origin)
                if key in IMAGE_SIZES and any(_is_int(side) and side > MAX_IMAGE_SIDE for side in _ints(item)):
                    raise ValueError(
                        f"{source}: {described(path, item, origin)}; a preset may resize its images to at most "
                        f"{MAX_IMAGE_SIDE} pixels a side"
                    )
                if key in SEQUENCE_LENGTHS and _is_int(item) and item > MAX_SEQUENCE_LENGTH:
                    raise ValueError(
                        f"{source}: {described(path, item, origin)} tokens; a preset may pad its inputs to at most "
                        f"{MAX_SEQUENCE_LENGTH} (KerasHub's use 512 to 131,072)"
                    )
                stack.append((item, path))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(value))
        elif _is_int(value) and abs(value) > MAX_SAMPLE_ELEMENTS:
            raise ValueError(
                f"{source}: {described(where, value, origin)}; a preset's numbers are at most {MAX_SAMPLE_ELEMENTS}"
            )
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{source}: {described(where, value, origin)}; a preset's numbers are finite")


def building_within(sizes: StoredSizes, source: str) -> Any:
    """A context in which building the preset's model creates no variable larger than its largest stored array,
    no more elements than it stores in all, and no more variables than it stores arrays (each with the
    slack a rebuilt Keras file gets: variables a file does not store, such as random-seed states)."""
    return variable_budget(
        max(sizes.largest, 1024), sizes.total + SLACK_ELEMENTS, sizes.count + SLACK_VARIABLES, source
    )
