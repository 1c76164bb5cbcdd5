"""Run keras-io's KerasHub guides offline, with Keras 3 + KerasHub and with tfkit, on tiny local presets.

    python tools/keras_io_hub_guides.py --sources /work/scratch/keras_io            # every guide found, both ways
    python tools/keras_io_hub_guides.py --sources DIR --only upload --modes tfkit   # one guide, tfkit only
    python tools/keras_io_hub_guides.py --sources DIR --json build/keras_io_hub_guides.json

keras-io's sources are not part of this repository: ``--sources`` is a folder
holding them at their keras-io paths (``guides/keras_hub/upload.py``, ...). Each
guide runs in its own subprocess (a time limit, ``TF_ENABLE_ONEDNN_OPTS=0``,
``KERAS_BACKEND=tensorflow``) twice: unchanged against Keras + KerasHub, and with
its imports rewritten to tfkit (``import keras`` -> ``import tfkit as keras``,
``import keras_hub`` -> ``import tfkit.hub as keras_hub``, ``from keras.x import``
-> ``from tfkit.x import``). Both runs get the same offline substitutions, declared
per guide in ``GUIDES`` (one :class:`Sub` per change, each with its reason):

* preset handles (``"gpt2_base_en"``, ``"kaggle://..."``) become the folders of
  tiny random presets that KerasHub itself saves with the makers of
  ``tests/hub_presets*.py`` (built once, with Keras, under ``--work``);
* downloads become tiny local stand-ins of the same shapes and types, installed by
  a prelude put before the guide's code (:func:`install_offline`):
  ``keras.utils.get_file`` gets a ``file://`` stand-in for each known URL (the real
  ``get_file`` of Keras or tfkit still copies and extracts it),
  ``tensorflow_datasets`` is a small fake module, ``kagglehub`` and
  ``huggingface_hub`` log in and upload nowhere;
* epochs, steps and sequence lengths are capped so each guide runs in seconds.

A substitution that no longer matches the guide's text fails the run ("harness"),
so a changed guide never silently runs something else.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from keras_io_sweep import classify, rewrite_source  # noqa: E402

DEFAULT_WORK = Path(tempfile.gettempdir()) / "keras_io_hub_guides"
MODES = ("keras", "tfkit")
PYTHON = sys.executable


@dataclasses.dataclass(frozen=True)
class Sub:
    """One textual substitution of a guide's source, applied in both modes.

    Args:
        old: The text (or, with ``regex``, the pattern) to replace; it must occur.
        new: What replaces it.
        why: The reason, shown in the docs table.
        regex: Whether ``old`` is a regular expression (``re.MULTILINE``).
    """

    old: str
    new: str
    why: str
    regex: bool = False


@dataclasses.dataclass(frozen=True)
class Guide:
    """A keras-io guide and what it needs to run offline.

    Args:
        path: Its path inside keras-io (and inside ``--sources``).
        presets: Preset handle -> maker key (of ``PRESET_MAKERS``); each quoted
            handle in the source becomes the local folder.
        data: Stand-in keys the prelude installs (of ``STAND_INS``).
        subs: Further substitutions (caps, offline stand-ins), each with its reason.
    """

    path: str
    presets: dict = dataclasses.field(default_factory=dict)
    data: tuple = ()
    subs: tuple = ()


EPOCHS_1 = "epochs capped at 1 (tiny stand-in data)"
NO_GPU = "no GPU here: two logical CPUs stand in for the guide's split GPU"
EXTRACTED = "Keras 3's get_file(extract=True) extracts into a folder of its own (the guide names Keras 2's)"

GUIDES: dict[str, Guide] = {
    "getting_started": Guide(
        "guides/keras_hub/getting_started.py",
        presets={"bert_tiny_en_uncased_sst2": "bert_2", "bert_tiny_en_uncased": "bert_2"},
        data=("imdb_folders",),
        subs=(
            Sub("sequence_length=512,", "sequence_length=32,", "the tiny BERT has 32 positions (preprocessor, packer)"),
            Sub("sequence_length=256,", "sequence_length=32,", "the tiny BERT has 32 positions"),
            Sub("mask_selection_length=64", "mask_selection_length=8", "sequences of 32 tokens"),
            Sub(r"epochs=\d+", "epochs=1", EPOCHS_1, regex=True),
        ),
    ),
    "classification": Guide(
        "guides/keras_hub/classification_with_keras_hub.py",
        presets={"resnet_v2_50_imagenet": "resnet"},
        data=("tfds", "get_file", "imagenet_index"),
        subs=(Sub("total_images = 9000", "total_images = 96", "the stand-in Caltech 101 is tiny"),),
    ),
    "transformer_pretraining": Guide(
        "guides/keras_hub/transformer_pretraining.py",
        data=("get_file",),
        subs=(
            Sub(
                '"~/.keras/datasets/wikitext-103-raw/"',
                '"~/.keras/datasets/wikitext-103-raw-v1.zip/wikitext-103-raw/"',
                EXTRACTED,
            ),
            Sub('"~/.keras/datasets/SST-2/"', '"~/.keras/datasets/SST-2.zip/SST-2/"', EXTRACTED),
            Sub(
                'max_tokens=4000, output_mode="multi_hot"',
                'max_tokens=4000, output_mode="multi_hot", pad_to_max_tokens=True',
                "the stand-in SST-2 has fewer than 4000 words; the real one fills the 4000 outputs the model expects",
            ),
        ),
    ),
    "upload": Guide(
        "guides/keras_hub/upload.py",
        presets={"gpt2_base_en": "gpt2", "bert_tiny_en_uncased": "bert_2"},
        data=("tfds", "kagglehub", "huggingface_hub"),
        subs=(Sub("imdb_train.take(100)", "imdb_train.take(2)", "two batches are enough"),),
    ),
    "finetuning_on_glue": Guide(
        "guides/keras_hub/finetuning_on_glue_with_keras_hub.py",
        presets={"bert_tiny_en_uncased": "bert_2"},
        data=("tfds",),
        subs=(
            Sub(
                "test_ds = test_ds.batch(BATCH_SIZE).prefetch(tf.data.AUTOTUNE)\n",
                "",
                "the guide's own bug: `test_ds` is never defined (NameError with Keras too) and never used",
            ),
        ),
    ),
    "hugging_face_integration": Guide(
        "guides/keras_hub/hugging_face_keras_integration.py",
        presets={"hf://google/gemma-2b": "gemma", "hf://NousResearch/Hermes-2-Pro-Llama-3-8B": "llama3"},
        data=("huggingface_hub",),
    ),
    "function_calling": Guide(
        "guides/keras_hub/function_calling_with_keras_hub.py",
        presets={"gemma3_instruct_4b": "gemma3", "kaggle://keras/mistral/keras/mistral_0.3_instruct_7b_en": "mistral"},
        data=("kagglehub",),
        subs=(
            Sub("sequence_length=8192", "sequence_length=2048", "a tiny model on a CPU: 2048 tokens hold the prompt"),
            Sub("max_length=8192", "max_length=2048", "a tiny model on a CPU: 2048 tokens hold the prompt"),
            Sub(
                "while not flight_booked:",
                "for _turn in range(1):",
                "a random tiny model never books the flight: the agent loop runs one turn",
            ),
        ),
    ),
    "semantic_similarity": Guide(
        "examples/nlp/semantic_similarity_with_keras_hub.py",
        presets={"bert_tiny_en_uncased": "bert_2", "roberta_base_en": "roberta"},
        data=("tfds",),
    ),
    "fnet_classification": Guide("examples/nlp/fnet_classification_with_keras_hub.py", data=("imdb_folders",)),
    "data_parallel_training": Guide(
        "examples/nlp/data_parallel_training_with_keras_hub.py",
        presets={"bert_tiny_en_uncased": "bert_masked_lm"},
        data=("get_file",),
        subs=(
            Sub('list_physical_devices("GPU")', 'list_physical_devices("CPU")', NO_GPU),
            Sub('list_logical_devices("GPU")', 'list_logical_devices("CPU")', NO_GPU),
            Sub("LogicalDeviceConfiguration(memory_limit=15360 // 2)", "LogicalDeviceConfiguration()", NO_GPU),
            Sub("MirroredStrategy()", 'MirroredStrategy(["CPU:0", "CPU:1"])', NO_GPU),
            Sub('"~/.keras/datasets/wikitext-2/"', '"~/.keras/datasets/wikitext-2-v1.zip/wikitext-2/"', EXTRACTED),
        ),
    ),
    "gpt2_lora": Guide(
        "examples/nlp/parameter_efficient_finetuning_of_gpt2_with_lora.py",
        presets={"gpt2_base_en": "gpt2"},
        data=("tfds",),
        subs=(
            Sub(
                'tf.config.experimental.get_memory_info("GPU:0")',
                '{"peak": 0}',
                "no GPU here, and TensorFlow keeps no allocator statistics for the CPU",
            ),
            Sub('tf.config.experimental.reset_memory_stats("GPU:0")', "None", "no GPU here"),
            Sub("MAX_SEQUENCE_LENGTH = 128", "MAX_SEQUENCE_LENGTH = 32", "the tiny GPT-2 has 64 positions"),
            Sub("sequence_length=128,", "sequence_length=32,", "the tiny GPT-2 has 64 positions"),
            Sub("MAX_GENERATION_LENGTH = 200", "MAX_GENERATION_LENGTH = 48", "the tiny GPT-2 has 64 positions"),
        ),
    ),
    "neural_machine_translation": Guide(
        "examples/nlp/neural_machine_translation_with_keras_hub.py",
        data=("get_file",),
        subs=(
            Sub(
                'pathlib.Path(text_file).parent / "spa-eng"',
                'pathlib.Path(text_file) / "spa-eng"',
                EXTRACTED + "; get_file returns that folder",
            ),
            Sub(
                "[encoder_input_tokens.to_tensor(), pads]",
                "[encoder_input_tokens, pads]",
                "the guide's own TensorFlow-backend bug: ops.convert_to_tensor already made the ragged ids dense"
                " (AttributeError with Keras too)",
            ),
        ),
    ),
    "gemma_lora_qlora": Guide(
        "examples/keras_recipes/parameter_efficient_finetuning_of_gemma_with_lora_and_qlora.py",
        presets={"gemma_1.1_instruct_2b_en": "gemma"},
        data=("tfds",),
    ),
    "text_generation_gpt": Guide(
        "examples/generative/text_generation_gpt.py",
        data=("get_file",),
        subs=(
            Sub('"~/.keras/datasets/simplebooks/"', '"~/.keras/datasets/simplebooks.zip/simplebooks/"', EXTRACTED),
            Sub(
                "tokenizer = keras_hub.tokenizers.WordPieceTokenizer(\n",
                'vocab += [f"[unused{i}]" for i in range(VOCAB_SIZE - len(vocab))]\n'
                "tokenizer = keras_hub.tokenizers.WordPieceTokenizer(\n",
                "the stand-in corpus yields fewer word pieces than VOCAB_SIZE; padded to it, as the real corpus"
                " fills it (else sampled ids fall outside the vocabulary)",
            ),
        ),
    ),
}

# --------------------------------------------------------------------------- presets

PRESET_MAKERS: dict[str, str] = {
    # key -> Python run (with Keras + KerasHub, tests/ on sys.path) that saves a preset in `folder`.
    "gpt2": "from hub_presets import gpt2_preset; gpt2_preset(folder)",
    "bert_2": (
        "from hub_presets_bert import bert_presets; import shutil; "
        "made = bert_presets(folder + '_parts', num_classes=2, sequence_length=32)[0]; "
        "shutil.copytree(made, folder)"
    ),
    "bert_masked_lm": (
        "from hub_presets_bert import bert_presets; import shutil; "
        "made = bert_presets(folder + '_parts', sequence_length=32)[1]; shutil.copytree(made, folder)"
    ),
    # Families the test makers do not cover: made here the same way (KerasHub saves a random tiny model).
    "roberta": (
        "from hub_presets import gpt2_vocabulary, keras, keras_hub; keras.utils.set_random_seed(0); "
        "vocabulary, merges = gpt2_vocabulary(); "
        "[vocabulary.setdefault(t, len(vocabulary)) for t in ('<s>', '<pad>', '</s>', '<mask>')]; "
        "tokenizer = keras_hub.models.RobertaTokenizer(vocabulary=vocabulary, merges=merges); "
        "backbone = keras_hub.models.RobertaBackbone(vocabulary_size=len(vocabulary), num_layers=2, num_heads=2, "
        "hidden_dim=16, intermediate_dim=32, max_sequence_length=32); "
        "preprocessor = keras_hub.models.RobertaTextClassifierPreprocessor(tokenizer, sequence_length=32); "
        "keras_hub.models.RobertaTextClassifier(backbone, num_classes=2, preprocessor=preprocessor)"
        ".save_to_preset(folder)"
    ),
    "resnet": (
        "from hub_presets import keras, keras_hub; keras.utils.set_random_seed(0); "
        "backbone = keras_hub.models.ResNetBackbone(input_conv_filters=[64], input_conv_kernel_sizes=[3], "
        "stackwise_num_filters=[64, 64], stackwise_num_blocks=[1, 1], stackwise_num_strides=[1, 2], "
        "block_type='basic_block', use_pre_activation=True); "
        "converter = keras_hub.layers.ResNetImageConverter(image_size=(224, 224), scale=1 / 255.0); "
        "preprocessor = keras_hub.models.ResNetImageClassifierPreprocessor(image_converter=converter); "
        "keras_hub.models.ResNetImageClassifier(backbone, num_classes=1000, preprocessor=preprocessor)"
        ".save_to_preset(folder)"
    ),
    "gemma": "from hub_presets_gemma import gemma_preset; gemma_preset(folder)",
    "gemma3": "from hub_presets_gemma import gemma3_preset; gemma3_preset(folder)",
    "llama3": "from hub_presets_llama3 import llama3_preset; llama3_preset(folder)",
    "mistral": "from hub_presets_mistral import mistral_preset; mistral_preset(folder)",
    "qwen": "from hub_presets_qwen import qwen_preset; qwen_preset(folder)",
    "vit": "from hub_presets_vit import vit_preset; vit_preset(folder)",
}


def environment(home: Path) -> dict:
    """The environment of every subprocess: TensorFlow backend, oneDNN off, quiet logs, no display."""
    env = dict(os.environ)
    env.update(
        KERAS_BACKEND="tensorflow",
        TF_ENABLE_ONEDNN_OPTS="0",
        TF_CPP_MIN_LOG_LEVEL="3",
        MPLBACKEND="Agg",
        HOME=str(home),
        KERAS_HOME=str(home / ".keras"),
        HF_HUB_OFFLINE="1",
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
    )
    return env


def build_preset(key: str, work: Path) -> Path:
    """Saves the tiny preset ``key`` with KerasHub under ``work/presets`` (once) and returns its folder.

    Raises:
        ValueError: ``key`` is not in ``PRESET_MAKERS``.
        RuntimeError: KerasHub could not save it (the subprocess's last lines).
    """
    if key not in PRESET_MAKERS:
        raise ValueError(f"build_preset: key must be one of {sorted(PRESET_MAKERS)}, got {key!r}")
    folder = work / "presets" / key
    if (folder / "config.json").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); folder = {str(folder)!r}; " + PRESET_MAKERS[key]
    done = subprocess.run(
        [PYTHON, "-c", code], env=environment(work), capture_output=True, text=True, timeout=600, cwd=work
    )
    if done.returncode != 0 or not (folder / "config.json").exists():
        raise RuntimeError(f"preset {key!r} was not made:\n" + "\n".join(done.stderr.splitlines()[-8:]))
    return folder


# --------------------------------------------------------------------------- stand-ins (run inside the guide)

WORDS = "the quick brown fox jumps over a lazy dog hello world tiny models talk".split()


def tiny_texts(count: int, seed: int = 0) -> list[str]:
    """``count`` short sentences of ``WORDS`` (every tiny preset's vocabulary covers them)."""
    import random

    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12))) for _ in range(count)]


def write_imdb_folders(root: Path, per_class: int = 8) -> None:
    """``aclImdb/{train,test}/{neg,pos}/*.txt`` as the IMDB archive unpacks, with tiny reviews."""
    for split_index, split in enumerate(("train", "test")):
        for label_index, label in enumerate(("neg", "pos")):
            folder = root / "aclImdb" / split / label
            folder.mkdir(parents=True, exist_ok=True)
            for i, text in enumerate(tiny_texts(per_class, seed=10 * split_index + label_index)):
                (folder / f"{i}_1.txt").write_text(text)


def tiny_lines(count: int, min_chars: int, seed: int = 0) -> list[str]:
    """``count`` lines of ``WORDS`` each longer than ``min_chars`` (guides filter out short lines)."""
    import random

    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        line = ""
        while len(line) <= min_chars:
            line += rng.choice(WORDS) + " "
        lines.append(line.strip())
    return lines


def tfds_examples(name: str, split_index: int, count: int = 16) -> tuple[dict, tuple]:
    """Columns of data set ``name``'s stand-in (its real feature names and types) and its supervised keys.

    Raises:
        ValueError: a data set with no stand-in.
    """
    texts = tiny_texts(2 * count, seed=100 + split_index)
    if name == "imdb_reviews":
        return {"text": texts[:count], "label": [i % 2 for i in range(count)]}, ("text", "label")
    if name == "snli":  # label -1 marks the pairs the guide filters out
        labels = [(i % 4) - 1 for i in range(count)]
        return {"premise": texts[:count], "hypothesis": texts[count:], "label": labels}, None
    if name in ("cats_vs_dogs", "caltech101"):
        classes = 2 if name == "cats_vs_dogs" else 102
        return {"image": [(seed, 60, 80) for seed in range(count)], "label": [i % classes for i in range(count)]}, (
            "image",
            "label",
        )
    if name == "glue/mrpc":
        labels = [i % 2 for i in range(count)]
        return {
            "sentence1": texts[:count],
            "sentence2": texts[count:],
            "label": labels,
            "idx": list(range(count)),
        }, None
    if name == "mtnt/fr-en":
        return {"src": texts[:count], "dst": texts[count:]}, ("src", "dst")
    if name == "reddit_tifu":
        return {"documents": texts[:count], "title": texts[count:]}, ("documents", "title")
    raise ValueError(f"offline tensorflow_datasets stand-in has no data set {name!r}")


def fake_tfds(tf: types.ModuleType) -> types.ModuleType:
    """A ``tensorflow_datasets`` stand-in: ``load`` gives tiny ``tf.data`` datasets of the real element specs."""
    module = types.ModuleType("tensorflow_datasets")

    def column(key, value):
        if key == "image":  # (seed, height, width) -> random uint8 images
            return tf.stack(
                [tf.random.stateless_uniform((h, w, 3), (seed, 0), 0, 256, tf.int32) for seed, h, w in value]
            )
        return tf.constant(value, tf.int64 if key in ("label", "idx") else tf.string)

    def one(name, index, as_supervised, batch_size):
        columns, keys = tfds_examples(name, index)
        data = tf.data.Dataset.from_tensor_slices({key: column(key, value) for key, value in columns.items()})
        if "image" in columns:
            data = data.map(lambda row: dict(row, image=tf.cast(row["image"], tf.uint8)))
        if as_supervised:
            data = data.map(lambda row, keys=keys: (row[keys[0]], row[keys[1]]))
        return data.batch(batch_size) if batch_size else data

    def info(name):
        columns, _ = tfds_examples(name, 0)
        classes = max(columns["label"]) + 1 if "label" in columns else 0
        split = types.SimpleNamespace(num_examples=len(next(iter(columns.values()))))
        label = types.SimpleNamespace(num_classes=classes)
        return types.SimpleNamespace(splits={"train": split, "test": split}, features={"label": label})

    def load(name, split=None, as_supervised=False, batch_size=None, with_info=False, **_):
        if split is None:
            result = {"train": one(name, 0, as_supervised, batch_size)}
        elif isinstance(split, (list, tuple)):
            result = [one(name, index, as_supervised, batch_size) for index, _ in enumerate(split)]
        else:
            result = one(name, 0, as_supervised, batch_size)
        return (result, info(name)) if with_info else result

    module.load = load
    module.disable_progress_bar = lambda: None
    return module


def patch_kagglehub() -> None:
    """``kagglehub``'s login, whoami and upload, offline (real module patched, or a stand-in)."""
    try:
        import kagglehub as module
    except ImportError:
        module = sys.modules.setdefault("kagglehub", types.ModuleType("kagglehub"))
    module.login = lambda *a, **k: None
    module.whoami = lambda *a, **k: {"username": "offline_user"}
    module.model_upload = lambda handle, local_model_dir, *a, **k: print(f"[offline] kaggle upload of {handle}")


def patch_huggingface_hub() -> None:
    """``huggingface_hub``'s login, whoami and upload calls, offline."""
    try:
        import huggingface_hub as module
    except ImportError:
        module = sys.modules.setdefault("huggingface_hub", types.ModuleType("huggingface_hub"))
    module.notebook_login = module.login = lambda *a, **k: None
    module.whoami = lambda *a, **k: {"name": "offline_user"}
    module.create_repo = lambda repo_id, *a, **k: types.SimpleNamespace(
        repo_id=repo_id, url=f"https://huggingface.co/{repo_id}"
    )
    module.file_exists = lambda *a, **k: False
    module.upload_folder = lambda *a, **k: print(f"[offline] hf upload of {k.get('repo_id')}")


def write_zip(files: dict):
    """A writer of a zip archive holding ``files`` (name inside -> text)."""

    def write(path: Path) -> None:
        import zipfile

        with zipfile.ZipFile(path, "w") as archive:
            for name, text in files.items():
                archive.writestr(name, text)

    return write


def wiki_lines(seed: int) -> str:
    """A WikiText-like file: short heading lines and long article lines."""
    return "\n".join([" = heading = "] + tiny_lines(24, 120, seed) + [""])


def write_jpeg(path: Path) -> None:
    """A random 96 x 128 RGB JPEG."""
    import tensorflow as tf

    pixels = tf.random.stateless_uniform((96, 128, 3), (0, 1), 0, 256, tf.int32)
    tf.io.write_file(str(path), tf.io.encode_jpeg(tf.cast(pixels, tf.uint8)))


def write_text(text: str):
    """A writer of a text file."""
    return lambda path: path.write_text(text)


BERT_VOCABULARY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [chr(c) for c in range(97, 123)]
BERT_VOCABULARY += [word for word in WORDS if len(word) > 1] + ["##" + chr(c) for c in range(97, 123)] + [".", ",", "!"]
SST_ROWS = "".join(f"{text}\t{i % 2}\n" for i, text in enumerate(tiny_texts(24, 5)))

# URL -> writer(path) of a stand-in file of the same format and layout.
DOWNLOADS: dict = {
    "https://upload.wikimedia.org/wikipedia/commons/thumb/4/49/5hR96puA_VA.jpg/1024px-5hR96puA_VA.jpg": write_jpeg,
    "https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-103-raw-v1.zip": write_zip(
        {
            f"wikitext-103-raw/wiki.{split}.raw": wiki_lines(seed)
            for seed, split in enumerate(("train", "valid", "test"))
        }
    ),
    "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip": write_zip(
        {"SST-2/train.tsv": "sentence\tlabel\n" + SST_ROWS, "SST-2/dev.tsv": "sentence\tlabel\n" + SST_ROWS}
    ),
    "https://storage.googleapis.com/tensorflow/keras-nlp/examples/bert/bert_vocab_uncased.txt": write_text(
        "\n".join(BERT_VOCABULARY) + "\n"
    ),
    "http://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip": write_zip(
        {"spa-eng/spa.txt": "".join(f"{a}.\t{b}.\n" for a, b in zip(tiny_texts(40, 1), tiny_texts(40, 2)))}
    ),
    "https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-v1.zip": write_zip(
        {f"wikitext-2/wiki.{split}.tokens": wiki_lines(seed) for seed, split in enumerate(("train", "valid", "test"))}
    ),
    "https://dldata-public.s3.us-east-2.amazonaws.com/simplebooks.zip": write_zip(
        {
            f"simplebooks/simplebooks-92-raw/{split}.txt": "\n".join(tiny_lines(12, 520, seed)) + "\n"
            for seed, split in enumerate(("train", "valid", "test"))
        }
    ),
}


def patch_get_file(keras: types.ModuleType, downloads: dict, folder: Path) -> None:
    """``keras.utils.get_file`` fetches a known URL's stand-in through ``file://``; an unknown URL fails plainly."""
    real = keras.utils.get_file

    def get_file(fname=None, origin=None, *args, **kwargs):
        url = origin or (args[0] if args else None)
        if url not in downloads:
            raise OSError(f"offline: no stand-in for download {url!r}")
        local = folder / url.rsplit("/", 1)[-1]
        if not local.exists():
            downloads[url](local)
        kwargs.pop("file_hash", None), kwargs.pop("md5_hash", None)
        return real(fname, f"file://{local}", *args[1:], **kwargs)

    keras.utils.get_file = get_file


STAND_IN_WHY = {
    "imdb_folders": ("`aclImdb/{train,test}/{neg,pos}/*.txt`", "offline: 8 tiny reviews a class and split"),
    "tfds": ("`tensorflow_datasets.load`", "offline: 16 rows a split, the data set's feature names and dtypes"),
    "kagglehub": ("`kagglehub.login/whoami/model_upload`", "offline: no account, nothing uploaded"),
    "huggingface_hub": ("`huggingface_hub.*login/whoami/create_repo/upload_folder`", "offline: nothing uploaded"),
    "get_file": ("`keras.utils.get_file(origin=URL)`", "offline: the URL's stand-in file, same format and layout"),
    "imagenet_index": ("`imagenet_class_index.json` in the Keras cache", "offline: decode_predictions reads it"),
}
STAND_INS = ("imdb_folders", "tfds", "kagglehub", "huggingface_hub", "get_file", "imagenet_index")


def install_offline(keras: types.ModuleType, data: list) -> None:
    """Installs the stand-ins ``data`` names, in the guide's process, before its code runs.

    Args:
        keras: The module the guide calls ``keras`` (Keras, or tfkit).
        data: Keys of ``STAND_INS``.

    Raises:
        ValueError: An unknown key.
    """
    import tensorflow as tf

    unknown = sorted(set(data) - set(STAND_INS))
    if unknown:
        raise ValueError(f"install_offline: unknown stand-ins {unknown}; expected some of {STAND_INS}")
    here = Path.cwd()
    if "imdb_folders" in data:
        write_imdb_folders(here)
    if "tfds" in data:
        sys.modules["tensorflow_datasets"] = fake_tfds(tf)
    if "kagglehub" in data:
        patch_kagglehub()
    if "huggingface_hub" in data:
        patch_huggingface_hub()
    if "imagenet_index" in data:  # decode_predictions reads it from the Keras cache (no get_file of the guide's)
        models = Path(os.environ.get("KERAS_HOME", Path.home() / ".keras")) / "models"
        models.mkdir(parents=True, exist_ok=True)
        index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
        (models / "imagenet_class_index.json").write_text(json.dumps(index))
        if keras.__name__ == "keras":  # Keras keeps the index it read in a module global; tfkit reads the file
            from keras.src.applications import imagenet_utils

            imagenet_utils.CLASS_INDEX = index
    standins = here / "_downloads"
    standins.mkdir(exist_ok=True)
    patch_get_file(keras, DOWNLOADS, standins)


# --------------------------------------------------------------------------- source


PRELUDE = """\
# ---- keras_io_hub_guides prelude (offline stand-ins; not part of the guide) ----
import sys as _kio_sys
_kio_sys.path.insert(0, {tools!r})
import keras as _kio_keras
import keras_io_hub_guides as _kio
_kio.install_offline(_kio_keras, {data!r})
del _kio, _kio_keras, _kio_sys
# ---- the guide ----
"""

HUB_RULES = [
    (r"^(\s*)import (keras_hub|keras_nlp)\s*$", r"\1import {hub} as \2"),
    (r"^(\s*)import (?:keras_hub|keras_nlp) as (\w+)\s*$", r"\1import {hub} as \2"),
    (r"^(\s*)from (?:keras_hub|keras_nlp) import ", r"\1from {hub} import "),
    (r"^(\s*)from (?:keras_hub|keras_nlp)\.", r"\1from {hub}."),
]


def rewrite_imports(source: str, mode: str) -> str:
    """``source`` with Keras's and KerasHub's imports pointed at ``mode``'s library ("keras" keeps them).

    Raises:
        ValueError: ``mode`` is not "keras" or "tfkit".
    """
    if mode not in MODES:
        raise ValueError(f"rewrite_imports: mode must be one of {MODES}, got {mode!r}")
    if mode == "keras":
        return rewrite_source(source, "keras")
    lines = []
    for line in source.splitlines():
        for pattern, template in HUB_RULES:
            new = re.sub(pattern, template.replace("{hub}", "tfkit.hub"), line)
            if new != line:
                line = new
                break
        lines.append(re.sub(r"\btf\.keras\.", "keras.", line))  # tf.keras is Keras: the guide's keras
    return rewrite_source("\n".join(lines), "tfkit")


def apply_subs(source: str, guide: Guide, work: Path) -> str:
    """``source`` with ``guide``'s preset handles and substitutions applied.

    Raises:
        LookupError: A handle or substitution that does not occur in ``source``.
    """
    for handle, key in guide.presets.items():
        folder = str(build_preset(key, work))
        found = False
        for quote in ('"', "'"):
            if f"{quote}{handle}{quote}" in source:
                source, found = source.replace(f"{quote}{handle}{quote}", repr(folder)), True
        if not found:
            raise LookupError(f"preset handle {handle!r} does not occur in {guide.path}")
    for sub in guide.subs:
        if sub.regex:
            source, count = re.subn(sub.old, sub.new, source, flags=re.MULTILINE)
        else:
            count = source.count(sub.old)
            source = source.replace(sub.old, sub.new)
        if not count:
            raise LookupError(f"substitution {sub.old!r} does not occur in {guide.path}")
    return source


def build_script(source: str, guide: Guide, mode: str, work: Path) -> str:
    """The script that runs: the prelude, then the guide with substitutions and (for tfkit) rewritten imports."""
    prelude = PRELUDE.format(tools=str(Path(__file__).resolve().parent), data=list(guide.data))
    return rewrite_imports(prelude + apply_subs(source, guide, work), mode)


def last_error(stderr: str, mode: str, returncode: int = 1) -> str:
    """The exception's last line (and where, for a tfkit frame) of a failed run; a crash names its signal."""
    return classify(returncode, stderr, "tfkit" if mode == "tfkit" else "keras")["reason"]


def run_guide(name: str, guide: Guide, sources: Path, mode: str, work: Path, timeout: float) -> dict:
    """Runs ``guide`` once under ``mode`` in a fresh folder; returns ``{"result", "error", "seconds"}``."""
    path = sources / guide.path
    if not path.exists():
        return {"result": "missing", "error": f"no source at {path}", "seconds": 0.0}
    try:
        script = build_script(path.read_text(encoding="utf-8"), guide, mode, work)
    except (LookupError, RuntimeError) as error:
        return {"result": "harness", "error": str(error).splitlines()[0], "seconds": 0.0}
    folder = work / "runs" / mode / name
    shutil.rmtree(folder, ignore_errors=True)  # a fresh folder: no cache or stand-in of an earlier run
    folder.mkdir(parents=True)
    (folder / "guide.py").write_text(script, encoding="utf-8")
    start = time.time()
    try:
        done = subprocess.run(
            [PYTHON, "guide.py"], cwd=folder, env=environment(folder), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"result": "timeout", "error": f"over {timeout:.0f} s", "seconds": round(time.time() - start, 1)}
    (folder / "stdout.txt").write_text(done.stdout)
    (folder / "stderr.txt").write_text(done.stderr)
    seconds = round(time.time() - start, 1)
    if done.returncode == 0:
        return {"result": "ok", "error": "", "seconds": seconds}
    error = last_error(done.stderr, mode, done.returncode)
    return {"result": "failed", "error": error, "seconds": seconds, "returncode": done.returncode}


def table(results: dict, guides: dict | None = None) -> str:
    """A Markdown table: guide, Keras + KerasHub, tfkit (a failure with its exception's last line).

    Args:
        results: Guide name -> mode -> the record :func:`run_guide` returned.
        guides: Guide name -> :class:`Guide`; defaults to ``GUIDES``.
    """
    guides = GUIDES if guides is None else guides

    def cell(record: dict | None) -> str:
        if record is None:
            return "not run"
        if record["result"] == "ok":
            return f"ok ({record['seconds']} s)"
        return f"{record['result']}: {record['error']}".replace("|", "\\|")

    rows = ["| guide | Keras + KerasHub | tfkit |", "| --- | --- | --- |"]
    for name, record in results.items():
        rows.append(f"| `{guides[name].path}` | {cell(record.get('keras'))} | {cell(record.get('tfkit'))} |")
    return "\n".join(rows)


def substitutions_table(guides: dict | None = None) -> str:
    """A Markdown table of every guide's declared substitutions: what is replaced, by what, and why.

    Args:
        guides: Guide name -> :class:`Guide`; defaults to ``GUIDES``.
    """
    guides = GUIDES if guides is None else guides
    rows = ["| guide | replaced | by | why |", "| --- | --- | --- | --- |"]

    def code(text: str) -> str:
        return "`" + text.strip().replace("\n", " ").replace("|", "\\|") + "`" if text.strip() else "(nothing)"

    for name, guide in guides.items():
        for handle, key in guide.presets.items():
            rows.append(
                f"| {name} | `{handle!r}` | tiny `{key}` preset folder | offline: a random preset KerasHub saves |"
            )
        for key in guide.data:
            rows.append(f"| {name} | {STAND_IN_WHY[key][0]} | stand-in | {STAND_IN_WHY[key][1]} |")
        for sub in guide.subs:
            rows.append(f"| {name} | {code(sub.old)} | {code(sub.new)} | {sub.why} |")
    return "\n".join(rows)


def main(argv: list | None = None) -> int:
    """Runs the guides and prints the table; 0 when every tfkit run passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, default=None, help="folder of keras-io sources, at their paths")
    parser.add_argument("--only", nargs="*", default=None, help="guide names (keys of GUIDES)")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=MODES)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="presets and run folders")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--substitutions", action="store_true", help="print the substitutions table and stop")
    args = parser.parse_args(argv)
    if args.substitutions:
        print(substitutions_table())
        return 0
    if args.sources is None:
        parser.error("--sources is required (a folder of keras-io sources at their keras-io paths)")
    names = args.only or list(GUIDES)
    unknown = [name for name in names if name not in GUIDES]
    if unknown:
        parser.error(f"unknown guides {unknown}; known: {sorted(GUIDES)}")
    args.work.mkdir(parents=True, exist_ok=True)
    for key in sorted({key for name in names for key in GUIDES[name].presets.values()}):
        try:
            build_preset(key, args.work)
        except RuntimeError as error:  # its guides report it as a harness failure
            print(error, file=sys.stderr)
    results: dict = {name: {} for name in names}
    jobs = [(name, mode) for name in names for mode in args.modes]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {
            job: pool.submit(run_guide, job[0], GUIDES[job[0]], args.sources, job[1], args.work, args.timeout)
            for job in jobs
        }
        for (name, mode), future in futures.items():
            results[name][mode] = future.result()
            print(f"{name} [{mode}]: {results[name][mode]['result']} {results[name][mode]['error']}", flush=True)
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if all(r.get("tfkit", {}).get("result", "ok") == "ok" for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
