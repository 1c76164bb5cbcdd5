"""The checks that run only in the long mode (``TFKIT_LONG_TESTS=1``), and why each may wait for it.

The default run must stay under 20 minutes on 2 cores. It keeps at least one check of every mechanism (a gallery
script, a guide of each kind, an application of each kind against Keras, a kill point of each kind of save, a
multi-worker fit, a family of each kind against KerasHub); the long mode adds the checks that repeat a mechanism
on more models, data or arguments. Each entry is a regular expression matched against a test's node id
(``tests/test_x.py::test_name[params]``), with the reason. Run the long mode before a release and after changing
what a group below covers (docs/contributing.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable

import pytest

# Whether this is a long run: TFKIT_LONG_TESTS set to anything but "" or "0". The one reading of the variable
# (the conftest, the mesh scenarios' subprocess, the property tests and the fuzzers use it).
LONG_RUN = os.environ.get("TFKIT_LONG_TESTS", "") not in ("", "0")

LONG_CHECKS: dict[str, str] = {
    # The gallery: the default run keeps mnist_convnet (Sequential on images) and whisper_transcription (a hub task).
    r"test_docs_examples\.py::test_example_runs_on_its_small_slice\[(structured_data|transfer_learning"
    r"|transformer_mnist|timeseries_lstm|gan_mnist|text_classification)\]": "a gallery script beyond the two kept",
    r"test_docs_examples_hub\.py::test_hub_example_runs_on_its_small_slice\[(t5_summarization|llama_generation"
    r"|bert_text_classification)\]": "a hub gallery script beyond the one kept",
    # The guides: the seed guide (subclassing) and the short ones run by default; these replay what other tests
    # check piece by piece (distribution in test_distribute/test_multi_worker, the CLI in test_cli, ...).
    r"test_docs_guides\.py::test_guide_code_runs\[(pretrained_models|distribution_api|keras_ecosystem"
    r"|distributed_training|cli|training_and_evaluation)\]": "a long guide whose parts other tests check",
    # Keras applications against Keras: one of each kind stays (ResNet50, MobileNet, MobileNetV3, Inception).
    r"test_applications_structure\.py::test_application_matches_keras\[(MobileNetV2|EfficientNetB0|VGG16"
    r"|ResNet50V2|MobileNet-kwargs6)": "an application architecture beyond one of each kind",
    r"test_applications_weights_more\.py::": "more applications' Keras weight files (test_applications_weights keeps one)",
    r"test_applications_weights\.py::test_keras_weights_file_loads_by_path_and_predicts_the_same\[(VGG16|MobileNetV2)": (
        "another application's Keras weight file through the same loader (MobileNet's stays)"
    ),
    r"test_legacy_h5_weights_by_order\.py::.*\[MobileNetV3Large\]": (
        "the larger MobileNetV3 by order (the small one's file checks the same pairing, and Keras's loader beside it)"
    ),
    # scikit-learn's own estimator-check battery (about 40 checks an estimator, 24 s for the classifier): the
    # wrapper's contract (fit, predict, score, classes, clone, parameters, pipelines, pickling) is checked by the
    # file's other tests in every run.
    r"test_wrappers_sklearn\.py::test_sklearn_estimator_checks": "scikit-learn's whole estimator-check battery",
    # Multi-worker: the killed-worker resume and the global metrics stay.
    r"test_multi_worker\.py::(test_automatic_chunks_are_the_same_on_every_worker"
    r"|test_two_workers_write_each_file_once_with_every_callback)": "a multi-worker scenario beyond the two kept",
    # The mesh scenarios of tests/mesh/scenarios.py's LONG_SCENARIOS (the subprocess skips them too).
    r"test_distribution_mesh\.py::(test_model_parallel_splits_as_the_layout_map_says_and_trains_as_one_device"
    r"\[model_parallel_4x2|test_stateful_recurrent_layers_train_on_a_mesh"
    r"|test_megatron_transformer_block_splits_heads_and_mlp)": "a mesh scenario another one repeats",
    # Kill points: every kind of save keeps one; the export's unversioned form and checkpoint callbacks' weights
    # repeat the export's and the checkpoint's paths.
    r"test_saving_kill_points\.py::.*\[(export_unversioned|model_checkpoint_weights|backup_cleanup)\]": (
        "a kill point whose save path another kept case runs"
    ),
    # KerasHub families against KerasHub beyond one of each kind (the conformance table's rows: EVERY_RUN).
    r"test_hub_encoders\.py::.*\[(distil_bert|albert|xlm_roberta|f_net)\]": (
        "a masked LM family beyond RoBERTa (the conformance table checks their presets with the long mode)"
    ),
    r"test_hub_vision2\.py::.*\[(vd_basic|vd_bottleneck|v1_basic)\]": "a ResNet variant beyond v2_bottleneck",
    r"test_hub_text_embedder\.py::.*\[(XLMRoberta|Qwen3)\]": "an embedder family beyond BERT",
    r"test_hub_tokenizers\.py::test_word_piece_ids_and_text_equal_keras_hub\[(special-tokens-in-strings"
    r"|lowercase-strip-accents)\]": "a WordPiece option beyond the plain one",
    r"test_hub_layers\.py::test_multi_segment_packer_matches_keras_hub\[(right-waterfall|left-round_robin)\]": (
        "a packer side and truncation beyond the two kept"
    ),
    r"test_hub_kv_cache\.py::.*\[gemma\]": "the cache's checks on a third decoder (GPT-2 and Llama stay)",
    r"test_hub_loading_memory\.py::test_from_preset_peak_memory_within_bound\[(llama|untied)\]": (
        "a loading-memory bound beyond GPT-2's, sharded and whole"
    ),
    # Integrations: one search per tuner kind is the tuner's code; Keras Tuner's RandomSearch stays.
    r"test_ecosystem_tools\.py::test_keras_tuner_searches_tfkit_models_and_returns_the_best\[(Hyperband"
    r"|BayesianOptimization)": "another Keras Tuner search over the same tfkit hooks",
    # keras-io replays whose layers have their own unit and Keras cross-check files (test_feature_space*.py).
    r"test_feature_space_keras_io\.py::": "the keras.io FeatureSpace walk-through (its parts: test_feature_space*.py)",
    r"test_keras_archive_writer\.py::test_an_application_model_is_an_archive_keras_loads": (
        "a whole application as an archive (the functional-graph archive test stays)"
    ),
    r"test_datasets_cifar\.py::test_cifar10_full_size_matches_keras_side_by_side": "the full-size CIFAR-10 read",
}

_COMPILED = [(re.compile(pattern), reason) for pattern, reason in LONG_CHECKS.items()]


def long_check_reason(nodeid: str) -> str | None:
    """Why the test with this node id runs only in the long mode, or None when the default run makes it."""
    for pattern, reason in _COMPILED:
        if pattern.search(nodeid):
            return reason
    return None


def one_of_each_kind(
    names: Iterable[str], kind_of: Callable[[str], str], reason: str, keep: Collection[str] = ()
) -> list:
    """``names`` as ``pytest.param``s for a sweep: the first name of each kind, and every name in ``keep``, run by
    default; the others are marked ``long`` with ``reason`` (a sweep over every built-in layer keeps one layer of
    each module in the default run, and the layers whose case differs, such as a refusal)."""
    seen: set[str] = set()
    params = []
    for name in names:
        kind = kind_of(name)
        default = kind not in seen or name in keep
        seen.add(kind)
        params.append(pytest.param(name, id=name, marks=() if default else pytest.mark.long(reason=reason)))
    return params
