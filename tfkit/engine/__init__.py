"""The ``Layer`` core: a ``tf.Module`` with weights, calls, masks, losses and configs.

    from tfkit.engine.layer import Layer
    from tfkit.engine.functional_graph import Input, FunctionalGraph

``layer`` is the class; its separately testable parts are ``tracking``
(weights by path), ``call_context`` (training and mask propagation),
``config_capture`` (constructor arguments as a config), ``masking``,
``input_spec``, ``variable_options``, ``autocast``, ``autograph`` and
``summary``. ``functional_graph`` records symbolic calls into a graph;
``serialization`` turns any registered object into plain data and back.
"""
