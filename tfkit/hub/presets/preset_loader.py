"""A preset resolved once: its folder, its kind (a KerasHub preset or a Transformers checkpoint), its files read once.

    loader = get_preset_loader("./gpt2_tiny")          # a folder, an hf:// or kaggle:// handle, or a loader
    backbone = loader.load_backbone(GPT2Backbone, load_weights=True)
    tokenizer = loader.load_tokenizer(GPT2Tokenizer)

Every ``from_preset`` of ``tfkit.hub`` (backbones, tokenizers, preprocessors,
image converters, tasks) starts with ``get_preset_loader`` and hands the loader
it gets to the readers of the parts it builds, which call ``from_preset`` with
the loader itself as the preset: the handle is resolved (and downloaded) once,
the kind is decided once, here, and each JSON file is parsed once. A loader is
``os.PathLike`` (its folder), so messages and helpers that take a folder take it.

A folder whose ``config.json`` has a ``model_type`` and no ``registered_name``
is a Hugging Face Transformers checkpoint: its family's converter
(``transformers_checkpoints.converter_for``) reads it. Anything else is a
KerasHub preset (``loader``), a folder without ``config.json`` included (a
tokenizer saved alone).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from tfkit.hub.presets import classes, config_budget, files, handles, loader, transformers_checkpoints


class PresetLoader(os.PathLike):
    """A resolved preset folder, with the readers of its parts; one subclass a kind of preset.

    Args:
        directory: The local folder.
        config: Its parsed `config.json`, or `None` when it has none.

    Example:
        >>> import os, tempfile
        >>> from tfkit.hub.presets.preset_loader import get_preset_loader
        >>> folder = tempfile.mkdtemp()
        >>> type(get_preset_loader(folder)).__name__, os.fspath(get_preset_loader(folder)) == folder
        ('KerasPresetLoader', True)
    """

    is_transformers_checkpoint: ClassVar[bool] = False

    def __init__(self, directory: str, config: Any) -> None:
        self.directory = directory
        self.config = config
        self._json: dict[str, Any] = {} if config is None else {files.CONFIG_FILE: config}

    def __fspath__(self) -> str:
        return self.directory

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.directory!r})"

    def read_json(self, name: str) -> Any:
        """The parsed JSON file `name` of the preset, read and checked once (`files.read_json`).

        Args:
            name: A file name inside the preset.

        Returns:
            The parsed value.

        Raises:
            MissingPresetFileError: If the preset has no such file.
            ValueError: If the name leaves the folder or the file is not valid.
        """
        if name not in self._json:
            self._json[name] = files.read_json(self.directory, name)
        return self._json[name]

    def has_file(self, name: str) -> bool:
        """Whether the preset holds file `name` (`files.has_file`).

        Args:
            name: A file name inside the preset.

        Returns:
            A bool.
        """
        return files.has_file(self.directory, name)

    def backbone_class(self) -> type:
        """The backbone class the preset holds.

        Returns:
            A tfkit.hub backbone class.

        Raises:
            ValueError: If the preset names a class tfkit.hub does not have.
        """
        raise NotImplementedError

    def matching_class(self, cls: type) -> type:
        """`cls` itself, or its subclass for the preset's family (`CausalLM` -> `GPT2CausalLM`).

        Args:
            cls: A tfkit.hub base class with `backbone_cls`.

        Returns:
            A class.

        Raises:
            ValueError: If the family has no class of that kind.
        """
        return classes.matching_subclass(cls, self.backbone_class(), self.directory)

    def load_backbone(self, cls: type, load_weights: bool, **arguments: Any) -> Any:
        """The preset's backbone (a subclass of `cls`), its weights loaded when `load_weights`.

        Args:
            cls: The backbone class asked for.
            load_weights: Whether to read the weights.
            **arguments: Constructor arguments replacing the preset's.

        Returns:
            The backbone.
        """
        raise NotImplementedError

    def load_serialized(self, cls: type, config_file: str, **arguments: Any) -> Any:
        """The object a KerasHub config file of the preset describes (a tokenizer, a preprocessor, an image
        converter), of class `cls`, with its assets.

        Args:
            cls: The class asked for.
            config_file: The config file's name.
            **arguments: Constructor arguments replacing the preset's.

        Returns:
            The object.
        """
        entry = self.read_json(config_file)
        return loader.load_serialized(self.directory, config_file, cls, entry=entry, **arguments)

    def load_tokenizer(self, cls: type, config_file: str, **arguments: Any) -> Any:
        """The preset's tokenizer, of class `cls`, with its vocabulary.

        Args:
            cls: The tokenizer class.
            config_file: The tokenizer's config file in a KerasHub preset.
            **arguments: Constructor arguments replacing the preset's.

        Returns:
            The tokenizer.
        """
        return self.load_serialized(cls, config_file, **arguments)

    def image_converter_config(self) -> dict | None:
        """The arguments of the preset's image converter when the preset describes it otherwise than by
        `image_converter.json` (a checkpoint's `preprocessor_config.json`); `None` here.

        Returns:
            A dict, or `None`.
        """
        return None

    def preprocessor_arguments(self) -> dict[str, Any]:
        """Constructor arguments a preprocessor of this preset takes from files other than `preprocessor.json`
        (a sentence-transformers checkpoint's `sequence_length`); none here.

        Returns:
            A dict.
        """
        return {}


class KerasPresetLoader(PresetLoader):
    """A KerasHub preset folder: configs by registered name, weights in Keras's layout (`presets.loader`).

    Args:
        directory: The local folder.
        config: Its parsed `config.json`, or `None` when it has none.
    """

    def backbone_class(self) -> type:
        """The class `config.json` names (`keras_hub>GPT2Backbone` -> `GPT2Backbone`).

        Returns:
            A tfkit.hub backbone class.
        """
        return loader.config_class(self.read_json(files.CONFIG_FILE), f"preset {self.directory}: {files.CONFIG_FILE}")

    def load_backbone(self, cls: type, load_weights: bool, **arguments: Any) -> Any:
        """The backbone `config.json` describes, its weights from `model.weights.h5` (or its shards).

        Args:
            cls: The backbone class asked for.
            load_weights: Whether to read the weights.
            **arguments: Constructor arguments replacing the preset's.

        Returns:
            The backbone.
        """
        entry = self.read_json(files.CONFIG_FILE)
        return loader.load_backbone(self.directory, cls, load_weights, entry=entry, **arguments)


class TransformersPresetLoader(PresetLoader):
    """A Hugging Face Transformers checkpoint folder, read by its family's converter.

    Args:
        directory: The local folder.
        config: Its parsed `config.json`.

    Raises:
        ValueError: If no converter reads its `model_type`.
    """

    is_transformers_checkpoint = True

    def __init__(self, directory: str, config: Any) -> None:
        super().__init__(directory, config)
        self.converter = transformers_checkpoints.converter_for(config, directory)

    def backbone_class(self) -> type:
        """The converter's backbone class (`model_type` names the family).

        Returns:
            A tfkit.hub backbone class.
        """
        return self.converter.backbone_cls

    def load_backbone(self, cls: type, load_weights: bool, **arguments: Any) -> Any:
        """The backbone the checkpoint's `config.json` describes, its weights from its safetensors files.

        Args:
            cls: The backbone class asked for.
            load_weights: Whether to read the weights.
            **arguments: Constructor arguments replacing the checkpoint's.

        Returns:
            The backbone.
        """
        return transformers_checkpoints.load_backbone(self.directory, self.config, cls, load_weights, **arguments)

    def load_tokenizer(self, cls: type, config_file: str, **arguments: Any) -> Any:
        """The family's tokenizer from the checkpoint's tokenizer files (the `tokenizers` library's, read as data).

        Args:
            cls: The tokenizer class.
            config_file: Unused (a checkpoint has no KerasHub tokenizer config).
            **arguments: Constructor arguments.

        Returns:
            The tokenizer.
        """
        return transformers_checkpoints.load_tokenizer(self.directory, self.config, cls, **arguments)

    def image_converter_config(self) -> dict | None:
        """The image converter's arguments from the checkpoint's `preprocessor_config.json`, held as a preset's.

        Returns:
            A dict, or `None` when the family has no image converter.
        """
        read = getattr(self.converter, "image_converter_config", None)
        config = read(self.directory, self.config) if read is not None else None
        if config is not None:
            config_budget.check_values(config, f"preset {self.directory}: preprocessor_config.json")
        return config

    def preprocessor_arguments(self) -> dict[str, Any]:
        """`sequence_length` from `max_seq_length` in `sentence_bert_config.json`, where the family's converter
        reads it (BERT and XLM-RoBERTa, as KerasHub's converters do), for every preprocessor of the checkpoint.

        Returns:
            A dict.
        """
        name = "sentence_bert_config.json"
        if not getattr(self.converter, "reads_sentence_bert_config", False) or not self.has_file(name):
            return {}
        length = self.read_json(name).get("max_seq_length")
        if length is None:
            return {}
        config_budget.check_values({"sequence_length": length}, f"preset {self.directory}: {name}")
        return {"sequence_length": length}


def is_transformers_config(config: Any) -> bool:
    """Whether a parsed `config.json` is a Transformers checkpoint's (`model_type`, no `registered_name`).

    Args:
        config: The parsed file.

    Returns:
        A bool.

    Example:
        >>> from tfkit.hub.presets.preset_loader import is_transformers_config
        >>> is_transformers_config({"model_type": "gpt2"}), is_transformers_config({"registered_name": "x"})
        (True, False)
    """
    return isinstance(config, dict) and "model_type" in config and "registered_name" not in config


def get_preset_loader(preset: Any) -> PresetLoader:
    """The loader of `preset`: the handle resolved, the kind decided and `config.json` read, once.

    Args:
        preset: A folder, an `hf://` or `kaggle://` handle, or a loader
            (returned as it is).

    Returns:
        A `KerasPresetLoader` or a `TransformersPresetLoader`.

    Raises:
        ValueError: If the handle cannot be resolved, `config.json` is not
            valid, or a checkpoint's `model_type` has no converter.
    """
    if isinstance(preset, PresetLoader):
        return preset
    directory = handles.local_directory(preset)
    config = files.read_json(directory, files.CONFIG_FILE) if files.has_file(directory, files.CONFIG_FILE) else None
    if is_transformers_config(config):
        return TransformersPresetLoader(directory, config)
    return KerasPresetLoader(directory, config)
