"""The training engine: compiled multi-step loops behind ``fit``, ``evaluate`` and ``predict``.

    trainer = Trainer(model, optimizer="adam", loss="mse")     # what Model.compile makes
    trainer.fit(x, y, epochs=2)

``trainer`` runs epochs and callbacks, ``steps`` compiles the step loops,
``compile_utils`` holds the compiled losses and metrics, ``data`` and its
helpers adapt what users pass, ``fit_arguments`` checks it, and
``distribute`` schedules steps under ``ParameterServerStrategy``.
"""
