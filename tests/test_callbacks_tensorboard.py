"""TensorBoard: the event files are read back and their tags and values checked."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf
from test_callbacks import FakeModel, simulate_fit

from tfkit import callbacks as cb


class PathModel(FakeModel):
    """A fake model with a traced train function and weights addressed by path."""

    def __init__(self) -> None:
        super().__init__(learning_rate=0.125)
        self.bias = tf.Variable([[0.5, -0.5, 0.25]])

        @tf.function
        def train_function(step):
            self.kernel.assign_add(step)
            return tf.reduce_sum(self.kernel)

        train_function(tf.ones(2))
        self.train_function = train_function

    def weight_paths(self) -> dict[str, tf.Variable]:
        return {"dense/kernel": self.kernel, "dense/bias": self.bias}


def read_events(directory: str) -> list:
    events = []
    for name in sorted(os.listdir(directory)):
        if "tfevents" in name:
            records = tf.data.TFRecordDataset(os.path.join(directory, name))
            events.extend(tf.compat.v1.Event.FromString(record.numpy()) for record in records)
    return events


def scalars(events) -> dict[str, list[tuple[int, float]]]:
    found: dict[str, list[tuple[int, float]]] = {}
    for event in events:
        for value in event.summary.value:
            if value.metadata.plugin_data.plugin_name == "scalars":
                found.setdefault(value.tag, []).append((event.step, float(tf.make_ndarray(value.tensor))))
    return found


def tags_of_plugin(events, plugin: str) -> set[str]:
    return {v.tag for e in events for v in e.summary.value if v.metadata.plugin_data.plugin_name == plugin}


EPOCH_LOGS = [{"loss": 0.5, "val_loss": 0.75}, {"loss": 0.25, "val_loss": 0.5}]


def test_epoch_scalars_learning_rate_histograms_and_graph(tmp_path):
    board = cb.TensorBoard(log_dir=tmp_path, histogram_freq=1)
    assert not board._implements_train_batch_hooks()  # the default update_freq="epoch" needs no batch hooks
    simulate_fit(PathModel(), [board], epochs=2, steps=4, epoch_logs=EPOCH_LOGS)

    train = read_events(str(tmp_path / "train"))
    validation = read_events(str(tmp_path / "validation"))
    train_scalars = scalars(train)
    assert train_scalars["epoch_loss"] == [(0, 0.5), (1, 0.25)]
    assert train_scalars["epoch_learning_rate"] == [(0, 0.125), (1, 0.125)]
    assert not any(tag.startswith("batch_") for tag in train_scalars)
    val_scalars = scalars(validation)
    assert val_scalars["epoch_loss"] == [(0, 0.75), (1, 0.5)]
    # on_test_end logs against optimizer iterations: 4 steps per epoch.
    assert val_scalars["evaluation_loss_vs_iterations"] == [(4, 0.75), (8, 0.5)]
    assert tags_of_plugin(train, "histograms") == {"dense/kernel/histogram", "dense/bias/histogram"}
    graphs = [e.graph_def for e in train if e.graph_def]
    assert len(graphs) == 1
    graph = tf.compat.v1.GraphDef.FromString(graphs[0])
    assert any(node.op == "AssignAddVariableOp" for node in graph.node)


def test_batch_scalars_every_n_batches_and_images(tmp_path):
    board = cb.TensorBoard(
        log_dir=str(tmp_path), histogram_freq=2, update_freq=3, write_images=True, write_steps_per_second=True
    )
    assert board._implements_train_batch_hooks()
    logs = [{"loss": 0.5}, {"loss": 0.25}, {"loss": 0.125}]
    simulate_fit(PathModel(), [board], epochs=3, steps=4, epoch_logs=logs)
    train = read_events(str(tmp_path / "train"))
    train_scalars = scalars(train)
    # 12 batches over the run, a write every third one; batch logs carry the epoch's loss.
    assert train_scalars["batch_loss"] == [(3, 0.5), (6, 0.25), (9, 0.125), (12, 0.125)]
    assert [step for step, _ in train_scalars["epoch_steps_per_second"]] == [0, 1, 2]
    assert all(value > 0 for _, value in train_scalars["epoch_steps_per_second"])
    histogram_steps = sorted({e.step for e in train for v in e.summary.value if v.tag.endswith("/histogram")})
    assert histogram_steps == [0, 2]
    assert tags_of_plugin(train, "images") == {"dense/kernel/image", "dense/bias/image"}
    assert not os.path.exists(tmp_path / "validation")  # no validation logs, no writer


def test_update_freq_batch_means_every_batch(tmp_path):
    board = cb.TensorBoard(log_dir=str(tmp_path), update_freq="batch", write_graph=False)
    simulate_fit(PathModel(), [board], epochs=1, steps=3, epoch_logs=[{"loss": 2.0}])
    train = read_events(str(tmp_path / "train"))
    assert scalars(train)["batch_loss"] == [(1, 2.0), (2, 2.0), (3, 2.0)]
    assert not any(e.graph_def for e in train)


def test_no_graph_until_the_train_function_exists(tmp_path):
    model = FakeModel()  # train_function is None
    board = cb.TensorBoard(log_dir=str(tmp_path))
    simulate_fit(model, [board], epochs=1, epoch_logs=[{"loss": 1.0}])
    assert not any(e.graph_def for e in read_events(str(tmp_path / "train")))
    assert board._graph_pending


def test_profiler_runs_for_the_requested_batches(tmp_path):
    board = cb.TensorBoard(log_dir=str(tmp_path), profile_batch=(2, 3), write_graph=False)
    assert board._implements_train_batch_hooks()
    simulate_fit(PathModel(), [board], epochs=1, steps=4, epoch_logs=[{"loss": 1.0}])
    assert board._profile_done and not board._profiling
    assert not board._implements_train_batch_hooks()
    profile_dir = tmp_path / "train" / "plugins" / "profile"
    assert profile_dir.is_dir() and any(profile_dir.iterdir())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"update_freq": "step"}, "update_freq must be 'epoch', 'batch' or a positive integer; got 'step'"),
        ({"update_freq": 0}, "update_freq must be"),
        ({"profile_batch": (5, 2)}, "profile_batch must be a non-negative integer"),
        ({"profile_batch": "a,b"}, "profile_batch must be"),
    ],
)
def test_bad_arguments_are_reported(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cb.TensorBoard(**kwargs)


def test_profile_batch_string_forms():
    assert cb.TensorBoard(profile_batch="3,5")._profile_start == 3
    assert (cb.TensorBoard(profile_batch="4")._profile_start, cb.TensorBoard(profile_batch="4")._profile_stop) == (4, 4)
    assert np.isclose(cb.TensorBoard()._profile_stop, 0)


# ---------------------------------------------------------------------------
# The summary writers behind TensorBoard (core TensorFlow only)
# ---------------------------------------------------------------------------


def test_histogram_buckets_cover_the_values():
    from tfkit.callbacks.summary_writing import histogram_buckets

    buckets = histogram_buckets(np.arange(10.0))
    assert buckets.shape == (30, 3)
    assert buckets[0, 0] == 0.0 and buckets[-1, 1] == 9.0 and buckets[:, 2].sum() == 10
    np.testing.assert_allclose(buckets[1:, 0], buckets[:-1, 1])
    constant = histogram_buckets([2.0, 2.0, np.nan])
    assert constant[0, 0] == 1.5 and constant[-1, 1] == 2.5 and constant[:, 2].sum() == 2
    assert histogram_buckets([]).shape == (0, 3)


def test_images_round_trip_through_the_event_file(tmp_path):
    from tfkit.callbacks.summary_writing import write_images

    image = np.array([[[0.0], [0.5], [1.0]], [[1.0], [0.5], [0.0]]])[None]  # 1 x 2 x 3 x 1
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert write_images("w/image", image, step=4)
    writer.close()
    (value,) = [v for e in read_events(str(tmp_path)) for v in e.summary.value]
    assert value.metadata.plugin_data.plugin_name == "images"
    width, height, png = tf.make_ndarray(value.tensor)
    assert (width, height) == (b"3", b"2")
    np.testing.assert_array_equal(tf.io.decode_png(png).numpy()[..., 0], [[0, 128, 255], [255, 128, 0]])
    with pytest.raises(ValueError, match="expects \\[k, height, width, 1\\|3\\|4\\] images; got shape \\(2, 3\\)"):
        write_images("bad", np.zeros((2, 3)), step=0)


def test_embeddings_freq_writes_a_projector_config_and_checkpoint(tmp_path):
    import numpy as np
    import tensorflow as tf

    import tfkit

    model = tfkit.Sequential(
        [
            tfkit.Input((3,), dtype="int32"),
            tfkit.layers.Embedding(10, 4, name="words"),
            tfkit.layers.GlobalAveragePooling1D(),
            tfkit.layers.Dense(1),
        ]
    )
    model.compile("sgd", "mse")
    callback = tfkit.callbacks.TensorBoard(str(tmp_path), embeddings_freq=1, embeddings_metadata={"words": "w.tsv"})
    model.fit(np.ones((4, 3), "int32"), np.zeros((4, 1), "float32"), epochs=2, verbose=0, callbacks=[callback])
    config = (tmp_path / "train" / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "layer_0_words/.ATTRIBUTES/VARIABLE_VALUE"' in config and 'metadata_path: "w.tsv"' in config
    reader = tf.train.load_checkpoint(str(tmp_path / "train" / "keras_embedding.ckpt-1"))
    np.testing.assert_array_equal(
        reader.get_tensor("layer_0_words/.ATTRIBUTES/VARIABLE_VALUE"), model.layers[0].embeddings.numpy()
    )
