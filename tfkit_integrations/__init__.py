"""Adapters that let tools built for Keras drive tfkit models.

    from tfkit_integrations.keras_tuner import RandomSearch     # keras-tuner's tuners, building tfkit models
    import tfkit_integrations.mlflow; tfkit_integrations.mlflow.autolog()   # mlflow.keras.autolog for tfkit

tfkit itself never imports Keras or the tools built on it. Most of Keras's
world needs no adapter: callbacks written for Keras (TensorBoard's HParams,
Optuna's pruning, W&B's and MLflow's loggers) run in `tfkit.Model.fit` as they
are, and tf2onnx converts tfkit models. Two tools cannot be reached that way:
keras-tuner checks `isinstance(model, keras.Model)` and MLflow's autologging
patches `keras.Model.fit`. The modules here give them a route; each imports its
tool (and so Keras) when it is imported, never before, and nothing in `tfkit`
imports this package.
"""
