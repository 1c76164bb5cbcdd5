"""tfkit.hub.metrics beside KerasHub's: Perplexity, EditDistance, Bleu, RougeN and RougeL give KerasHub's numbers.

Each is fed the same batches (twice, so the state accumulates) and compared with KerasHub 0.32's, and one
value per metric is derived by hand. ROUGE with ``use_stemmer=True`` needs ``rouge-score`` (KerasHub's ROUGE
needs it for everything), and is skipped without it.
"""

import math

import numpy as np
import pytest
from hub_presets import keras_hub

import tfkit
import tfkit.hub.metrics as tk_metrics

RNG = np.random.default_rng(0)
LOGITS = RNG.normal(size=(3, 5, 7)).astype("float32")
LABELS = RNG.integers(1, 7, (3, 5))
LABELS[:, 3:] = 0
WEIGHTS = RNG.random((3, 5)).astype("float32")


def _both(name, *args, **kwargs):
    return getattr(tk_metrics, name)(*args, **kwargs), getattr(keras_hub.metrics, name)(*args, **kwargs)


@pytest.mark.parametrize("kwargs", [{"from_logits": True}, {"from_logits": True, "mask_token_id": 0}])
@pytest.mark.parametrize("weighted", [False, True])
def test_perplexity_as_kerashubs(kwargs, weighted):
    ours, theirs = _both("Perplexity", **kwargs)
    for metric in (ours, theirs):
        metric.update_state(LABELS, LOGITS, WEIGHTS if weighted else None)
        metric.update_state(LABELS[:2], LOGITS[:2])
    np.testing.assert_allclose(float(ours.result()), float(theirs.result()), rtol=1e-6)
    assert ours.get_config() == theirs.get_config()


def test_perplexity_by_hand_and_in_fit():
    metric = tk_metrics.Perplexity(mask_token_id=0)
    metric.update_state(np.array([[1, 2, 0]]), np.array([[[0.5, 0.5, 0.0], [0.2, 0.2, 0.6], [1.0, 0.0, 0.0]]]))
    assert float(metric.result()) == pytest.approx(math.exp(-(math.log(0.5) + math.log(0.6)) / 2), rel=1e-6)
    metric.reset_state()
    assert float(metric.result()) == 0.0
    model = tfkit.Sequential([tfkit.Input((4,), dtype="int32"), tfkit.layers.Embedding(7, 7)])
    model.compile("adam", tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=[metric])
    history = model.fit(LABELS[:, :4], LABELS[:, :4], epochs=2, verbose=0)
    assert history.history["perplexity"][-1] > 1.0


def test_edit_distance_as_kerashubs():
    batches = [
        ([["the", "cat", "sat"], ["a", "b"]], [["the", "hat", "sat", "down"], ["a"]]),
        (["x", "y", "z"], ["x", "z"]),
        (np.array([[1, 2, 3, 0], [4, 5, 0, 0]]), np.array([[1, 3, 3, 0], [4, 0, 0, 0]])),
    ]
    for normalize in (True, False):
        ours, theirs = _both("EditDistance", normalize=normalize)
        for truth, hypothesis in batches:
            ours.update_state(truth, hypothesis)
            theirs.update_state(truth, hypothesis)
        np.testing.assert_allclose(float(ours.result()), float(theirs.result()), rtol=1e-6)
    wer = tk_metrics.EditDistance()
    wer.update_state([["a", "b", "c", "d"]], [["a", "x", "c"]])
    assert float(wer.result()) == 0.5  # a substitution and a deletion over four words
    with pytest.raises(ValueError, match="y_true must be of rank 1 or 2"):
        wer.update_state(np.zeros((1, 1, 1)), np.zeros((1, 1)))


REFERENCES = [
    ["the cat sat on the mat", "a cat was sitting on the mat"],
    ['He said: "hello, world" 3.5 times.', "he said hello world"],
]
TRANSLATIONS = ["the cat sat on a mat", "He said: hello world 3.5 times."]


@pytest.mark.parametrize("kwargs", [{}, {"max_order": 2}, {"smooth": True}])
def test_bleu_as_kerashubs(kwargs):
    ours, theirs = _both("Bleu", **kwargs)
    for metric in (ours, theirs):
        metric.update_state(REFERENCES, TRANSLATIONS)
        metric.update_state([["x y z w"]], ["x y z"])
    np.testing.assert_allclose(float(ours.result()), float(theirs.result()), rtol=1e-6)


def test_bleu_by_hand():
    bleu = tk_metrics.Bleu(max_order=1)
    bleu.update_state([["a b c d"]], ["a b x"])  # unigram precision 2/3, brevity penalty exp(1 - 4/3)
    assert float(bleu.result()) == pytest.approx(2 / 3 * math.exp(1 - 4 / 3), rel=1e-6)
    with pytest.raises(ValueError, match="last dimension must be of size 1"):
        bleu.update_state([[["a"], ["b"]]], [["a", "b"]])


SUMMARIES = ["The quick brown fox jumps over the lazy dog.", "Running runners ran quickly, happily!"]
PREDICTIONS = ["the quick fox jumped over a lazy dog", "runner running quickly and happily"]


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("RougeN", {}),
        ("RougeN", {"order": 1}),
        ("RougeN", {"order": 3, "use_stemmer": True}),
        ("RougeL", {}),
        ("RougeL", {"use_stemmer": True}),
    ],
)
def test_rouge_as_kerashubs(name, kwargs):
    pytest.importorskip("rouge_score")
    ours, theirs = _both(name, **kwargs)
    for metric in (ours, theirs):
        metric.update_state(SUMMARIES, PREDICTIONS)
        metric.update_state(SUMMARIES[:1], SUMMARIES[:1])
    ours_result, theirs_result = ours.result(), theirs.result()
    assert sorted(ours_result) == sorted(theirs_result) == ["f1_score", "precision", "recall"]
    for key in ours_result:
        np.testing.assert_allclose(float(ours_result[key]), float(theirs_result[key]), rtol=1e-6)
    assert ours.get_config() == theirs.get_config()


def test_rouge_by_hand_and_its_errors():
    rouge = tk_metrics.RougeL()
    rouge.update_state(["a b c d"], ["a c d e f"])  # common subsequence a c d: precision 3/5, recall 3/4
    result = {key: float(value) for key, value in rouge.result().items()}
    assert result["precision"] == pytest.approx(0.6) and result["recall"] == pytest.approx(0.75)
    assert result["f1_score"] == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    with pytest.raises(ValueError, match="Should lie in the range"):
        tk_metrics.RougeN(order=10)
    with pytest.raises(ValueError, match="floating point"):
        tk_metrics.RougeL(dtype="int32")
