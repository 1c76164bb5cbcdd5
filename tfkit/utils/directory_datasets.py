"""``image_`` / ``text_`` / ``audio_dataset_from_directory``: one subfolder per class to a tf.data.Dataset.

    train, val = tfkit.utils.image_dataset_from_directory("PetImages", validation_split=0.2, subset="both",
                                                          seed=1337, image_size=(180, 180), batch_size=64)

Files are listed in sorted order per class (class names sorted alphabetically),
shuffled with ``seed`` before any validation split, as Keras does, so the two
subsets of one seed never overlap.
"""

from __future__ import annotations

import errno
import os
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.utils import dataset_format

_IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


def _index(directory: str, labels: Any, class_names: Sequence[str] | None, extensions: tuple[str, ...],
           follow_links: bool) -> tuple[list[str], list[int] | None, list[str]]:
    if not os.path.exists(directory):    # as Keras (os.walk / tf.io.gfile): a missing folder is FileNotFoundError
        raise FileNotFoundError(errno.ENOENT, f"No such folder: {directory!r} (the dataset's directory)", directory)
    if not os.path.isdir(directory):
        raise NotADirectoryError(errno.ENOTDIR, f"Not a folder: {directory!r} (the dataset's directory)", directory)
    if labels == "inferred":
        found = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if sorted(class_names) != sorted(found) and set(class_names) - set(found):
                raise ValueError(f"class_names {list(class_names)} do not match the subfolders {found} of {directory}")
            found = list(class_names)
        paths, targets = [], []
        for index, name in enumerate(found):
            for root, _, files in sorted(os.walk(os.path.join(directory, name), followlinks=follow_links)):
                for file in sorted(files):
                    if file.lower().endswith(extensions):
                        paths.append(os.path.join(root, file))
                        targets.append(index)
        return paths, targets, found
    paths = sorted(os.path.join(root, f) for root, _, files in os.walk(directory, followlinks=follow_links)
                   for f in files if f.lower().endswith(extensions))
    if labels is None:
        return paths, None, []
    if len(labels) != len(paths):
        raise ValueError(f"labels has {len(labels)} entries but {directory} holds {len(paths)} files")
    return paths, list(labels), []


def _split(paths: list[str], targets: list[int] | None, validation_split: float | None, subset: str | None,
           seed: int | None, shuffle: bool) -> list[tuple[list[str], list[int] | None]]:
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"validation_split must be in (0, 1), got {validation_split!r}")
    if (validation_split is None) != (subset is None):
        raise ValueError("validation_split and subset ('training', 'validation' or 'both') go together")
    if subset is not None and subset not in ("training", "validation", "both"):
        raise ValueError(f"subset must be 'training', 'validation' or 'both', got {subset!r}")
    if validation_split is not None and shuffle and seed is None:
        raise ValueError("With validation_split and shuffle=True, pass a seed so the two subsets do not overlap")
    order = np.arange(len(paths))
    if shuffle or validation_split is not None:
        np.random.default_rng(seed if seed is not None else np.random.randint(2**31)).shuffle(order)
    paths = [paths[i] for i in order]
    targets = None if targets is None else [targets[i] for i in order]
    if validation_split is None:
        return [(paths, targets)]
    cut = len(paths) - int(validation_split * len(paths))
    training = (paths[:cut], None if targets is None else targets[:cut])
    validation = (paths[cut:], None if targets is None else targets[cut:])
    return {"training": [training], "validation": [validation], "both": [training, validation]}[subset]


def _labels(targets: list[int], label_mode: str | None, num_classes: int) -> tf.data.Dataset | None:
    if label_mode is None:
        return None
    values = np.asarray(targets, dtype="int32")
    if label_mode == "int":
        return tf.data.Dataset.from_tensor_slices(values)
    if label_mode == "binary":
        if num_classes != 2:
            raise ValueError(f"label_mode='binary' needs exactly 2 classes, found {num_classes}")
        return tf.data.Dataset.from_tensor_slices(values.astype("float32").reshape(-1, 1))
    if label_mode == "categorical":
        return tf.data.Dataset.from_tensor_slices(np.eye(num_classes, dtype="float32")[values])
    raise ValueError(f"label_mode must be 'int', 'categorical', 'binary' or None, got {label_mode!r}")


def _finish(data: tf.data.Dataset, labels: tf.data.Dataset | None, batch_size: int | None, shuffle: bool,
            seed: int | None, class_names: list[str]) -> tf.data.Dataset:
    dataset = data if labels is None else tf.data.Dataset.zip((data, labels))
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024 if batch_size else 8 * 1024, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    dataset.class_names = class_names
    dataset.file_paths = None
    return dataset


def image_dataset_from_directory(directory: str, labels: Any = "inferred", label_mode: str | None = "int",
                                 class_names: Sequence[str] | None = None, color_mode: str = "rgb",
                                 batch_size: int | None = 32, image_size: tuple[int, int] = (256, 256),
                                 shuffle: bool = True, seed: int | None = None, validation_split: float | None = None,
                                 subset: str | None = None, interpolation: str = "bilinear",
                                 follow_links: bool = False, crop_to_aspect_ratio: bool = False,
                                 pad_to_aspect_ratio: bool = False, data_format: str | None = None,
                                 format: str = "tf", verbose: bool = True) -> Any:  # noqa: A002
    """Images (``float32``, resized to ``image_size``) and labels from one subfolder per class."""
    dataset_format.check_format(format, "image_dataset_from_directory")
    channels = {"grayscale": 1, "rgb": 3, "rgba": 4}.get(color_mode)
    if channels is None:
        raise ValueError(f"color_mode must be 'grayscale', 'rgb' or 'rgba', got {color_mode!r}")
    paths, targets, names = _index(directory, labels, class_names, _IMAGE_EXTENSIONS, follow_links)
    if verbose:
        print(f"Found {len(paths)} files" + (f" belonging to {len(names)} classes." if names else "."))
    height, width = image_size

    def load(path: tf.Tensor) -> tf.Tensor:
        image = tf.io.decode_image(tf.io.read_file(path), channels=channels, expand_animations=False)
        if crop_to_aspect_ratio or pad_to_aspect_ratio:
            image = tf.image.resize_with_crop_or_pad(image, height, width) if pad_to_aspect_ratio else \
                tf.image.resize_with_crop_or_pad(tf.image.resize(image, image_size, method=interpolation,
                                                                 preserve_aspect_ratio=True), height, width)
        image = tf.image.resize(image, image_size, method=interpolation)
        image.set_shape((height, width, channels))
        return tf.transpose(image, (2, 0, 1)) if data_format == "channels_first" else image

    out = []
    for subset_paths, subset_targets in _split(paths, targets, validation_split, subset, seed, shuffle):
        data = tf.data.Dataset.from_tensor_slices(subset_paths).map(load, num_parallel_calls=tf.data.AUTOTUNE)
        label_data = _labels(subset_targets, label_mode, len(names)) if subset_targets is not None else None
        dataset = _finish(data, label_data, batch_size, shuffle, seed, names)
        dataset.file_paths = subset_paths
        out.append(dataset)
    return out if subset == "both" else out[0]


def text_dataset_from_directory(directory: str, labels: Any = "inferred", label_mode: str | None = "int",
                                class_names: Sequence[str] | None = None, batch_size: int | None = 32,
                                max_length: int | None = None, shuffle: bool = True, seed: int | None = None,
                                validation_split: float | None = None, subset: str | None = None,
                                follow_links: bool = False, format: str = "tf",  # noqa: A002
                                verbose: bool = True) -> Any:
    """Texts (``.txt`` files as strings, cut to ``max_length`` characters) and labels from one folder per class."""
    dataset_format.check_format(format, "text_dataset_from_directory")
    paths, targets, names = _index(directory, labels, class_names, (".txt",), follow_links)
    if verbose:
        print(f"Found {len(paths)} files" + (f" belonging to {len(names)} classes." if names else "."))

    def load(path: tf.Tensor) -> tf.Tensor:
        text = tf.io.read_file(path)
        return tf.strings.substr(text, 0, max_length) if max_length is not None else text

    out = []
    for subset_paths, subset_targets in _split(paths, targets, validation_split, subset, seed, shuffle):
        data = tf.data.Dataset.from_tensor_slices(subset_paths).map(load, num_parallel_calls=tf.data.AUTOTUNE)
        label_data = _labels(subset_targets, label_mode, len(names)) if subset_targets is not None else None
        dataset = _finish(data, label_data, batch_size, shuffle, seed, names)
        dataset.file_paths = subset_paths
        out.append(dataset)
    return out if subset == "both" else out[0]


def _decode_wav(path: tf.Tensor, sampling_rate: int | None, length: int | None) -> tf.Tensor:
    audio, rate = tf.audio.decode_wav(tf.io.read_file(path), desired_samples=-1 if length is None else length)
    if sampling_rate is not None:
        import tensorflow_io as tfio   # noqa: PLC0415 - optional heavy dependency, as in Keras

        audio = tfio.audio.resample(input=audio, rate_in=tf.cast(rate, tf.int64), rate_out=sampling_rate)
    return audio


def _check_audio_arguments(labels: Any, label_mode: Any, class_names: Any, ragged: bool,
                           output_sequence_length: Any, sampling_rate: Any) -> None:
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError("The `labels` argument should be a list/tuple of integer labels, of the same size as the "
                         "number of audio files in the target directory, 'inferred' or None. "
                         f"Received: labels={labels}")
    if class_names is not None and labels != "inferred":
        raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. Received: labels={labels}, '
                         f"and class_names={class_names}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError('`label_mode` argument must be one of "int", "categorical", "binary", or None. '
                         f"Received: label_mode={label_mode}")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if sampling_rate is not None:
        if isinstance(sampling_rate, bool) or not isinstance(sampling_rate, int):
            raise ValueError(f"`sampling_rate` should have an integer value. Received: sampling_rate={sampling_rate}")
        if sampling_rate <= 0:
            raise ValueError(f"`sampling_rate` should be higher than 0. Received: sampling_rate={sampling_rate}")
        try:
            import tensorflow_io  # noqa: F401,PLC0415 - optional, only for resampling
        except ImportError:
            raise ImportError("To use the argument `sampling_rate`, you should install tensorflow_io. You can "
                              "install it via `pip install tensorflow-io`.") from None


def audio_dataset_from_directory(directory: str, labels: Any = "inferred", label_mode: str | None = "int",
                                 class_names: Sequence[str] | None = None, batch_size: int | None = 32,
                                 sampling_rate: int | None = None, output_sequence_length: int | None = None,
                                 ragged: bool = False, shuffle: bool = True, seed: int | None = None,
                                 validation_split: float | None = None, subset: str | None = None,
                                 follow_links: bool = False, verbose: bool = True) -> Any:
    """``.wav`` files as ``float32`` ``(batch, samples, channels)`` and labels from one folder per class.

        train, val = audio_dataset_from_directory("speech", validation_split=0.2, subset="both", seed=0,
                                                  output_sequence_length=16000)

    Samples are cut or zero-padded to ``output_sequence_length``; without it each batch is padded
    to its longest file (or, ``ragged=True``, kept ragged). ``sampling_rate`` resamples through
    ``tensorflow_io``, as in Keras.
    """
    _check_audio_arguments(labels, label_mode, class_names, ragged, output_sequence_length, sampling_rate)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    paths, targets, names = _index(directory, labels if labels is not None else None, class_names, (".wav",),
                                   follow_links)
    if label_mode == "binary" and len(names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. '
                         f"Received: class_names={names}")
    if verbose:
        print(f"Found {len(paths)} files" + (f" belonging to {len(names)} classes." if names else "."))

    def load(path: tf.Tensor) -> Any:
        audio = _decode_wav(path, sampling_rate, output_sequence_length)
        return tf.RaggedTensor.from_tensor(audio) if ragged else audio

    out = []
    for subset_paths, subset_targets in _split(paths, targets, validation_split, subset, seed, shuffle):
        if not subset_paths:
            raise ValueError(f"No audio files found in directory {directory}. Allowed format(s): ('.wav',)")
        data = tf.data.Dataset.from_tensor_slices(subset_paths).map(load, num_parallel_calls=tf.data.AUTOTUNE)
        label_data = _labels(subset_targets, label_mode, len(names)) if subset_targets is not None else None
        dataset = data if label_data is None else tf.data.Dataset.zip((data, label_data))
        if batch_size is not None:
            padded = output_sequence_length is None and not ragged
            dataset = dataset.padded_batch(batch_size) if padded else dataset.batch(batch_size)
        dataset = dataset.prefetch(tf.data.AUTOTUNE)
        dataset.class_names, dataset.file_paths = names, subset_paths
        out.append(dataset)
    return out if subset == "both" else out[0]
