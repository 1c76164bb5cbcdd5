"""The bottom of tfkit: modules that import nothing else of it.

    from tfkit.base import registry, symbolic, dtype_policy

``registry`` maps names to classes (the only way a config reaches Python
objects), ``symbolic`` defines the tensors a functional model is built on,
``dtype_policy`` the dtype policies. Every other package may import these.
"""
