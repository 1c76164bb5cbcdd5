"""The examples users copy from run and print what the guide prints."""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import time_limits
from long_checks import LONG_RUN

import tfkit
from tfkit import layers

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_guide_walkthrough_prints_what_the_guide_shows():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "guide_walkthrough.py")],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(600),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    for expected in [
        "[2. 2.]\n[4. 4.]",
        "weights: 1\nnon-trainable weights: 1\ntrainable_weights: []",
        "weights: 6\ntrainable weights: 6",
        "{'units': 64}",
        "{'name': 'linear_7', 'trainable': True, 'dtype': 'float32', 'units': 64}",
        "dropout at inference is the identity: True",
    ]:
        assert expected in out
    assert re.search(r"\[<tf.Tensor: shape=\(\), dtype=float32, numpy=0\.00\d+>\]", out)
    assert len(re.findall(r"1/1 ━{20} \d+m?s \d+(us|ms|s)/step - loss: \d\.\d{4}", out)) == 2
    assert "Epoch 2/2" in out and "resnet layers: ['res_net_block', 'res_net_block_1'" in out


def _small_cnn_accuracy(train_images: int) -> float:
    """Test accuracy of a small CNN trained 2 epochs on the first ``train_images`` MNIST digits (seeded)."""
    (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    x_train = x_train[:train_images, ..., None].astype("float32") / 255
    y_train = y_train[:train_images]
    x_test = x_test[..., None].astype("float32") / 255
    tfkit.utils.set_random_seed(0)  # the shuffling order too: 97.9% was seen with another order
    seeded = tfkit.initializers.GlorotUniform  # fixed initial weights: the accuracy check is not a lottery
    model = tfkit.Sequential(
        [
            tfkit.Input((28, 28, 1)),
            layers.Conv2D(32, 3, activation="relu", kernel_initializer=seeded(seed=1)),
            layers.MaxPooling2D(2),
            layers.Conv2D(64, 3, activation="relu", kernel_initializer=seeded(seed=2)),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(10, kernel_initializer=seeded(seed=3)),
        ]
    )
    model.compile(
        tfkit.optimizers.Adam(1e-3), tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"]
    )
    model.fit(x_train, y_train, batch_size=128, epochs=2, verbose=0)
    result = model.evaluate(x_test, y_test, return_dict=True, verbose=0)
    predicted = model.predict(x_test, verbose=0).argmax(axis=1)
    np.testing.assert_allclose(result["accuracy"], (predicted == y_test).mean(), atol=1e-6)
    return result["accuracy"]


@pytest.mark.slow
def test_small_cnn_reaches_96_percent_on_a_quarter_of_mnist_in_2_epochs():
    """A quarter of the training digits (11 s): 96.5% measured, 96.2-96.5% over three seeds."""
    assert _small_cnn_accuracy(15_000) >= 0.96


@pytest.mark.skipif(not LONG_RUN, reason="2 minutes: run with TFKIT_LONG_TESTS=1")
def test_small_cnn_reaches_98_percent_on_mnist_in_2_epochs():
    """All 60,000 training digits (about 2 minutes on 2 cores): at least 98% with this seed.

    Kept on request only since issue 36: it was the suite's longest test, and 97.9% was once seen with
    an unseeded shuffle. The quarter-MNIST test above checks the same model in the default suite.
    """
    assert _small_cnn_accuracy(60_000) >= 0.98


@pytest.mark.slow
def test_vae_main_job_trains_below_the_guide_loss_saves_and_serves(tmp_path):
    """The README's main command, end to end: 2 epochs, batch 64, Adam(1e-3), MSE on MNIST."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import vae_mnist
    finally:
        sys.path.pop(0)
    result = vae_mnist.main(
        ["--model-file", str(tmp_path / "vae.h5"), "--export-dir", str(tmp_path / "models" / "vae")]
    )
    losses = result["history"].history["loss"]
    assert len(losses) == 2 and losses[1] <= 0.072  # Keras 3 reaches 0.0676 on the same data and settings
    assert result["report"]["ok"]
    assert (tmp_path / "vae.h5").exists() and (tmp_path / "models" / "vae" / "1" / "saved_model.pb").exists()
