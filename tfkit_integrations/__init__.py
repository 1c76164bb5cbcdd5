"""Adapters that let tools built for Keras drive tfkit models.

    from tfkit_integrations.keras_tuner import RandomSearch     # keras-tuner's tuners, building tfkit models
    import tfkit_integrations.mlflow; tfkit_integrations.mlflow.autolog()   # mlflow.keras.autolog for tfkit
    from tfkit_integrations.shap import for_shap; shap.DeepExplainer(for_shap(model), background)

tfkit itself never imports Keras or the tools built on it. Most of Keras's
world needs no adapter: callbacks written for Keras (TensorBoard's HParams,
Optuna's pruning, W&B's and MLflow's loggers) run in `tfkit.Model.fit` as they
are, and tf2onnx converts tfkit models. Three tools cannot be reached that way:
keras-tuner checks `isinstance(model, keras.Model)`, MLflow's autologging
patches `keras.Model.fit`, and SHAP's `GradientExplainer` and `DeepExplainer`
accept only a `tf.keras.Model`. The modules here give them a route; each imports
its tool (or Keras, for SHAP) when it is imported, never before, and nothing in
`tfkit` imports this package.
"""
