"""Hostile KerasHub presets and Hugging Face checkpoints of every tfkit.hub family, and the rules that judge a
loader on them.

    clean = make_clean(root)                                 # each family's clean preset, made by KerasHub
    cases = build_corpus(root, clean, ssrf_port=port)        # altered copies, as plain data
    results = run_cases(cases, root, "tfkit", timeout=60)    # one loading process, each case under a time limit
    failures = {c["name"]: judge(c, results.get(c["name"])) for c in cases}   # None where the loader held

Each case starts as a small clean preset or checkpoint of one family and changes one thing an attacker
controls: a number in a config (``num_layers=10**6``, ``vocabulary_size=10**12``, ``num_heads=0``), a file
name (``config_file="../../x"``, a shard named ``/etc/passwd``), a link out of the folder, a tokenizer file
of ten million entries, a SentencePiece model whose normalizer trie points outside itself, weights of a
different model than the config, code in a config. A loader passes a case when it refuses it with a
``ValueError`` naming the preset, within the time limit and 1.5 GB of memory, having run no code, read and
written nothing outside the folder, opened no connection and changed no global setting. The failure classes
are those of the issue that asked for this set: code execution, file reads, SSRF, writes outside, hangs,
memory, crashes, state tampering, silently wrong (a case loaded where it must be refused) and wrong
exception. Clean controls must load.

``tests/test_hostile_presets.py`` runs a subset (every kind of case once, the families taking turns) in the
suite; ``tools/hostile_presets.py`` runs the whole set, one process a case, beside KerasHub.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import struct
from pathlib import Path
from typing import Any, Callable

import numpy as np

FAILURE_CLASSES = (
    "code execution",
    "file read",
    "SSRF",
    "write outside",
    "hang",
    "memory",
    "crash",
    "state tampering",
    "silently wrong",
    "wrong exception",
)
MEMORY_LIMIT_BYTES = 1536 * 2**20  # what one case may add to the loading process's resident memory


@dataclasses.dataclass
class Family:
    """A family's clean preset or checkpoint: how it is made, loaded, and which fields hold its sizes."""

    name: str
    form: str  # "preset" (KerasHub's layout) or "checkpoint" (Hugging Face Transformers')
    task: str  # the task kind its preset holds: CausalLM, TextClassifier, ImageClassifier
    tokenizer: str | None  # "bpe", "wordpiece", "spm" or None
    layers: str  # the config field of the layer count
    width: str  # the field of the model width
    heads: str  # the field of the attention heads
    vocabulary: str | None  # the field of the vocabulary size


FAMILIES = {
    "gpt2": Family("gpt2", "preset", "CausalLM", "bpe", "num_layers", "hidden_dim", "num_heads", "vocabulary_size"),
    "bert": Family(
        "bert", "preset", "TextClassifier", "wordpiece", "num_layers", "hidden_dim", "num_heads", "vocabulary_size"
    ),
    "llama": Family(
        "llama", "preset", "CausalLM", "spm", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "llama3": Family(
        "llama3", "preset", "CausalLM", "bpe", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "mistral": Family(
        "mistral", "preset", "CausalLM", "spm", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "gemma": Family(
        "gemma", "preset", "CausalLM", "spm", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "gemma3": Family(
        "gemma3", "preset", "CausalLM", "spm", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "qwen": Family(
        "qwen", "preset", "CausalLM", "bpe", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "qwen3": Family(
        "qwen3", "preset", "CausalLM", "bpe", "num_layers", "hidden_dim", "num_query_heads", "vocabulary_size"
    ),
    "vit": Family("vit", "preset", "ImageClassifier", None, "num_layers", "hidden_dim", "num_heads", None),
    "gpt2_hf": Family("gpt2_hf", "checkpoint", "CausalLM", "bpe", "n_layer", "n_embd", "n_head", "vocab_size"),
    "bert_hf": Family(
        "bert_hf",
        "checkpoint",
        "TextClassifier",
        "wordpiece",
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
    ),
    "llama3_hf": Family(
        "llama3_hf",
        "checkpoint",
        "CausalLM",
        "bpe",
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
    ),
    "mistral_hf": Family(
        "mistral_hf",
        "checkpoint",
        "CausalLM",
        "spm",
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
    ),
    "gemma_hf": Family(
        "gemma_hf",
        "checkpoint",
        "CausalLM",
        "spm",
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
    ),
    "qwen_hf": Family(
        "qwen_hf",
        "checkpoint",
        "CausalLM",
        "bpe",
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
    ),
    "qwen3_hf": Family(
        "qwen3_hf",
        "checkpoint",
        "CausalLM",
        "bpe",
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
    ),
    "vit_hf": Family(
        "vit_hf", "checkpoint", "ImageClassifier", None, "num_hidden_layers", "hidden_size", "num_attention_heads", None
    ),
}


def make_clean(root: Path) -> dict[str, Path]:
    """Every family's clean preset or checkpoint under ``root/clean``, made by KerasHub (imported here)."""
    import keras_hub
    from hub_presets import gpt2_preset
    from hub_presets_bert import bert_presets, transformers_checkpoint
    from hub_presets_gemma import gemma1_causal_lm, gemma3_preset, gemma_preset
    from hub_presets_llama3 import llama3_preset
    from hub_presets_mistral import llama_preset, mistral_preset
    from hub_presets_qwen import qwen3_preset, qwen3_transformers_checkpoint, qwen_preset
    from hub_presets_vit import vit_preset, vit_transformers_checkpoint

    clean = root / "clean"
    made = {
        "gpt2": gpt2_preset(str(clean / "gpt2")),
        "bert": shutil.move(bert_presets(str(root / "bert_presets"))[0], str(clean / "bert")),
        "llama3": llama3_preset(str(clean / "llama3")),
        "mistral": mistral_preset(str(clean / "mistral")),
        "gemma": gemma_preset(str(clean / "gemma")),
        "gemma3": gemma3_preset(str(clean / "gemma3")),
        "qwen": qwen_preset(str(clean / "qwen")),
        "qwen3": qwen3_preset(str(clean / "qwen3")),
        "vit": vit_preset(str(clean / "vit")),
    }
    llama_preset(str(clean / "llama"))
    made["llama"] = str(clean / "llama")
    for family, cls in (
        ("gpt2", "GPT2CausalLM"),
        ("llama3", "Llama3CausalLM"),
        ("mistral", "MistralCausalLM"),
        ("qwen", "QwenCausalLM"),
    ):
        getattr(keras_hub.models, cls).from_preset(made[family]).export_to_transformers(str(clean / f"{family}_hf"))
        made[f"{family}_hf"] = str(clean / f"{family}_hf")
    gemma_lm = gemma1_causal_lm(keras_hub.models.GemmaTokenizer.from_preset(made["gemma"]))  # what KerasHub exports
    gemma_lm.export_to_transformers(str(clean / "gemma_hf"))
    made["gemma_hf"] = str(clean / "gemma_hf")
    made["bert_hf"] = transformers_checkpoint(
        keras_hub.models.Backbone.from_preset(made["bert"]), str(clean / "bert_hf")
    )
    qwen3 = keras_hub.models.Qwen3CausalLM.from_preset(made["qwen3"])
    made["qwen3_hf"] = qwen3_transformers_checkpoint(
        qwen3.backbone, qwen3.preprocessor.tokenizer, str(clean / "qwen3_hf")
    )
    vit = keras_hub.models.ImageClassifier.from_preset(made["vit"])
    made["vit_hf"] = vit_transformers_checkpoint(vit, str(clean / "vit_hf"))
    return {name: Path(path) for name, path in made.items()}


# ------------------------------------------------------------------------------------------------ alterations


def _json(folder: Path, name: str, change: Callable[[dict], object]) -> None:
    path = folder / name
    value = json.loads(path.read_text())
    change(value)
    path.write_text(json.dumps(value, allow_nan=True))


def _config(family: Family, change: Callable[[dict], object]) -> Callable[[Path], None]:
    """An alteration of the config: KerasHub's ``config`` object, or a checkpoint's whole ``config.json``."""
    return lambda folder: _json(folder, "config.json", lambda v: change(v["config"] if family.form == "preset" else v))


def _set(family: Family, **fields: object) -> Callable[[Path], None]:
    return _config(family, lambda c: c.update(fields))


def _scaled(family: Family, field: str, change: Callable[[int], object]) -> Callable[[Path], None]:
    return _config(family, lambda c: c.update({field: change(c[field])}))


def _tokenizer_assets(folder: Path) -> Path:
    return folder / "assets" / "tokenizer"


def _big_vocabulary_json(folder: Path) -> None:
    (_tokenizer_assets(folder) / "vocabulary.json").write_bytes(_vocabulary_bytes(3 * 10**6))


def _huge_ids(folder: Path) -> None:
    _json(_tokenizer_assets(folder), "vocabulary.json", lambda v: v.update({"huge": 10**12}))


def _big_lines(folder: Path, name: str) -> None:
    with open(folder / name, "w") as handle:
        handle.write("a b\n" * (3 * 2**20))


def _link(folder: Path, name: str, target: Path) -> None:
    path = folder / name
    if path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _spm_garbage_trie(name: str) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        from sentencepiece import sentencepiece_model_pb2

        path = folder / name
        model = sentencepiece_model_pb2.ModelProto()
        model.ParseFromString(path.read_bytes())
        units = np.random.RandomState(0).randint(0, 2**32, 100, dtype=np.uint64).astype("<u4")
        model.normalizer_spec.precompiled_charsmap = struct.pack("<I", units.nbytes) + units.tobytes() + b"a\0"
        path.write_bytes(model.SerializeToString())

    return mutate


def _spm_file(family: Family) -> str:
    return "tokenizer.model" if family.form == "checkpoint" else "assets/tokenizer/vocabulary.spm"


def _safetensors(folder: Path, header: dict, data: bytes) -> None:
    raw = json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + data)


def _many_tensors(folder: Path) -> None:
    entries = ",".join(
        f'"t{i}":{{"dtype":"F32","shape":[1],"data_offsets":[{4 * i},{4 * i + 4}]}}' for i in range(10**6)
    )
    raw = ("{" + entries + "}").encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(4 * 10**6))


def _overlapping_tensors(folder: Path) -> None:
    header = {
        "a": {"dtype": "F32", "shape": [2**20], "data_offsets": [0, 4 * 2**20]},
        "b": {"dtype": "F32", "shape": [2**20], "data_offsets": [0, 4 * 2**20]},
    }
    _safetensors(folder, header, bytes(16))


def _remove(*names: str) -> Callable[[Path], None]:
    return lambda folder: [(folder / name).unlink() for name in names]


def _extra_h5_layer(folder: Path) -> None:
    import h5py

    with h5py.File(folder / "model.weights.h5", "a") as f:
        f.create_dataset("layers/extra_layer/vars/0", data=np.zeros(3, "float32"))


def _pickle_h5(marker: Path) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        import pickle

        import h5py

        class Payload:
            def __reduce__(self):
                return (open, (str(marker), "w"))

        with h5py.File(folder / "model.weights.h5", "a") as f:
            f.create_dataset("layers/evil/vars/0", data=np.void(pickle.dumps(Payload())))

    return mutate


def _task_entry(change: Callable[[dict], object]) -> Callable[[Path], None]:
    return lambda folder: _json(folder, "task.json", lambda v: change(v["config"]))


def _preprocessor_of_task(change: Callable[[dict], object]) -> Callable[[Path], None]:
    return _task_entry(lambda c: change(c["preprocessor"]["config"]))


def _tokenizer_of_task(change: Callable[[dict], object]) -> Callable[[Path], None]:
    return _preprocessor_of_task(lambda c: change(c["tokenizer"]["config"]))


def _lambda_config(marker: Path) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        code = f"open({str(marker)!r}, 'w').write('ran')"
        _json(
            folder,
            "config.json",
            lambda v: v.update(class_name="__lambda__", config={"code": code, "function_type": "lambda"}),
        )

    return mutate


# ------------------------------------------------------------------------------------------------ the cases


@dataclasses.dataclass
class Case:
    """One altered copy of a family's clean folder: what a loader is asked to do with it, and what it tries."""

    name: str
    action: str  # backbone, architecture (no weights), task, tokenizer, tokenize, save, image_converter
    tries: str  # the failure class the alteration aims at ("" for a clean control)
    mutate: Callable[[Path], None] | None
    heavy: bool = False  # writes tens of MB: one family in the suite's subset


def _cases(f: Family, root: Path, ssrf_port: int) -> list[Case]:
    """Every case of family ``f``, in a fixed order of kinds (the suite's subset takes each kind once)."""
    outside, markers = root / "outside", root / "markers"
    secret = outside / "secret.txt"
    url = f"http://127.0.0.1:{ssrf_port}/hostile"
    own = root / "clean" / f.name  # the family's clean folder: outside every case's folder
    preset, checkpoint = f.form == "preset", f.form == "checkpoint"
    head = f.task != "CausalLM"  # the task has weights of its own (task.weights.h5, a checkpoint's head)
    cases = [
        Case("clean", "task" if preset else "backbone", "", None),
        # the config: sizes
        Case("layers_1e6", "backbone", "hang", _set(f, **{f.layers: 10**6})),
        Case("layers_plus_1000", "backbone", "hang", _scaled(f, f.layers, lambda n: n + 1000)),
        Case("width_2e20", "backbone", "memory", _set(f, **{f.width: 2**20})),
        Case("heads_0", "backbone", "wrong exception", _set(f, **{f.heads: 0})),
        Case("layers_negative", "backbone", "wrong exception", _set(f, **{f.layers: -1})),
        Case("layers_string", "backbone", "wrong exception", _set(f, **{f.layers: "2"})),
        Case("layers_float", "backbone", "wrong exception", _set(f, **{f.layers: 2.5})),
        Case("fewer_layers", "backbone", "silently wrong", _scaled(f, f.layers, lambda n: n - 1)),
        Case("more_layers", "backbone", "silently wrong", _scaled(f, f.layers, lambda n: n + 1)),
        Case("wider", "backbone", "silently wrong", _scaled(f, f.width, lambda n: 2 * n)),
    ]
    weights = "model.weights.h5" if preset else "model.safetensors"
    cases.append(
        Case("layers_1e6_config_alone", "architecture", "hang", _both(_set(f, **{f.layers: 10**6}), _remove(weights)))
    )
    if f.vocabulary:
        cases.append(Case("vocabulary_1e12", "backbone", "memory", _set(f, **{f.vocabulary: 10**12})))
    if preset:
        inner = "mlp_dim" if f.name == "vit" else "intermediate_dim"
        cases.append(Case("intermediate_2e34", "backbone", "memory", _set(f, **{inner: 2**34})))
        if f.name not in ("gpt2", "bert"):  # (their backbones take no epsilon)
            cases.append(Case("epsilon_nan", "backbone", "silently wrong", _set(f, layer_norm_epsilon=float("nan"))))
    elif f.name in ("gpt2_hf", "bert_hf"):
        positions = "n_positions" if f.name == "gpt2_hf" else "max_position_embeddings"
        cases.append(Case("positions_2e40", "backbone", "memory", _set(f, **{positions: 2**40})))
    else:
        cases.append(Case("intermediate_2e34", "backbone", "memory", _set(f, intermediate_size=2**34)))
    # the config: its file and what it names
    cases += [
        Case("config_not_json", "backbone", "wrong exception", _write("config.json", b"\xff\xfe{not json")),
        Case("config_deep", "backbone", "wrong exception", _write("config.json", b"[" * 100_000 + b"]" * 100_000)),
        Case(
            "config_huge",
            "backbone",
            "memory",
            _write("config.json", lambda: b'{"a": "' + b"x" * 80 * 2**20 + b'"}'),
            True,
        ),
        Case("config_missing", "backbone", "wrong exception", _remove("config.json")),
        Case("config_link_out", "backbone", "file read", lambda d: _link(d, "config.json", secret)),
    ]
    if preset:
        policy = {"module": "keras", "class_name": "DTypePolicy", "registered_name": None}
        cases += [
            Case(
                "class_unknown",
                "backbone",
                "wrong exception",
                _entry(class_name="Teleporter", registered_name="keras_hub>Teleporter"),
            ),
            Case(
                "registered_name_list",
                "backbone",
                "wrong exception",
                _entry(registered_name=["keras_hub>GPT2Backbone"]),
            ),
            Case(
                "module_injection",
                "backbone",
                "code execution",
                _entry(module="evil_module", class_name="run", registered_name="evil_module>run"),
            ),
            Case("lambda_code", "backbone", "code execution", _lambda_config(markers / f"lambda_{f.name}")),
            Case("safe_mode_key", "backbone", "code execution", _set(f, safe_mode=False)),
            Case(
                "dtype_policy_bogus",
                "backbone",
                "wrong exception",
                _set(f, dtype={**policy, "config": {"name": "float31"}}),
            ),
            Case(
                "policy_mixed",
                "backbone",
                "state tampering",
                _set(f, dtype={**policy, "config": {"name": "mixed_bfloat16"}}),
            ),
        ]
    else:
        cases += [
            Case("model_type_unknown", "backbone", "wrong exception", _set(f, model_type="teleporter")),
            Case("field_missing", "backbone", "wrong exception", _config(f, lambda c: c.pop(f.width))),
            Case("field_object", "backbone", "wrong exception", _set(f, **{f.width: {"a": 1}})),
        ]
    # the weights
    if preset:
        index = "model.weights.json"
        cases += [
            Case("weights_missing", "backbone", "wrong exception", _remove("model.weights.h5")),
            Case(
                "weights_link_out",
                "backbone",
                "file read",
                lambda d: _link(d, "model.weights.h5", own / "model.weights.h5"),
            ),
            Case("weights_extra_layer", "backbone", "silently wrong", _extra_h5_layer),
            Case("weights_pickle", "backbone", "code execution", _pickle_h5(markers / f"pickle_{f.name}")),
            Case("weights_truncated", "backbone", "wrong exception", _truncate("model.weights.h5", 3000)),
            Case("shard_up", "backbone", "file read", _weights_index(index, "../../outside/secret.txt")),
            Case("shard_absolute", "backbone", "file read", _weights_index(index, str(secret))),
            Case("shard_url", "backbone", "SSRF", _weights_index(index, url)),
        ]
        if HANG_SAMPLE.exists():
            cases.append(
                Case(
                    "weights_hang_sample",
                    "backbone",
                    "hang",
                    lambda d: shutil.copy(HANG_SAMPLE, d / "model.weights.h5"),
                )
            )
    else:
        index = "model.safetensors.index.json"
        cases += [
            Case("safetensors_1e6_entries", "backbone", "hang", _many_tensors, True),
            Case("safetensors_overlap", "backbone", "wrong exception", _overlapping_tensors),
            Case(
                "safetensors_header_huge",
                "backbone",
                "memory",
                _write("model.safetensors", struct.pack("<Q", 2**62) + b"{}"),
            ),
            Case("safetensors_truncated", "backbone", "wrong exception", _truncate("model.safetensors", -8)),
            Case("safetensors_dtype", "backbone", "wrong exception", _one_tensor("PICKLE")),
            Case(
                "safetensors_link_out",
                "backbone",
                "file read",
                lambda d: _link(d, "model.safetensors", own / "model.safetensors"),
            ),
            Case("index_shard_up", "backbone", "file read", _weights_index(index, "../../outside/secret.txt")),
            Case("index_shard_url", "backbone", "SSRF", _weights_index(index, url)),
        ]
    # the task
    if preset and head:
        cases += [
            Case("task_weights_missing", "task", "silently wrong", _remove("task.weights.h5")),
            Case(
                "task_weights_link_out",
                "task",
                "file read",
                lambda d: _link(d, "task.weights.h5", own / "task.weights.h5"),
            ),
            Case("num_classes_1e9", "task", "memory", _task_entry(lambda c: c.update(num_classes=10**9))),
            Case(
                "task_class_unknown",
                "task",
                "code execution",
                _json_file("task.json", lambda v: v.update(module="evil_module", registered_name="evil_module>run")),
            ),
        ]
    if preset and f.tokenizer:
        cases += [
            Case(
                "sequence_length_2e40",
                "task",
                "memory",
                _preprocessor_of_task(lambda c: c.update(sequence_length=2**40)),
            ),
            Case(
                "config_file_up",
                "save",
                "write outside",
                _preprocessor_of_task(lambda c: c.update(config_file="../../outside/written.json")),
            ),
            Case(
                "config_file_absolute",
                "save",
                "write outside",
                _preprocessor_of_task(lambda c: c.update(config_file=str(outside / "written_abs.json"))),
            ),
            Case(
                "tokenizer_config_file_up",
                "save",
                "write outside",
                _tokenizer_of_task(lambda c: c.update(config_file="../../outside/tokenizer.json")),
            ),
            Case(
                "asset_link_out",
                "tokenizer",
                "file read",
                lambda d: _link(d, f"assets/tokenizer/{ASSET[f.tokenizer]}", secret),
            ),
            Case("vocabulary_path", "tokenizer", "file read", _tokenizer_source(f, str(secret))),
            Case("vocabulary_url", "tokenizer", "SSRF", _tokenizer_source(f, url)),
        ]
    if preset and f.tokenizer == "bpe":
        cases += [
            Case("vocabulary_json_3e6", "tokenizer", "memory", _big_vocabulary_json, True),
            Case("vocabulary_id_1e12", "tokenizer", "memory", _huge_ids),
            Case("merges_3e6", "tokenizer", "memory", lambda d: _big_lines(_tokenizer_assets(d), "merges.txt"), True),
        ]
    if preset and f.tokenizer == "wordpiece":
        cases.append(
            Case(
                "vocabulary_txt_3e6",
                "tokenizer",
                "memory",
                lambda d: _big_lines(_tokenizer_assets(d), "vocabulary.txt"),
                True,
            )
        )
    if f.tokenizer == "spm":
        cases += [
            Case("spm_garbage_trie", "tokenize", "crash", _spm_garbage_trie(_spm_file(f))),
            Case(
                "spm_not_a_model",
                "tokenizer",
                "wrong exception",
                _write(_spm_file(f), b"\x0a\xff\xff\xff\xff\x0f" + bytes(64)),
            ),
        ]
    if f.name in ("gpt2_hf", "qwen_hf"):
        cases.append(
            Case(
                "hf_vocab_json_3e6",
                "tokenizer",
                "memory",
                _write("vocab.json", lambda: _vocabulary_bytes(3 * 10**6)),
                True,
            )
        )
    if f.name in ("llama3_hf", "qwen3_hf"):

        def huge() -> bytes:
            return b'{"model": {"type": "BPE", "vocab": ' + _vocabulary_bytes(4 * 10**6) + b', "merges": []}}'

        cases.append(Case("hf_tokenizer_json_huge", "tokenizer", "memory", _write("tokenizer.json", huge), True))
    if preset and f.task == "ImageClassifier":  # every image resized to a billion pixels a side at first use
        cases.append(
            Case(
                "image_size_2e30",
                "task",
                "memory",
                _preprocessor_of_task(lambda c: c["image_converter"]["config"].update(image_size=[2**30, 2**30])),
            )
        )
    if checkpoint and f.task == "ImageClassifier":
        processor = _json_file("preprocessor_config.json", lambda v: v.update(size={"height": 2**30, "width": 2**30}))
        cases.append(Case("processor_size_2e30", "image_converter", "memory", processor))
        cases.append(
            Case(
                "processor_std_0",
                "image_converter",
                "silently wrong",
                _json_file("preprocessor_config.json", lambda v: v.update(image_std=[0, 0, 0])),
            )
        )
    if checkpoint and f.task == "ImageClassifier":
        cases.append(Case("id2label_1e5", "task", "memory", _set(f, id2label={str(i): "x" for i in range(10**5)})))
    return cases


def _both(*mutations: Callable[[Path], None]) -> Callable[[Path], None]:
    return lambda folder: [mutate(folder) for mutate in mutations]


def _write(name: str, data: bytes | Callable[[], bytes]) -> Callable[[Path], None]:
    """File ``name`` replaced by ``data`` (made when the case is, for the large ones: ``data`` a function)."""
    return lambda folder: (folder / name).write_bytes(data() if callable(data) else data)


def _truncate(name: str, end: int) -> Callable[[Path], None]:
    return lambda folder: (folder / name).write_bytes((folder / name).read_bytes()[:end])


def _json_file(name: str, change: Callable[[dict], object]) -> Callable[[Path], None]:
    return lambda folder: _json(folder, name, change)


def _entry(**fields: object) -> Callable[[Path], None]:
    """``config.json``'s object itself (its class, module, registered name) changed."""
    return _json_file("config.json", lambda value: value.update(fields))


def _weights_index(name: str, shard: str) -> Callable[[Path], None]:
    """The weights replaced by a shard index (``name``) naming ``shard``."""

    def mutate(folder: Path) -> None:
        for weights in ("model.weights.h5", "model.safetensors"):
            (folder / weights).unlink(missing_ok=True)
        (folder / name).write_text(json.dumps({"weight_map": {"layers/x/vars": shard, "x.weight": shard}}))

    return mutate


def _one_tensor(dtype: str) -> Callable[[Path], None]:
    return lambda folder: _safetensors(folder, {"x": {"dtype": dtype, "shape": [1], "data_offsets": [0, 1]}}, b"\x80")


def _vocabulary_bytes(entries: int) -> bytes:
    """A JSON vocabulary of ``entries`` distinct tokens: a block of 10,000 repeated under other prefixes (fast)."""
    block = ",".join(f'"{i}":{i}' for i in range(10_000))
    blocks = [block.replace('"', f'"{k}_', 1).replace(',"', f',"{k}_') for k in range(-(-entries // 10_000))]
    return ("{" + ",".join(blocks) + "}").encode()


def _tokenizer_source(f: Family, source: str) -> Callable[[Path], None]:
    """``tokenizer.json``'s vocabulary (a SentencePiece tokenizer's ``proto``) set to a path or URL to read."""
    key = "proto" if f.tokenizer == "spm" else "vocabulary"
    return _json_file("tokenizer.json", lambda value: value["config"].update({key: source}))


ASSET = {"bpe": "vocabulary.json", "wordpiece": "vocabulary.txt", "spm": "vocabulary.spm"}
HANG_SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "security-samples" / "heap_free_size0_HANG.h5"


def build_corpus(
    root: Path, clean: dict[str, Path], ssrf_port: int, subset: bool = False, families: tuple[str, ...] = ()
) -> list[dict]:
    """Every case's folder under ``root/cases``, altered from ``clean`` (``make_clean``); the cases as plain data.

    ``subset``: each kind of case once, on the families it applies to in turn (a heavy one on the first),
    and every family's clean control.
    """
    (root / "outside").mkdir(parents=True, exist_ok=True)
    (root / "outside" / "secret.txt").write_text("the secret the preset must not read\n")
    (root / "markers").mkdir(exist_ok=True)
    (root / "out").mkdir(exist_ok=True)
    names = [name for name in FAMILIES if name in clean and (not families or name in families)]
    by_kind: dict[str, list[tuple[str, Case]]] = {}
    for name in names:
        for case in _cases(FAMILIES[name], root, ssrf_port):
            by_kind.setdefault(case.name, []).append((name, case))
    chosen = []
    for turn, (kind, made) in enumerate(by_kind.items()):
        if subset and kind != "clean":
            made = [made[0]] if made[0][1].heavy else [made[turn % len(made)]]
        chosen += made
    cases = []
    for family, case in chosen:
        name = f"{family}-{case.name}"
        folder = root / "cases" / name
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(clean[family], folder, symlinks=True)
        if case.mutate is not None:
            case.mutate(folder)
        task = FAMILIES[family].task
        cases.append(
            {
                "name": name,
                "family": family,
                "task": task,
                "action": case.action,
                "tries": case.tries,
                "folder": str(folder),
                "out": str(root / "out" / name),
            }
        )
    return cases


# ------------------------------------------------------------------------------------------------ loading

WORKER = r"""
import importlib, json, os, resource, sys, threading, time
cases_file, results_file, library, timeout, root = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
if library == "keras_hub":
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras_hub as hub
    import keras as settings_module
else:
    import tfkit.hub as hub
    import tfkit as settings_module
import tensorflow as tf
import tensorflow_text, sentencepiece  # imported now: their first import sets environment variables of their own

def state():
    config = settings_module.config
    policy = config.dtype_policy() if hasattr(config, "dtype_policy") else None
    return {"floatx": config.floatx(), "epsilon": config.epsilon(), "image_data_format": config.image_data_format(),
            "dtype_policy": getattr(policy, "name", None), "eager": tf.config.functions_run_eagerly(),
            **{"environment " + key: value for key, value in os.environ.items()}}

def rss():
    with open("/proc/self/status") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) * 1024

def files_outside():
    found = {}
    for folder, dirs, names in os.walk(root):
        relative = os.path.relpath(folder, root)
        if relative.split(os.sep)[0] in ("cases", "clean", "out", "evil", "__pycache__"):
            continue
        for name in names:
            path = os.path.normpath(os.path.join(relative, name))
            if not path.startswith(("results-", "cases.json", "connections.log", "errors-")):
                stat = os.lstat(os.path.join(folder, name))
                found[path] = (stat.st_mtime_ns, stat.st_size)
    return found

def connections():
    path = os.path.join(root, "connections.log")
    return os.path.getsize(path) if os.path.exists(path) else 0

def run(case):
    folder, action = case["folder"], case["action"]
    task = getattr(hub.models, case["task"])
    if action == "backbone":
        hub.models.Backbone.from_preset(folder)
    elif action == "image_converter":
        hub.layers.ImageConverter.from_preset(folder)
    elif action == "architecture":
        hub.models.Backbone.from_preset(folder, load_weights=False)
    elif action == "task":
        task.from_preset(folder)
    elif action == "tokenizer":
        hub.models.Tokenizer.from_preset(folder) if hasattr(hub.models, "Tokenizer") else hub.tokenizers.Tokenizer.from_preset(folder)
    elif action == "tokenize":
        tokenizer = hub.tokenizers.Tokenizer.from_preset(folder)
        tokenizer(["the quick brown fox", "h\u00e9llo w\u00f6rld \ufb01 \u2460 \uff71", "a" * 64])
    elif action == "save":
        task.from_preset(folder).save_to_preset(case["out"])
    else:
        raise RuntimeError("unknown action " + action)

with open(cases_file) as handle:
    cases = json.load(handle)
for case in cases:
    with open(results_file, "a") as out:
        out.write(json.dumps({"name": case["name"], "started": True}) + "\n")
    outcome, peak = {}, {"bytes": 0}
    before, base, files_before, connected = state(), rss(), files_outside(), connections()
    def body():
        try:
            run(case)
            outcome["status"] = "loaded"
        except BaseException as error:
            outcome["status"] = type(error).__name__
            outcome["message"] = str(error)[:600]
            outcome["value_error"] = isinstance(error, ValueError)
    thread = threading.Thread(target=body, daemon=True)
    start = time.monotonic()
    thread.start()
    while thread.is_alive() and time.monotonic() - start < timeout:
        peak["bytes"] = max(peak["bytes"], rss() - base)
        thread.join(0.01)
    if thread.is_alive():
        outcome = {"status": "timeout"}
    result = dict(outcome, name=case["name"], seconds=time.monotonic() - start, memory=peak["bytes"],
                  state_changed=sorted({key for key, _ in state().items() ^ before.items()}),
                  written=sorted(name for name, stamp in files_outside().items() if files_before.get(name) != stamp),
                  connections=connections() - connected,
                  new_modules=sorted(m for m in sys.modules if m.startswith("evil_module")))
    with open(results_file, "a") as out:
        out.write(json.dumps(result) + "\n")
    if outcome["status"] == "timeout":
        break
os._exit(0)
"""

EVIL_MODULE = (
    "open({marker!r}, 'w').write('imported')\ndef run(*args, **kwargs):\n    open({marker!r}, 'w').write('ran')\n"
)


def prepare_evil_module(root: Path) -> Path:
    """A module ``evil_module`` (on the loading process's path) that leaves a marker when imported or called."""
    folder = root / "evil"
    folder.mkdir(exist_ok=True)
    (folder / "evil_module.py").write_text(EVIL_MODULE.format(marker=str(root / "markers" / "evil_module")))
    return folder


def judge(case: dict, result: dict | None) -> str | None:
    """The failure class of ``result`` (the loading process's record of ``case``), or ``None`` when the loader
    held."""
    if result is None:
        return "crash"
    if result.get("status") == "timeout":
        return "hang"
    if result.get("new_modules") or any(name.startswith("markers") for name in result.get("written", [])):
        return "code execution"
    if result.get("connections"):
        return "SSRF"
    if result.get("written"):
        return "write outside"
    if result.get("state_changed"):
        return "state tampering"
    if result.get("memory", 0) > MEMORY_LIMIT_BYTES or result.get("status") == "MemoryError":
        return "memory"
    if case["tries"] == "state tampering":  # loading it is fine: the global settings above are what matter
        return None
    if not case["tries"]:  # a clean control
        return None if result["status"] == "loaded" else "wrong exception"
    if result["status"] == "loaded":
        return "file read" if case["tries"] in ("file read", "SSRF") else "silently wrong"
    if not result.get("value_error") or os.path.basename(case["folder"]) not in result.get("message", ""):
        return "wrong exception"
    return None


class Listener:
    """A loopback TCP listener that appends a byte to ``root/connections.log`` for each connection it accepts:
    an SSRF case's URL points here. A context manager: it stops when the block ends."""

    def __init__(self, root: Path) -> None:
        import socket
        import threading

        self.log = root / "connections.log"
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        import socket

        while not self.stopped.is_set():
            try:
                connection, _ = self.server.accept()
            except (socket.timeout, OSError):
                continue
            with open(self.log, "ab") as log:
                log.write(b".")
            connection.close()

    def __enter__(self) -> "Listener":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.server.close()


def _watch(process: Any, results_file: Path, limit: float) -> bool:
    """Waits for ``process``, killing it when one case has run ``limit`` seconds without a result (a case that
    holds the interpreter's lock in native code stops the process's own time limit too) or when it stops
    starting new cases at all. Returns whether it killed it."""
    import time

    last, since, killed = None, time.monotonic(), False
    while process.poll() is None:
        time.sleep(0.5)
        size = results_file.stat().st_size if results_file.exists() else 0
        if size != last:
            last, since = size, time.monotonic()
        elif time.monotonic() - since > limit:
            process.kill()
            killed = True
    process.wait()
    return killed


def run_cases(cases: list[dict], root: Path, library: str, timeout: float, one_process: bool = True) -> dict:
    """Loads every case with ``library`` (``"tfkit"`` or ``"keras_hub"``) and returns each case's record by name.

    In one process, each case in a thread under ``timeout`` seconds; a case that kills the process (a crash)
    or does not finish (a hang) gets no record or a ``timeout`` one, and a new process takes the cases after
    it. ``one_process=False``: a process a case. A case missing from the result: the process died on it.
    """
    import subprocess
    import sys

    evil = prepare_evil_module(root)
    path = os.pathsep.join([str(evil), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=path)
    results_file = root / f"results-{library}.jsonl"
    results_file.unlink(missing_ok=True)
    remaining = list(cases)
    while remaining:
        batch = remaining if one_process else remaining[:1]
        cases_file = root / "cases.json"
        cases_file.write_text(json.dumps(batch))
        command = [sys.executable, "-c", WORKER, str(cases_file), str(results_file), library, str(timeout), str(root)]
        errors = root / f"errors-{library}.txt"
        with open(errors, "w") as stderr:
            process = subprocess.Popen(command, env=env, cwd=str(root), stdout=subprocess.DEVNULL, stderr=stderr)
            killed = _watch(process, results_file, timeout + 60)
        lines = results_file.read_text().splitlines() if results_file.exists() else []
        if killed and lines and "started" in json.loads(lines[-1]):  # the case it was killed on: a hang
            with open(results_file, "a") as out:
                out.write(json.dumps({"name": json.loads(lines[-1])["name"], "status": "timeout"}) + "\n")
        started = {json.loads(line)["name"] for line in lines}
        reached = [index for index, case in enumerate(batch) if case["name"] in started]
        if not reached:
            raise RuntimeError(f"the {library} loading process started no case: {errors.read_text()[-3000:]}")
        remaining = remaining[reached[-1] + 1 :]  # after the one it died or hung on, in a new process
    lines = [json.loads(line) for line in results_file.read_text().splitlines()]
    return {line["name"]: line for line in lines if "status" in line}
