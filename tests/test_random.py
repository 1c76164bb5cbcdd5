"""tfkit.random: seeds that advance eagerly, in tf.function and under XLA; the draws themselves."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import random as tfkit_random
from tfkit.base import variable_roles
from tfkit.random import SeedGenerator

MODES = {
    "eager": lambda fn: fn,
    "tf_function": lambda fn: tf.function(fn),
    "xla": lambda fn: tf.function(fn, jit_compile=True),
}

# ------------------------------------------------------------ SeedGenerator


def test_seed_generator_state_variable():
    gen = SeedGenerator(1337)
    assert isinstance(gen, tf.Module) and not isinstance(gen, tfkit.Layer)
    assert variable_roles.is_state_owner(gen)  # its variables are state, never trained
    assert gen.state.dtype == tf.int64 and gen.state.shape == (2,)
    assert not gen.state.trainable
    assert gen.state.aggregation == tf.VariableAggregation.ONLY_FIRST_REPLICA
    np.testing.assert_array_equal(gen.state.numpy(), [1337, 0])
    np.testing.assert_array_equal(gen.next().numpy(), [1337, 0])
    np.testing.assert_array_equal(gen.next().numpy(), [1337, 1])
    np.testing.assert_array_equal(gen.state.numpy(), [1337, 2])
    assert gen.get_config() == {"seed": 1337}
    assert SeedGenerator.from_config(gen.get_config()).state.numpy().tolist() == [1337, 0]


def test_seed_generator_without_seed_starts_somewhere_random():
    assert SeedGenerator().get_config() == {"seed": None}
    assert SeedGenerator().state.numpy()[0] != SeedGenerator().state.numpy()[0]


def test_seed_generator_rejects_non_int_seeds():
    with pytest.raises(ValueError, match="seed to be an int or None"):
        SeedGenerator(1.5)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_generator_draws_new_numbers_per_call_and_replays_from_its_seed(mode):
    def first_two_draws():
        gen = SeedGenerator(1337)
        draw = MODES[mode](lambda: tfkit_random.normal((8,), seed=gen))
        return draw().numpy(), draw().numpy()

    first, second = first_two_draws()
    assert not np.allclose(first, second)  # each call (of the same compiled function) is new
    replay_first, replay_second = first_two_draws()
    np.testing.assert_array_equal(first, replay_first)  # a fresh generator replays the sequence
    np.testing.assert_array_equal(second, replay_second)


def test_generator_created_inside_tf_function_is_lifted_out():
    holder = []

    @tf.function
    def draw():
        if not holder:
            holder.append(SeedGenerator(3))
        return tfkit_random.uniform((4,), seed=holder[0])

    first, second = draw().numpy(), draw().numpy()
    assert not np.allclose(first, second)
    np.testing.assert_array_equal(holder[0].state.numpy(), [3, 2])


def test_state_is_checkpointed_and_restores_the_sequence(tmp_path):
    gen = SeedGenerator(5)
    tfkit_random.normal((3,), seed=gen)
    path = tf.train.Checkpoint(gen=gen).save(str(tmp_path / "ckpt"))
    expected = tfkit_random.normal((3,), seed=gen).numpy()
    restored = SeedGenerator(999)
    tf.train.Checkpoint(gen=restored).restore(path).assert_consumed()
    np.testing.assert_array_equal(tfkit_random.normal((3,), seed=restored).numpy(), expected)


def test_layer_keeps_generator_state_out_of_its_weights():
    class NoisyLayer(tfkit.Layer):
        def __init__(self):
            super().__init__()
            self.seed_generator = SeedGenerator(1337)

        def call(self, inputs):
            return inputs + tfkit_random.normal(tf.shape(inputs), seed=self.seed_generator)

    layer = NoisyLayer()
    x = tf.zeros((2, 3))
    assert not np.allclose(layer(x).numpy(), layer(x).numpy())
    assert layer.weights == []
    assert any(v is layer.seed_generator.state for v in layer.variables)


def test_generator_advances_under_a_distribution_strategy_replica_context():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        gen = SeedGenerator(11)

    @tf.function
    def step():
        return strategy.run(lambda: tfkit_random.normal((2,), seed=gen))

    first = strategy.experimental_local_results(step())[0].numpy()
    second = strategy.experimental_local_results(step())[0].numpy()
    assert not np.allclose(first, second)
    np.testing.assert_array_equal(gen.state.numpy(), [11, 2])


# ------------------------------------------------------------ seed arguments


def test_int_seed_repeats_like_keras():
    np.testing.assert_array_equal(tfkit_random.normal((5,), seed=7).numpy(), tfkit_random.normal((5,), seed=7).numpy())
    assert not np.allclose(tfkit_random.normal((5,), seed=7).numpy(), tfkit_random.normal((5,), seed=8).numpy())


@pytest.mark.parametrize("mode", sorted(MODES))
def test_no_seed_uses_the_default_generator_and_draws_fresh_numbers(mode):
    draw = MODES[mode](lambda: tfkit_random.uniform((6,)))
    assert not np.allclose(draw().numpy(), draw().numpy())
    assert isinstance(tfkit_random.default_seed_generator(), SeedGenerator)
    assert tfkit_random.default_seed_generator() is tfkit_random.default_seed_generator()


def test_bad_seed_raises():
    with pytest.raises(ValueError, match="seed must be"):
        tfkit_random.normal((2,), seed="abc")


# ------------------------------------------------------------ distributions

N = 40000


def test_normal_statistics_and_dtypes():
    values = tfkit_random.normal((N,), mean=2.0, stddev=0.5, seed=1)
    assert values.dtype == tf.float32
    assert values.numpy().mean() == pytest.approx(2.0, abs=0.01)
    assert values.numpy().std() == pytest.approx(0.5, rel=0.03)
    assert tfkit_random.normal((2,), dtype="float64", seed=1).dtype == tf.float64


def test_uniform_bounds_and_float_only():
    values = tfkit_random.uniform((N,), minval=-2.0, maxval=4.0, seed=2).numpy()
    assert values.min() >= -2.0 and values.max() < 4.0
    assert values.mean() == pytest.approx(1.0, abs=0.05)
    with pytest.raises(ValueError, match="floating dtype"):
        tfkit_random.uniform((2,), dtype="int32")


def test_truncated_normal_stays_within_two_stddev():
    values = tfkit_random.truncated_normal((N,), mean=1.0, stddev=0.5, seed=3).numpy()
    assert values.min() >= 0.0 - 1e-6 and values.max() <= 2.0 + 1e-6
    assert values.std() == pytest.approx(0.5 * 0.8796, rel=0.03)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint8"])
def test_randint_bounds_and_dtype(dtype):
    values = tfkit_random.randint((N,), minval=3, maxval=9, dtype=dtype, seed=4)
    assert values.dtype == tf.as_dtype(dtype)
    assert set(np.unique(values.numpy()).tolist()) == set(range(3, 9))
    with pytest.raises(ValueError, match="integer dtype"):
        tfkit_random.randint((2,), 0, 3, dtype="float32")


def test_categorical_follows_the_probabilities():
    probabilities = np.array([[0.2, 0.8], [0.9, 0.1]])
    samples = tfkit_random.categorical(np.log(probabilities), num_samples=N // 4, seed=5)
    assert samples.shape == (2, N // 4) and samples.dtype == tf.int32
    np.testing.assert_allclose(samples.numpy().mean(axis=1), [0.8, 0.1], atol=0.02)
    assert tfkit_random.categorical(tf.zeros((1, 3)), 4, dtype="int64", seed=5).dtype == tf.int64
    with pytest.raises(ValueError, match="2-D logits"):
        tfkit_random.categorical(tf.zeros((3,)), 2)


SEED_GENERATOR = SeedGenerator(21)


def test_shape_may_hold_scalar_tensors_as_in_the_guide():
    @tf.function(input_signature=[tf.TensorSpec((None, None))])
    def sample_like(z):
        batch, dim = tf.shape(z)[0], tf.shape(z)[1]
        return tfkit_random.normal(shape=(batch, dim), seed=SEED_GENERATOR)

    assert sample_like(tf.zeros((3, 5))).shape == (3, 5)
    assert tfkit_random.uniform(tf.constant([2, 4]), seed=1).shape == (2, 4)
    assert tfkit_random.normal(tf.TensorShape([2, 3]), seed=1).shape == (2, 3)


# ------------------------------------------------------------------ dropout


def test_dropout_rate_and_inverted_scaling():
    rate = 0.3
    out = tfkit_random.dropout(tf.ones((200, 200)), rate=rate, seed=6).numpy()
    kept = out[out != 0]
    np.testing.assert_allclose(kept, 1.0 / (1.0 - rate), rtol=1e-6)
    assert (out == 0).mean() == pytest.approx(rate, abs=0.01)
    assert out.mean() == pytest.approx(1.0, abs=0.02)


def test_dropout_zero_rate_is_identity_and_bad_rates_raise():
    x = tf.random.normal((4, 4))
    np.testing.assert_array_equal(tfkit_random.dropout(x, rate=0.0, seed=1).numpy(), x.numpy())
    for rate in (1.0, -0.1):
        with pytest.raises(ValueError, match=r"rate in \[0, 1\)"):
            tfkit_random.dropout(x, rate=rate)


def test_dropout_noise_shape_shares_decisions():
    out = tfkit_random.dropout(tf.ones((50, 8)), rate=0.5, noise_shape=(None, 1), seed=7).numpy()
    assert (out == out[:, :1]).all()  # one decision per row
    assert 0 < (out[:, 0] == 0).sum() < 50
    with pytest.raises(ValueError, match="one entry per input dimension"):
        tfkit_random.dropout(tf.ones((2, 3)), rate=0.5, noise_shape=(1,))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_dropout_with_a_generator_changes_its_mask_per_call(mode):
    gen = SeedGenerator(1337)
    step = MODES[mode](lambda x: tfkit_random.dropout(x, rate=0.5, seed=gen))
    x = tf.ones((16, 16))
    assert not np.array_equal(step(x).numpy(), step(x).numpy())


# ------------------------------------------------------------------ shuffle


def test_shuffle_is_a_permutation():
    x = tf.range(100)
    shuffled = tfkit_random.shuffle(x, seed=8).numpy()
    assert sorted(shuffled.tolist()) == list(range(100))
    assert shuffled.tolist() != list(range(100))
    np.testing.assert_array_equal(shuffled, tfkit_random.shuffle(x, seed=8).numpy())
    assert tfkit_random.shuffle(x, seed=9).numpy().tolist() != shuffled.tolist()


@pytest.mark.parametrize("axis", [1, -1])
def test_shuffle_along_an_axis_moves_whole_slices(axis):
    x = np.arange(4 * 30).reshape(4, 30)
    shuffled = tfkit_random.shuffle(x, axis=axis, seed=10).numpy()
    order = shuffled[0]
    assert sorted(order.tolist()) == list(range(30)) and order.tolist() != list(range(30))
    np.testing.assert_array_equal(shuffled, x[:, order])


# ------------------------------------------------------------ the algorithm under XLA


def _op_types(fn):
    graph = fn.get_concrete_function().graph
    types = {op.type for op in graph.get_operations()}
    for function in graph.as_graph_def().library.function:
        types |= {node.op for node in function.node_def}
    return types


def test_draws_name_philox_under_xla_and_keep_tensorflows_default_elsewhere():
    seen = {}

    def draws():
        seen["algorithm"] = tfkit_random.algorithm()
        return (
            tfkit_random.normal((4, 3), seed=7),
            tfkit_random.uniform((5,), seed=7),
            tfkit_random.dropout(tf.ones((8, 8)), 0.5, seed=7),
        )

    xla = tf.function(draws, jit_compile=True)
    xla()
    assert seen["algorithm"] == "philox"
    assert "StatelessRandomGetKeyCounter" not in _op_types(xla)  # the op whose XLA kernel is slow on CPUs
    plain = tf.function(draws)
    eager = draws()
    assert seen["algorithm"] == "auto_select"
    for ours, default in zip([t.numpy() for t in plain()], [t.numpy() for t in eager]):
        np.testing.assert_array_equal(ours, default)
    np.testing.assert_array_equal(eager[0], tf.random.stateless_normal((4, 3), seed=[7, 0]))  # Keras's draw
