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

from tfkit.utils import dataset_format, images

_IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


def _index(
    directory: str, labels: Any, class_names: Sequence[str] | None, extensions: tuple[str, ...], follow_links: bool
) -> tuple[list[str], list[int] | None, list[str]]:
    if not os.path.exists(directory):  # as Keras (os.walk / tf.io.gfile): a missing folder is FileNotFoundError
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
    paths = sorted(
        os.path.join(root, f)
        for root, _, files in os.walk(directory, followlinks=follow_links)
        for f in files
        if f.lower().endswith(extensions)
    )
    if labels is None:
        return paths, None, []
    if len(labels) != len(paths):
        raise ValueError(f"labels has {len(labels)} entries but {directory} holds {len(paths)} files")
    return paths, list(labels), []


def _split(
    paths: list[str],
    targets: list[int] | None,
    validation_split: float | None,
    subset: str | None,
    seed: int | None,
    shuffle: bool,
) -> list[tuple[list[str], list[int] | None]]:
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


def _finish(
    data: tf.data.Dataset,
    labels: tf.data.Dataset | None,
    batch_size: int | None,
    shuffle: bool,
    seed: int | None,
    class_names: list[str],
) -> tf.data.Dataset:
    dataset = data if labels is None else tf.data.Dataset.zip((data, labels))
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024 if batch_size else 8 * 1024, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    dataset.class_names = class_names
    dataset.file_paths = None
    return dataset


def image_dataset_from_directory(
    directory: str,
    labels: Any = "inferred",
    label_mode: str | None = "int",
    class_names: Sequence[str] | None = None,
    color_mode: str = "rgb",
    batch_size: int | None = 32,
    image_size: tuple[int, int] = (256, 256),
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    interpolation: str = "bilinear",
    follow_links: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    data_format: str | None = None,
    format: str = "tf",
    verbose: bool = True,
) -> Any:  # noqa: A002
    """Generates a `tf.data.Dataset` of images and labels from image files in a directory.

    With a subfolder per class (`directory/cats/*.jpg`, `directory/dogs/...`),
    each image is labelled by its subfolder. Supported formats: `.bmp`,
    `.gif` (first frame), `.jpeg`, `.jpg` and `.png`. Files are listed in
    sorted order per class, then shuffled with `seed` before any validation
    split, as Keras does, so the two subsets of one seed never overlap.
    Images are decoded and resized on the fly, as float32.

    Args:
        directory: The folder holding the data. With `labels="inferred"` it
            holds one subfolder per class, each holding the image files (in nested
            folders too); otherwise the files are listed from the whole tree.
        labels: `"inferred"` (labels from the subfolder names), `None` (no
            labels), or a list or tuple of integer labels, one per file in
            sorted path order. Defaults to `"inferred"`.
        label_mode: How labels are encoded: `"int"` (int32 class indices),
            `"categorical"` (float32 one-hot vectors), `"binary"` (float32
            0 or 1 of shape `(1,)`, for exactly 2 classes), or `None` (no
            labels). Defaults to `"int"`.
        class_names: Optional list of class names (subfolder names), only
            with `labels="inferred"`, to fix the order of the classes.
            Defaults to `None` (sorted alphabetically).
        color_mode: `"grayscale"`, `"rgb"` or `"rgba"`: the number of
            channels (1, 3 or 4). Defaults to `"rgb"`.
        batch_size: Number of images per batch, or `None` for an unbatched
            dataset. Defaults to `32`.
        image_size: `(height, width)` to resize the images to. Defaults to
            `(256, 256)`.
        shuffle: Whether to shuffle the data. Defaults to `True`.
        seed: Optional random seed for shuffling and the validation split;
            required with `validation_split` and `shuffle=True`. Defaults to
            `None`.
        validation_split: Optional float in (0, 1), the fraction of the files
            kept for validation (the last ones after shuffling). Defaults to
            `None`.
        subset: With `validation_split`, which subset to return:
            `"training"`, `"validation"` or `"both"` (a tuple). Defaults to
            `None`.
        follow_links: Whether to follow symbolic links to subfolders.
            Defaults to `False`.
        interpolation: The resizing method (`tf.image.resize`'s: `"bilinear"`,
            `"nearest"`, `"bicubic"`, `"area"`, ...). Defaults to
            `"bilinear"`.
        crop_to_aspect_ratio: Whether to keep the aspect ratio by cropping:
            the largest centred window with the aspect ratio of `image_size`
            is cropped out, then resized to `image_size` (as
            `tfkit.preprocessing.image.smart_resize`). Defaults to `False`.
        pad_to_aspect_ratio: Whether to keep the aspect ratio by padding:
            the image is resized to fit inside `image_size`, then padded
            with zeros, centred, to `image_size` (as
            `tf.image.resize_with_pad`). Only one of `crop_to_aspect_ratio`
            and `pad_to_aspect_ratio` may be `True`. Defaults to `False`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to
            `None` (`"channels_last"`).
        format: Must be `"tf"` (Keras's `"grain"` is not offered). Defaults
            to `"tf"`.
        verbose: Whether to print the number of files and classes found.
            Defaults to `True`.

    Returns:
        A `tf.data.Dataset` yielding `(data, labels)` batches (or data only
        without labels), with the attributes `class_names` and `file_paths`;
        with `subset="both"`, a tuple `(training, validation)`.

    Raises:
        FileNotFoundError: If `directory` does not exist.
        ValueError: For an invalid `label_mode`, `validation_split` or
            `subset`, labels that do not match the files, a validation
            split with `shuffle=True` and no `seed`, or both
            `crop_to_aspect_ratio` and `pad_to_aspect_ratio`.

    Example:
        >>> import os
        >>> for name in ("cats", "dogs"):
        ...     os.makedirs(f"images/{name}")
        ...     tfkit.utils.save_img(f"images/{name}/1.png", np.random.rand(12, 12, 3))
        >>> ds = tfkit.utils.image_dataset_from_directory("images", image_size=(8, 8), batch_size=2, shuffle=False)
        Found 2 files belonging to 2 classes.
        >>> ds.class_names
        ['cats', 'dogs']
        >>> images, labels = next(iter(ds))
        >>> images.shape, labels.numpy()
        (TensorShape([2, 8, 8, 3]), array([0, 1], dtype=int32))
    """
    dataset_format.check_format(format, "image_dataset_from_directory")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.")
    channels = {"grayscale": 1, "rgb": 3, "rgba": 4}.get(color_mode)
    if channels is None:
        raise ValueError(f"color_mode must be 'grayscale', 'rgb' or 'rgba', got {color_mode!r}")
    paths, targets, names = _index(directory, labels, class_names, _IMAGE_EXTENSIONS, follow_links)
    if verbose:
        print(f"Found {len(paths)} files" + (f" belonging to {len(names)} classes." if names else "."))
    height, width = image_size

    def load(path: tf.Tensor) -> tf.Tensor:
        image = tf.io.decode_image(tf.io.read_file(path), channels=channels, expand_animations=False)
        if crop_to_aspect_ratio:
            image = images.smart_resize(image, (height, width), interpolation=interpolation)
        elif pad_to_aspect_ratio:
            image = tf.image.resize_with_pad(image, height, width, method=interpolation)
        else:
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


def text_dataset_from_directory(
    directory: str,
    labels: Any = "inferred",
    label_mode: str | None = "int",
    class_names: Sequence[str] | None = None,
    batch_size: int | None = 32,
    max_length: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    follow_links: bool = False,
    format: str = "tf",  # noqa: A002
    verbose: bool = True,
) -> Any:
    """Generates a `tf.data.Dataset` of texts and labels from `.txt` files in a directory.

    With a subfolder per class, each text is labelled by its subfolder.
    Each file becomes one string. Files are listed in sorted order per
    class, then shuffled with `seed` before any validation split.

    Args:
        directory: The folder holding the data. With `labels="inferred"` it
            holds one subfolder per class, each holding `.txt` files (in nested
            folders too); otherwise the files are listed from the whole tree.
        labels: `"inferred"` (labels from the subfolder names), `None` (no
            labels), or a list or tuple of integer labels, one per file in
            sorted path order. Defaults to `"inferred"`.
        label_mode: How labels are encoded: `"int"` (int32 class indices),
            `"categorical"` (float32 one-hot vectors), `"binary"` (float32
            0 or 1 of shape `(1,)`, for exactly 2 classes), or `None` (no
            labels). Defaults to `"int"`.
        class_names: Optional list of class names (subfolder names), only
            with `labels="inferred"`, to fix the order of the classes.
            Defaults to `None` (sorted alphabetically).
        batch_size: Number of texts per batch, or `None` for an unbatched
            dataset. Defaults to `32`.
        max_length: Optional maximum length of a text: longer texts are cut
            to their first `max_length` bytes. Defaults to `None`.
        shuffle: Whether to shuffle the data. Defaults to `True`.
        seed: Optional random seed for shuffling and the validation split;
            required with `validation_split` and `shuffle=True`. Defaults to
            `None`.
        validation_split: Optional float in (0, 1), the fraction of the files
            kept for validation (the last ones after shuffling). Defaults to
            `None`.
        subset: With `validation_split`, which subset to return:
            `"training"`, `"validation"` or `"both"` (a tuple). Defaults to
            `None`.
        follow_links: Whether to follow symbolic links to subfolders.
            Defaults to `False`.
        format: Must be `"tf"` (Keras's `"grain"` is not offered). Defaults
            to `"tf"`.
        verbose: Whether to print the number of files and classes found.
            Defaults to `True`.

    Returns:
        A `tf.data.Dataset` yielding `(data, labels)` batches (or data only
        without labels), with the attributes `class_names` and `file_paths`;
        with `subset="both"`, a tuple `(training, validation)`.

    Raises:
        FileNotFoundError: If `directory` does not exist.
        ValueError: For an invalid `label_mode`, `validation_split` or
            `subset`, labels that do not match the files, or a validation
            split with `shuffle=True` and no `seed`.

    Example:
        >>> import os, pathlib
        >>> for name, text in (("neg", "bad movie"), ("pos", "great movie")):
        ...     os.makedirs(f"reviews/{name}")
        ...     _ = pathlib.Path(f"reviews/{name}/1.txt").write_text(text)
        >>> ds = tfkit.utils.text_dataset_from_directory("reviews", batch_size=2, shuffle=False, max_length=5)
        Found 2 files belonging to 2 classes.
        >>> texts, labels = next(iter(ds))
        >>> texts.numpy(), labels.numpy()
        (array([b'bad m', b'great'], dtype=object), array([0, 1], dtype=int32))
    """
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
        import tensorflow_io as tfio  # noqa: PLC0415 - optional heavy dependency, as in Keras

        audio = tfio.audio.resample(input=audio, rate_in=tf.cast(rate, tf.int64), rate_out=sampling_rate)
    return audio


def _check_audio_arguments(
    labels: Any, label_mode: Any, class_names: Any, ragged: bool, output_sequence_length: Any, sampling_rate: Any
) -> None:
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError(
            "The `labels` argument should be a list/tuple of integer labels, of the same size as the "
            "number of audio files in the target directory, 'inferred' or None. "
            f"Received: labels={labels}"
        )
    if class_names is not None and labels != "inferred":
        raise ValueError(
            f'You can only pass `class_names` if `labels="inferred"`. Received: labels={labels}, '
            f"and class_names={class_names}"
        )
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(
            '`label_mode` argument must be one of "int", "categorical", "binary", or None. '
            f"Received: label_mode={label_mode}"
        )
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
            raise ImportError(
                "To use the argument `sampling_rate`, you should install tensorflow_io. You can "
                "install it via `pip install tensorflow-io`."
            ) from None


def audio_dataset_from_directory(
    directory: str,
    labels: Any = "inferred",
    label_mode: str | None = "int",
    class_names: Sequence[str] | None = None,
    batch_size: int | None = 32,
    sampling_rate: int | None = None,
    output_sequence_length: int | None = None,
    ragged: bool = False,
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    follow_links: bool = False,
    verbose: bool = True,
) -> Any:
    """Generates a `tf.data.Dataset` of audio clips and labels from `.wav` files in a directory.

    With a subfolder per class, each clip is labelled by its subfolder.
    Clips are float32 `(samples, channels)`. They are cut or zero-padded to
    `output_sequence_length`; without it each batch is padded to its longest
    clip (or, with `ragged=True`, kept ragged). Files are listed in sorted
    order per class, then shuffled with `seed` before any validation split.

    Args:
        directory: The folder holding the data. With `labels="inferred"` it
            holds one subfolder per class, each holding `.wav` files (in nested
            folders too); otherwise the files are listed from the whole tree.
        labels: `"inferred"` (labels from the subfolder names), `None` (no
            labels), or a list or tuple of integer labels, one per file in
            sorted path order. Defaults to `"inferred"`.
        label_mode: How labels are encoded: `"int"` (int32 class indices),
            `"categorical"` (float32 one-hot vectors), `"binary"` (float32
            0 or 1 of shape `(1,)`, for exactly 2 classes), or `None` (no
            labels). Defaults to `"int"`.
        class_names: Optional list of class names (subfolder names), only
            with `labels="inferred"`, to fix the order of the classes.
            Defaults to `None` (sorted alphabetically).
        batch_size: Number of clips per batch, or `None` for an unbatched
            dataset. Defaults to `32`.
        sampling_rate: Optional sampling rate (a positive int) to resample
            the clips to, through the optional `tensorflow_io` package, as in
            Keras. Defaults to `None` (as stored).
        output_sequence_length: Optional number of samples every clip is cut
            or zero-padded to. Defaults to `None`.
        ragged: Whether to return ragged tensors for clips of different
            lengths (not with `output_sequence_length`). Defaults to `False`.
        shuffle: Whether to shuffle the data. Defaults to `True`.
        seed: Optional random seed for shuffling and the validation split;
            required with `validation_split` and `shuffle=True`. Defaults to
            `None`.
        validation_split: Optional float in (0, 1), the fraction of the files
            kept for validation (the last ones after shuffling). Defaults to
            `None`.
        subset: With `validation_split`, which subset to return:
            `"training"`, `"validation"` or `"both"` (a tuple). Defaults to
            `None`.
        follow_links: Whether to follow symbolic links to subfolders.
            Defaults to `False`.
        verbose: Whether to print the number of files and classes found.
            Defaults to `True`.

    Returns:
        A `tf.data.Dataset` yielding `(data, labels)` batches (or data only
        without labels), with the attributes `class_names` and `file_paths`;
        with `subset="both"`, a tuple `(training, validation)`.

    Raises:
        FileNotFoundError: If `directory` does not exist.
        ValueError: For invalid arguments (as Keras checks them), labels
            that do not match the files, or a folder without `.wav` files.
        ImportError: If `sampling_rate` is given and `tensorflow_io` is not
            installed.

    Example:
        >>> import os
        >>> for name in ("no", "yes"):
        ...     os.makedirs(f"speech/{name}")
        ...     wav = tf.audio.encode_wav(tf.zeros((100, 1)), 16000)
        ...     tf.io.write_file(f"speech/{name}/1.wav", wav)
        >>> ds = tfkit.utils.audio_dataset_from_directory(
        ...     "speech", batch_size=2, shuffle=False, output_sequence_length=50)
        Found 2 files belonging to 2 classes.
        >>> clips, labels = next(iter(ds))
        >>> clips.shape, labels.numpy()
        (TensorShape([2, 50, 1]), array([0, 1], dtype=int32))
    """
    _check_audio_arguments(labels, label_mode, class_names, ragged, output_sequence_length, sampling_rate)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    paths, targets, names = _index(
        directory, labels if labels is not None else None, class_names, (".wav",), follow_links
    )
    if label_mode == "binary" and len(names) != 2:
        raise ValueError(
            f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: class_names={names}'
        )
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
