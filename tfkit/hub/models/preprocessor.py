"""``Preprocessor``: raw inputs (strings, images) to a task's model inputs, KerasHub's ``keras_hub.models.Preprocessor``.

    preprocessor = tfkit.hub.models.CausalLMPreprocessor.from_preset("./gpt2_tiny")
    x, y, sample_weight = preprocessor(["a quick fox"])      # token ids, padding mask, shifted labels

A preprocessor holds a tokenizer (or an image converter) and runs in
``tf.data`` and in exported models: TensorFlow ops only, no weights.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.presets import files, loader, saver
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
from tfkit.saving import deserialize, register_keras_serializable, serialize


@register_keras_serializable(package="keras_hub")
class Preprocessor(PreprocessingLayer):
    """Base class for preprocessing layers of KerasHub tasks.

    A preprocessor turns raw data into what a task's backbone takes and, for
    training, packs `(x, y, sample_weight)`. Subclasses set `backbone_cls`
    and `tokenizer_cls` (or `image_converter_cls`) so that `from_preset` can
    build one from a preset that holds only a backbone and a tokenizer.

    Args:
        config_file: The preset file holding this preprocessor's config.
            Defaults to `"preprocessor.json"`.
        **kwargs: Layer keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.Preprocessor, tfkit.layers.Layer)
        True
    """

    backbone_cls: Any = None
    tokenizer_cls: Any = None
    image_converter_cls: Any = None

    def __init__(self, config_file: str = files.PREPROCESSOR_CONFIG_FILE, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config_file = config_file
        self._tokenizer = None
        self._image_converter = None

    @property
    def tokenizer(self) -> Any:
        """The tokenizer that turns strings into token ids."""
        return self._tokenizer

    @tokenizer.setter
    def tokenizer(self, value: Any) -> None:
        self._tokenizer = value

    @property
    def image_converter(self) -> Any:
        """The layer that resizes and rescales images, or `None`."""
        return self._image_converter

    @image_converter.setter
    def image_converter(self, value: Any) -> None:
        self._image_converter = value

    def get_config(self) -> dict[str, Any]:
        """The layer's config, with the tokenizer (or image converter) serialized in it."""
        config = super().get_config()
        if self.tokenizer is not None:
            config["tokenizer"] = serialize(self.tokenizer)
        if self.image_converter is not None:
            config["image_converter"] = serialize(self.image_converter)
        config["config_file"] = self.config_file
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Preprocessor":
        """Rebuilds the preprocessor, and its tokenizer or image converter, from `get_config`'s output."""
        config = dict(config)
        for key in ("tokenizer", "image_converter"):
            if isinstance(config.get(key), dict):
                config[key] = deserialize(config[key])
        return cls(**config)

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, config_file: str = files.PREPROCESSOR_CONFIG_FILE, **kwargs: Any) -> Any:
        """Instantiates the preprocessor of a preset, with its tokenizer's vocabulary loaded.

        Call it on a task's preprocessor class (`CausalLMPreprocessor`,
        `TextClassifierPreprocessor`, or a family's own): the preset's family
        picks the subclass. A preset without `preprocessor.json` (a Hugging
        Face checkpoint, a backbone-only preset) gets a preprocessor with
        default arguments around its tokenizer or image converter.
        From a sentence-transformers checkpoint of BERT or XLM-RoBERTa,
        `sequence_length` defaults to the `max_seq_length` of its
        `sentence_bert_config.json`, as KerasHub's converters read it.

        Args:
            preset: A preset folder or an `hf://` / `kaggle://` handle.
            config_file: The preset file holding the preprocessor's config.
                Defaults to `"preprocessor.json"`.
            **kwargs: Constructor arguments that replace the preset's, such as
                `sequence_length`.

        Returns:
            The preprocessor.

        Raises:
            ValueError: If called on `Preprocessor` itself, or the preset has
                no preprocessor of this kind.
        """
        if cls is Preprocessor:
            raise ValueError(
                "Do not call Preprocessor.from_preset() directly; call a task's preprocessor class, such as "
                "tfkit.hub.models.CausalLMPreprocessor.from_preset()"
            )
        source = get_preset_loader(preset)
        cls = source.matching_class(cls)
        kwargs = {**source.preprocessor_arguments(), **kwargs}
        if source.has_file(config_file):
            entry = source.read_json(config_file)
            found = loader.config_class(entry, f"preset {source.directory}: {config_file}")
            if isinstance(found, type) and issubclass(found, cls):
                return source.load_serialized(cls, config_file, **kwargs)
        if "tokenizer" not in kwargs and cls.tokenizer_cls is not None:
            kwargs["tokenizer"] = cls.tokenizer_cls.from_preset(source)
        if "image_converter" not in kwargs and cls.image_converter_cls is not None:
            kwargs["image_converter"] = cls.image_converter_cls.from_preset(source)
        return cls(**kwargs)

    def load_preset_assets(self, preset: str) -> None:
        """Loads the vocabularies (and other assets) of every sub-layer from preset folder `preset`.

        Args:
            preset: The preset folder.
        """
        for layer in (self.tokenizer, self.image_converter):
            if layer is not None and hasattr(layer, "load_preset_assets"):
                layer.load_preset_assets(preset)

    def save_to_preset(self, preset_dir: str) -> None:
        """Saves the preprocessor (`preprocessor.json`) and its tokenizer (with its assets) or image converter.

        Args:
            preset_dir: The folder to write (created if missing).
        """
        saver.write_serialized(self, preset_dir, self.config_file)
        for layer in (self.tokenizer, self.image_converter):
            if layer is not None and hasattr(layer, "save_to_preset"):
                layer.save_to_preset(preset_dir)
