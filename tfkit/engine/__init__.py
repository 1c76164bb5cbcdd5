"""The ``Layer`` core: a ``tf.Module`` with weights, calls, masks, losses and configs.

    from tfkit.engine.layer import Layer
    from tfkit.engine.functional_graph import Input, FunctionalGraph

``layer`` is the class; its separately testable parts are ``layer_state``
(its state behind accessors), ``layer_weights`` (weight lists, counts and
NumPy values), ``layer_removed`` (methods Keras 3 removed, each saying what to use instead),
``tracking`` (weights by path), ``call_context`` (training and mask
propagation), ``call_signature``, ``config_capture`` (constructor arguments as
a config), ``masking``, ``input_spec``, ``variable`` and ``variable_options``,
``autocast``, ``autograph``, ``naming``, ``scopes`` and ``summary``.
``functional_graph`` records symbolic calls into a graph and
``shape_inference`` answers them without a trace; ``config_serialization``
turns any registered object into plain data and back, ``config_safety`` and
``config_cost`` check a config before it is rebuilt.
"""
