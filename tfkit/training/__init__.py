"""The training engine: what ``Model`` inherits to ``compile``, ``fit``, ``evaluate`` and ``predict``.

    class Model(Trainer, Layer): ...                 # tfkit.models.Model: a model is its own trainer
    model.compile(optimizer="adam", loss="mse")      # StepMethods.compile -> model._compiled (a CompiledState)
    model.fit(x, y, epochs=2)                        # Trainer.fit: arguments, data, epochs, callbacks

``trainer`` holds the loops' flow (``Trainer``), ``compile_and_steps`` ``compile`` and
the overridable steps, ``compiled_state`` what ``compile`` made, ``compile_serialization``
the compile arguments as plain data, ``epochs`` runs one epoch in compiled chunks,
``compiled_loops`` compiles the multi-step loops, ``loss_and_metric_containers``
holds the compiled losses and metrics, ``data`` and its helpers adapt (and
``data_checks`` and ``finite_inputs`` check) what users pass, ``fit_arguments`` checks the counts and
explains failed steps, and ``distributed_loops`` runs steps under ``ParameterServerStrategy``
and a ``tfkit.distribution``.
"""
