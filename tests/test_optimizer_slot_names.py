"""Optimizer slots are named the same whether fit builds them inside its compiled loop or the user builds them."""

import numpy as np

import tfkit


def _model():
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, name="dense")])
    model.compile(tfkit.optimizers.Adam(1e-3), "mse")
    return model


def test_slots_built_inside_fit_carry_no_loop_scope():
    model = _model()
    model.fit(np.ones((16, 3)), np.ones((16, 2)), batch_size=8, epochs=1, verbose=0)
    names = [variable.name for variable in model.optimizer.variables]
    assert names == [
        "iteration:0",
        "learning_rate:0",
        "dense_kernel_momentum:0",
        "dense_kernel_velocity:0",
        "dense_bias_momentum:0",
        "dense_bias_velocity:0",
    ]


def test_slots_built_by_hand_have_the_same_names():
    fitted, built = _model(), _model()
    fitted.fit(np.ones((16, 3)), np.ones((16, 2)), batch_size=8, epochs=1, verbose=0)
    built.optimizer.build(built.trainable_variables)
    assert [v.name for v in built.optimizer.variables] == [v.name for v in fitted.optimizer.variables]
