"""``TextEmbedder``: the base of text embedding tasks, KerasHub's ``keras_hub.models.TextEmbedder``.

embedder = TextEmbedder.from_preset("./minilm")          # BertTextEmbedder: pooled, L2-normalized embeddings
scores = embedder.similarity(embedder.encode_text("a query"), embedder.encode_documents(["a", "b"]))

The pooling functions here are the families' heads: ops on the backbone's
symbolic outputs, so a text embedder has no weights of its own. From a
sentence-transformers checkpoint folder, `from_preset` reads the pooling mode
(`1_Pooling/config.json`) and normalization (`modules.json`), as KerasHub's
converters do.
"""

from __future__ import annotations

from typing import Any

from tfkit import ops, optimizers
from tfkit.hub.models.task import Task
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.saving import register_keras_serializable


def mean_pooling(sequence_output: Any, padding_mask: Any, epsilon: float) -> Any:
    """The mean of the unpadded positions' vectors, `(batch, hidden)` (at least `epsilon` positions counted)."""
    mask = ops.cast(ops.expand_dims(padding_mask, axis=-1), sequence_output.dtype)
    total = ops.sum(sequence_output * mask, axis=1)
    return total / ops.maximum(ops.sum(mask, axis=1), epsilon)


def max_pooling(sequence_output: Any, padding_mask: Any) -> Any:
    """The largest value of each feature over the unpadded positions, `(batch, hidden)`."""
    mask = ops.cast(ops.expand_dims(padding_mask, axis=-1), "bool")
    fill = ops.cast(ops.convert_to_tensor(float("-inf")), sequence_output.dtype)
    return ops.max(ops.where(mask, sequence_output, fill), axis=1)


def last_token_pooling(sequence_output: Any, padding_mask: Any) -> Any:
    """The vector of each sequence's last unpadded position (a masked position followed by padding)."""
    mask = ops.cast(padding_mask, sequence_output.dtype)
    following = ops.pad(mask, [[0, 0], [0, 1]])[:, 1:]
    last = mask * (1.0 - following)
    return ops.sum(sequence_output * ops.expand_dims(last, axis=-1), axis=1)


def pooled_embeddings(
    sequence_output: Any, padding_mask: Any, pooling_mode: str, modes: tuple[str, ...], epsilon: float = 1e-9
) -> Any:
    """`sequence_output` pooled by `pooling_mode`, one of `modes` (`"mean"`, `"cls"`, `"max"`, `"last"`).

    Raises:
        ValueError: If `pooling_mode` is not one of `modes`.
    """
    if pooling_mode not in modes:
        quoted = [f"'{mode}'" for mode in modes]
        expected = " or ".join(quoted) if len(quoted) == 2 else ", ".join(quoted[:-1]) + ", or " + quoted[-1]
        raise ValueError(f"Invalid pooling_mode: '{pooling_mode}'. Expected one of {expected}.")
    if pooling_mode == "mean":
        return mean_pooling(sequence_output, padding_mask, epsilon)
    if pooling_mode == "cls":
        return sequence_output[:, 0, :]
    if pooling_mode == "max":
        return max_pooling(sequence_output, padding_mask)
    return last_token_pooling(sequence_output, padding_mask)


def l2_normalized(embeddings: Any) -> Any:
    """`embeddings` scaled to unit L2 norm along the last axis."""
    return ops.nn.normalize(embeddings, axis=-1, order=2)


@register_keras_serializable(package="keras_hub")
class TextEmbedder(Task):
    """Base class for all text embedding tasks.

    A `TextEmbedder` maps text to one fixed-size vector per input,
    `(batch, hidden_dim)`: the backbone's token vectors pooled (the family's
    `pooling_mode`) and, by default, L2-normalized, for semantic search,
    clustering and retrieval. The head has no weights; a preset's
    `task.json` keeps its `pooling_mode` and `normalize`. Called on the
    `TextEmbedder` base class, `from_preset` returns the family's own
    (`BertTextEmbedder`). `compile` chooses an optimizer only: embedding
    training has no single standard loss, so `fit` needs a `loss` given to
    `compile`, as in KerasHub.

    Args:
        *args: The functional model's arguments, passed by a family's class.
        compile: Whether to `compile()` with the task's defaults at once, as
            KerasHub's tasks do. Defaults to `True`.
        **kwargs: `Task` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.TextEmbedder, keras_hub.models.Task)
        True
    """

    pooling_modes: tuple[str, ...] = ("mean", "cls", "max")  # a family's, its constructor's default first
    mean_pooling_epsilon = 1e-9

    def build_pooling_head(
        self, backbone: Any, preprocessor: Any, pooling_mode: str, normalize: bool, **kwargs: Any
    ) -> None:
        """Makes the task a functional model: the backbone's token vectors pooled, then L2-normalized if `normalize`.

        A family's constructor (its signature KerasHub's) calls it with its
        arguments; the pooling is one of the family's `pooling_modes` (a mean
        counts at least `mean_pooling_epsilon` positions). The head has no
        weights.

        Args:
            backbone: The family's backbone; its output, or its
                `"sequence_output"`, is the token vectors.
            preprocessor: The family's preprocessor, or `None`.
            pooling_mode: One of `pooling_modes`.
            normalize: Whether to scale the embeddings to unit L2 norm.
            **kwargs: `Task` keyword arguments, such as `name`.

        Raises:
            ValueError: If `pooling_mode` is not one of `pooling_modes`.
        """
        self.backbone = backbone
        self.preprocessor = preprocessor
        inputs = backbone.input
        outputs = backbone(inputs)
        sequence_output = outputs["sequence_output"] if isinstance(outputs, dict) else outputs
        pooled = pooled_embeddings(
            sequence_output, inputs["padding_mask"], pooling_mode, self.pooling_modes, self.mean_pooling_epsilon
        )
        super().__init__(inputs=inputs, outputs=l2_normalized(pooled) if normalize else pooled, **kwargs)
        self.pooling_mode = pooling_mode
        self.normalize = normalize

    @classmethod
    def from_preset(cls, preset: str, load_weights: bool = True, **kwargs: Any) -> Task:
        """Instantiates a text embedder from a preset, or from a sentence-transformers checkpoint folder.

        A Transformers checkpoint's sentence-transformers files set the
        defaults of the task's arguments, as KerasHub's converters read them:
        `normalize` is whether `modules.json` lists a `Normalize` module, and
        `pooling_mode` comes from `1_Pooling/config.json`. Arguments passed
        here win.

        Args:
            preset: A preset folder or an `hf://` / `kaggle://` handle.
            load_weights: Whether to load the preset's weights. Defaults to
                `True`.
            **kwargs: Constructor arguments of the task, such as
                `pooling_mode` or `preprocessor`; `dtype` goes to the
                backbone.

        Returns:
            The task.
        """
        source = get_preset_loader(preset)
        if source.is_transformers_checkpoint:
            kwargs = {**source.matching_class(cls).sentence_transformers_arguments(source), **kwargs}
        return super().from_preset(source, load_weights=load_weights, **kwargs)

    @classmethod
    def sentence_transformers_arguments(cls, source: Any) -> dict[str, Any]:
        """`normalize` and `pooling_mode` as a sentence-transformers checkpoint's files set them (those present).

        Args:
            source: The checkpoint's preset loader.

        Returns:
            A dict of constructor arguments.
        """
        arguments: dict[str, Any] = {}
        if source.has_file("modules.json"):
            modules = source.read_json("modules.json")
            arguments["normalize"] = any("Normalize" in module.get("type", "") for module in modules)
        if source.has_file("1_Pooling/config.json"):
            arguments["pooling_mode"] = cls.sentence_transformers_pooling(source.read_json("1_Pooling/config.json"))
        return arguments

    @classmethod
    def sentence_transformers_pooling(cls, pooling: dict[str, Any]) -> str:
        """The `pooling_mode` of a sentence-transformers pooling config: `"cls"`, `"max"`, else `"mean"`.

        A decoder's (whose `pooling_modes` hold `"last"`): `"mean"` when it
        asks for mean tokens, else `"last"`.

        Args:
            pooling: The parsed `1_Pooling/config.json`.

        Returns:
            A pooling mode.
        """
        if "last" in cls.pooling_modes:  # a decoder's (KerasHub's Gemma 3 and Qwen 3 converters)
            return "mean" if pooling.get("pooling_mode_mean_tokens", False) else "last"
        if pooling.get("pooling_mode_cls_token", False):
            return "cls"
        return "max" if pooling.get("pooling_mode_max_tokens", False) else "mean"

    def compile(self, optimizer: Any = "auto", loss: Any = None, *, metrics: Any = None, **kwargs: Any) -> None:
        """Configures the task for training: Adam by default, and the loss the caller gives.

        Args:
            optimizer: `"auto"` (Adam, learning rate 5e-5), or anything
                `tfkit.Model.compile` takes. Defaults to `"auto"`.
            loss: The training loss; there is no default (`None`), so `fit`
                needs one.
            metrics: Metrics to report, or `None`. Defaults to `None`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.Adam(5e-5)
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(pooling_mode=self.pooling_mode, normalize=self.normalize)
        return config

    def encode_text(self, text: Any, **kwargs: Any) -> Any:
        """The embeddings of a string or a list of strings (`predict` on them).

        Args:
            text: A string or a list of strings.
            **kwargs: `predict` keyword arguments, such as `batch_size`.

        Returns:
            A NumPy array `(batch, embedding_dim)`.
        """
        return self.predict([text] if isinstance(text, str) else text, **kwargs)

    def similarity(self, query_embeddings: Any, document_embeddings: Any) -> Any:
        """The dot products of query and document embeddings (cosine similarity when normalized).

        Args:
            query_embeddings: `(num_queries, embedding_dim)` values.
            document_embeddings: `(num_documents, embedding_dim)` values.

        Returns:
            A tensor `(num_queries, num_documents)`.
        """
        queries = ops.convert_to_tensor(query_embeddings)
        return ops.matmul(queries, ops.transpose(ops.convert_to_tensor(document_embeddings)))


class LastTokenTextEmbedder(TextEmbedder):
    """A decoder family's `TextEmbedder` (Gemma 3's, Qwen 3's): KerasHub's constructor, last-token pooling first.

    The embeddings are the vector of each sequence's last unpadded token
    (`"last"`, the default) or the mean of the unpadded ones (`"mean"`),
    L2-normalized by default. KerasHub has no such class: the preset's
    metadata lists the family's class as a `TextEmbedder`.

    Args:
        backbone: The family's backbone.
        preprocessor: The family's preprocessor, or `None` (the model then
            takes `{"token_ids", "padding_mask"}`). Defaults to `None`.
        pooling_mode: `"last"` or `"mean"`. Defaults to `"last"`.
        normalize: Whether to scale the embeddings to unit L2 norm.
            Defaults to `True`.
        **kwargs: `TextEmbedder` keyword arguments, such as `name`.

    Example:
        >>> from tfkit.hub.models.text_embedder import LastTokenTextEmbedder
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.Qwen3TextEmbedder, LastTokenTextEmbedder)
        True
    """

    pooling_modes, mean_pooling_epsilon = ("last", "mean"), 1e-5

    def __init__(
        self, backbone: Any, preprocessor: Any = None, pooling_mode: str = "last", normalize: bool = True, **kwargs: Any
    ) -> None:
        self.build_pooling_head(backbone, preprocessor, pooling_mode, normalize, **kwargs)
