"""``tfkit.models``: ``Model``, ``Sequential`` and model configs, as ``keras.models``.

    model = tfkit.models.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    clone = tfkit.models.clone_model(model)
    same = tfkit.models.model_from_json(model.to_json())
"""

from tfkit.models.graph_models import (  # noqa: F401
    Functional,
    Sequential,
    clone_model,
    load_model,
    model_from_config,
    model_from_json,
    save_model,
    serialize_model,
)
from tfkit.models.model import Model  # noqa: F401
