"""Preprocessing layers: run inside the model's graph, so exports carry them.

model = tfkit.Sequential([tfkit.layers.Rescaling(1 / 255), tfkit.layers.RandomFlip("horizontal")])
norm = tfkit.layers.Normalization(); norm.adapt(x_train)
vectorize = tfkit.layers.TextVectorization(max_tokens=20000); vectorize.adapt(texts)
"""

from tfkit.layers.preprocessing.categorical import *  # noqa: F401,F403
from tfkit.layers.preprocessing.feature_normalization import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image_color import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image_filter import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image_geometry import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image_histogram import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image_mixing import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image_policies import *  # noqa: F401,F403
from tfkit.layers.preprocessing.index_lookup import *  # noqa: F401,F403
from tfkit.layers.preprocessing.pipeline import *  # noqa: F401,F403
from tfkit.layers.preprocessing.text_vectorization import *  # noqa: F401,F403
