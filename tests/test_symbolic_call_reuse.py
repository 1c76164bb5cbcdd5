"""Symbolic calls that need no trace: a functional model on inputs like its own, and blocks whose masks
never change their output's shape. Both made `from_preset` trace every block twice (1.1 s of a 2.5 s load).
"""

from __future__ import annotations

import numpy as np

import tfkit
import tfkit.hub as tk_hub


class CountingDense(tfkit.layers.Dense):
    calls = 0

    def call(self, inputs):
        type(self).calls += 1
        return super().call(inputs)


def test_a_functional_model_on_inputs_like_its_own_reuses_its_outputs_without_a_trace():
    inputs = {"a": tfkit.Input((3,), name="a"), "b": tfkit.Input((2,), dtype="int32", name="b")}
    hidden = CountingDense(4)(inputs["a"])
    inner = tfkit.Model(inputs, [hidden, tfkit.layers.Identity()(inputs["b"])])
    before = CountingDense.calls
    new_inputs = {"a": tfkit.Input((3,), name="a2"), "b": tfkit.Input((2,), dtype="int32", name="b2")}
    first, second = inner(new_inputs)
    assert CountingDense.calls == before  # no trace
    assert (first.shape, first.dtype.name, second.shape, second.dtype.name) == (
        (None, 4),
        "float32",
        (None, 2),
        "int32",
    )
    outer = tfkit.Model(new_inputs, first)
    data = {"a": np.ones((2, 3), "float32"), "b": np.ones((2, 2), "int32")}
    np.testing.assert_allclose(np.asarray(outer(data)), np.asarray(inner(data)[0]))


def test_other_inputs_are_still_traced():
    x = tfkit.Input((3,))
    inner = tfkit.Model(x, CountingDense(4)(x))
    before = CountingDense.calls
    assert inner(tfkit.Input((3,), dtype="float64")).shape == (None, 4)  # another dtype: traced (cast)
    assert CountingDense.calls == before + 1
    assert inner(tfkit.Input((3,), batch_size=2)).shape == (2, 4)  # another shape: traced
    assert CountingDense.calls == before + 2


def test_decoder_blocks_infer_their_shape_with_a_padding_mask(monkeypatch):
    traced = []
    block_class = (
        tk_hub.models.Llama3Backbone(
            vocabulary_size=11, num_layers=1, num_query_heads=2, num_key_value_heads=1, hidden_dim=4, intermediate_dim=8
        )
        .transformer_layers[0]
        .__class__
    )
    original = block_class.call
    monkeypatch.setattr(block_class, "call", lambda self, *a, **k: traced.append(self.name) or original(self, *a, **k))
    backbone = tk_hub.models.Llama3Backbone(
        vocabulary_size=11, num_layers=2, num_query_heads=2, num_key_value_heads=1, hidden_dim=4, intermediate_dim=8
    )
    assert traced == []  # built from their compute_output_shape, not traced
    ids = np.array([[1, 2, 3, 0]])
    outputs = backbone({"token_ids": ids, "padding_mask": ids > 0})
    assert outputs.shape == (1, 4, 4) and len(traced) == 2
    # the padding mask still reaches the blocks: a padded position cannot change the others' outputs
    other = backbone({"token_ids": np.array([[1, 2, 3, 7]]), "padding_mask": ids > 0})
    np.testing.assert_allclose(np.asarray(outputs)[:, :3], np.asarray(other)[:, :3], atol=1e-6)
