"""``Tokenizer``: the base of KerasHub's tokenizers on tfkit: strings to tokens (``tokenize``) and back.

    tokenizer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=["[UNK]", "the", "fox"])
    tokenizer("the fox")                       # tokenize(): [1, 2]
    tokenizer.detokenize([1, 2])               # 'the fox'

A tokenizer is a ``PreprocessingLayer`` (``tfkit.hub.layers``: no weights,
TensorFlow ops only) whose ``call`` is ``tokenize``. Its vocabulary is not in its config (``get_config`` holds
``None`` there, as KerasHub's): it travels as asset files (``save_assets`` /
``load_assets``), under ``assets/tokenizer/`` in a preset.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.presets import files, saver
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
from tfkit.hub.tokenizers import tensor_io
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Tokenizer(PreprocessingLayer):
    """A base class for tokenizer layers.

    Tokenizers turn strings into sequences of tokens (`tokenize`, also what
    calling the layer does) and, where that is possible, back
    (`detokenize`). A subclass implements `tokenize`, and `detokenize`,
    `get_vocabulary`, `vocabulary_size`, `token_to_id` and `id_to_token`
    where they apply. Tokenizers compute with TensorFlow ops, so they run in
    `tf.data.Dataset.map` and inside an exported SavedModel; called eagerly
    by the user, they return ragged and string results as Python lists, as
    KerasHub 0.32 does (dense numeric results are tensors).

    Special tokens a subclass declares with `_add_special_token` (`"[CLS]"`
    as `cls_token`) are listed by `special_tokens`, their ids by
    `special_token_ids`, and each is an attribute (`cls_token`,
    `cls_token_id`).

    Args:
        config_file: The preset file holding this tokenizer's config.
            Defaults to `"tokenizer.json"`.
        **kwargs: Layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> class WhitespaceSplitter(keras_hub.tokenizers.Tokenizer):
        ...     def tokenize(self, inputs):
        ...         return tf.strings.split(inputs)
        ...     def detokenize(self, inputs):
        ...         return tf.strings.reduce_join(inputs, separator=" ", axis=-1)
        >>> splitter = WhitespaceSplitter()
        >>> splitter("This is a test")
        ['This', 'is', 'a', 'test']
        >>> splitter.detokenize(tf.constant(["This", "is", "a", "test"])).numpy()
        b'This is a test'
    """

    backbone_cls: Any = None
    _tfkit_runs_on_host = True  # lookup tables and text kernels: eager inputs are not split over a mesh

    def __init__(self, config_file: str = files.TOKENIZER_CONFIG_FILE, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config_file = config_file
        self.file_assets: list[str] | None = None

    def tokenize(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Transforms strings into tokens.

        Args:
            inputs: A string, a list of strings, or a string tensor.
            *args: Arguments of a subclass's `tokenize`.
            **kwargs: Keyword arguments of a subclass's `tokenize`.

        Returns:
            The tokens.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement tokenize(); every tokenizer must")

    def detokenize(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Transforms tokens back into strings.

        Args:
            inputs: Token ids: an int, a list (of lists) of ints, or an
                integer tensor, dense or ragged.
            *args: Arguments of a subclass's `detokenize`.
            **kwargs: Keyword arguments of a subclass's `detokenize`.

        Returns:
            The strings.

        Raises:
            NotImplementedError: In the base class, or where tokenizing
                cannot be reversed.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement detokenize()")

    # ------------------------------------------------------------ the vocabulary
    # A subclass with a vocabulary says how it stores it (`_vocabulary_tables`) and what to
    # call to set one (`vocabulary_setter`); the accessors and their errors are the same for all.

    vocabulary_noun: ClassVar[str] = "vocabulary"
    vocabulary_setter: ClassVar[str] = "pass `vocabulary` when creating it"

    def _vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]] | None:
        """The tokens in the vocabulary's order, the token of each id (a list or a dict), the id of each token;
        `None` while none is set (a hook)."""
        raise NotImplementedError(f"{type(self).__name__} has no vocabulary accessors")

    def _unknown_token_id(self) -> int | None:
        """The id `token_to_id` gives a string outside the vocabulary, or `None` to refuse it (a hook)."""
        return None

    def _checked_vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]]:
        tables = self._vocabulary_tables()
        if tables is None:
            raise ValueError(f"{self._who()} has no {self.vocabulary_noun}; {self.vocabulary_setter}")
        return tables

    def _check_vocabulary(self) -> None:
        self._checked_vocabulary_tables()

    def get_vocabulary(self) -> list[str]:
        """The vocabulary: the token strings, in the vocabulary's order (by id).

        Returns:
            A list of strings.

        Raises:
            ValueError: If the tokenizer has no vocabulary yet.
            NotImplementedError: For a tokenizer without one (the base class).
        """
        return list(self._checked_vocabulary_tables()[0])

    def vocabulary_size(self) -> int:
        """The number of tokens in the vocabulary.

        Returns:
            An int.

        Raises:
            ValueError: If the tokenizer has no vocabulary yet.
            NotImplementedError: For a tokenizer without one (the base class).
        """
        return len(self._checked_vocabulary_tables()[0])

    def id_to_token(self, id: int) -> str:
        """The token string of an integer id.

        Args:
            id: The token id.

        Returns:
            The token, a string.

        Raises:
            ValueError: If the tokenizer has no vocabulary yet, or no token
                has id `id`.
            NotImplementedError: For a tokenizer without one (the base class).
        """
        by_id = self._checked_vocabulary_tables()[1]
        if not (id in by_id if isinstance(by_id, dict) else isinstance(id, int) and 0 <= id < len(by_id)):
            raise ValueError(f"{self._who()}: id {id} is not in the {self.vocabulary_noun} (0 to {len(by_id) - 1})")
        return by_id[id]

    def token_to_id(self, token: str) -> int:
        """The integer id of a token string.

        Args:
            token: The token: a string, bytes, or a scalar string tensor.

        Returns:
            The id, an int (the unknown token's, for a tokenizer that has
            one, when `token` is not in the vocabulary).

        Raises:
            ValueError: If the tokenizer has no vocabulary yet, or `token` is
                not in it and the tokenizer has no unknown token.
            NotImplementedError: For a tokenizer without one (the base class).
        """
        ids = self._checked_vocabulary_tables()[2]
        if hasattr(token, "numpy"):
            token = token.numpy()
        if isinstance(token, bytes):
            token = token.decode("utf-8")
        if token not in ids:
            unknown = self._unknown_token_id()
            if unknown is None:
                raise ValueError(f"{self._who()}: token {token!r} is not in the {self.vocabulary_noun}")
            return unknown
        return ids[token]

    # ------------------------------------------------------------ special tokens

    @property
    def special_tokens(self) -> list[str]:
        """The special tokens a subclass declared (`"[CLS]"`, `"<|endoftext|>"`), each once."""
        names = getattr(self, "_special_token_attrs", None) or []
        return list(dict.fromkeys(getattr(self, name) for name in names))

    @property
    def special_token_ids(self) -> list[int]:
        """The ids of `special_tokens`, each once.

        Raises:
            ValueError: If no vocabulary is set yet.
        """
        names = getattr(self, "_special_token_attrs", None) or []
        ids = list(dict.fromkeys(getattr(self, f"{name}_id") for name in names))
        if None in ids:
            raise ValueError(
                f"{type(self).__name__} '{self.name}': special_token_ids needs a vocabulary; set one first"
            )
        return ids

    def _add_special_token(self, token: str, name: str) -> None:
        """Declares special token `token` as attribute `name` (and its id as `<name>_id`, `None` before a
        vocabulary). Subclasses call it in `__init__`, before or after `super().__init__`."""
        if "_special_token_attrs" not in self.__dict__:
            object.__setattr__(self, "_special_token_attrs", [])  # a plain list: no tf.Module tracking wrapper
        self._special_token_attrs.append(name)
        object.__setattr__(self, name, token)
        try:
            token_id = self.token_to_id(token)
        except (ValueError, AttributeError, KeyError):
            token_id = None
        object.__setattr__(self, f"{name}_id", token_id)

    def _update_special_token_ids(self) -> None:
        """Looks the special tokens up in the vocabulary just set; ``ValueError`` naming one that is missing."""
        names = getattr(self, "_special_token_attrs", None)
        if not names:
            return
        vocabulary = set(self.get_vocabulary())
        for name in dict.fromkeys(names):
            token = getattr(self, name)
            if token not in vocabulary:
                raise ValueError(
                    f"{type(self).__name__} '{self.name}': special token {token!r} ({name}) is not in the "
                    f"vocabulary. Add {token!r} to the vocabulary when creating the tokenizer."
                )
        for name in names:
            object.__setattr__(self, f"{name}_id", self.token_to_id(getattr(self, name)))

    # -------------------------------------------------------------------- layer

    def call(self, inputs: Any, *args: Any, training: Any = None, **kwargs: Any) -> Any:
        """Tokenizes `inputs` (what calling the layer does).

        Args:
            inputs: A string, a list of strings, or a string tensor.
            *args: Passed on to `tokenize`.
            training: Unused; tokenizing is the same in training.
            **kwargs: Passed on to `tokenize`.

        Returns:
            The tokens, as `tokenize` returns them.
        """
        return self.tokenize(inputs, *args, **kwargs)

    def get_config(self) -> dict[str, Any]:
        """The layer's config (the base keys and `config_file`); subclasses add their arguments.

        Returns:
            A dict, serializable to JSON.
        """
        return {**super().get_config(), "config_file": self.config_file}

    def _who(self) -> str:
        return f"{type(self).__name__} '{self.name}'"

    # ------------------------------------------------------------------ presets

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, config_file: str = files.TOKENIZER_CONFIG_FILE, **kwargs: Any) -> "Tokenizer":
        """Instantiates a tokenizer from a preset, with its vocabulary loaded from the preset's assets.

        Called on `Tokenizer`, it builds the class the preset names
        (`GPT2Tokenizer` for a GPT-2 preset); called on a subclass, the preset
        must hold one. A preset folder without `config.json` (a tokenizer
        saved alone with `save_to_preset`) is read by its `tokenizer.json`.

        Args:
            preset: A preset folder, or an `hf://` / `kaggle://` handle.
            config_file: The preset file holding the tokenizer's config.
                Defaults to `"tokenizer.json"`.
            **kwargs: Constructor arguments that replace the preset's, such as
                `sequence_length`.

        Returns:
            The tokenizer.

        Raises:
            ValueError: If the preset holds no tokenizer of this class, or its
                files are not valid.
        """
        source = get_preset_loader(preset)
        if source.has_file(files.CONFIG_FILE):  # a tokenizer saved alone has no config.json, nor a family
            cls = source.matching_class(cls)
        # a Transformers checkpoint's tokenizer.json, if any, is the `tokenizers` library's: its loader reads it
        return source.load_tokenizer(cls, config_file, **kwargs)

    def save_to_preset(self, preset_dir: str) -> None:
        """Saves the tokenizer's config and its assets (vocabulary files) to a preset folder, as KerasHub does.

        Args:
            preset_dir: The folder to write (created if missing).
        """
        saver.save_tokenizer(self, preset_dir)

    def load_preset_assets(self, preset: str) -> None:
        """Loads the vocabulary files from preset folder `preset` (`assets/tokenizer/...`).

        Args:
            preset: The preset folder.

        Raises:
            FileNotFoundError: If the preset lacks one of the tokenizer's
                asset files.
        """
        subdir = self.config_file.split(".")[0]
        paths = [files.preset_file(preset, f"{files.ASSET_DIR}/{subdir}/{name}") for name in self.file_assets or []]
        if paths:
            self.load_assets(os.path.dirname(paths[0]))

    def save_assets(self, dir_path: str) -> None:
        """Writes the tokenizer's vocabulary files into folder `dir_path`; nothing in the base class.

        Args:
            dir_path: An existing folder.
        """

    def load_assets(self, dir_path: str) -> None:
        """Reads the vocabulary files `save_assets` wrote from folder `dir_path`; nothing in the base class.

        Args:
            dir_path: A folder holding the asset files.
        """

    def _returned(self, value: Any) -> Any:
        return tensor_io.returned(value)
