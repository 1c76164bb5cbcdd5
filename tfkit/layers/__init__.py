"""Built-in layers, one module per family, plus the ``Layer`` base class.

from tfkit import layers
dense = layers.Dense(64, activation="relu")
y = dense(tf.ones((2, 3)))
"""

from tfkit.engine.functional_graph import Input, InputLayer  # noqa: F401
from tfkit.engine.input_spec import InputSpec  # noqa: F401
from tfkit.engine.layer import Layer  # noqa: F401
from tfkit.layers.activation_layers import *  # noqa: F401,F403
from tfkit.layers.attention import *  # noqa: F401,F403
from tfkit.layers.attention_dot import *  # noqa: F401,F403
from tfkit.layers.attention_grouped import *  # noqa: F401,F403
from tfkit.layers.conv_aliases import *  # noqa: F401,F403
from tfkit.layers.conv_depthwise1d import *  # noqa: F401,F403
from tfkit.layers.conv_lstm import *  # noqa: F401,F403
from tfkit.layers.convolution import *  # noqa: F401,F403
from tfkit.layers.core import *  # noqa: F401,F403
from tfkit.layers.embedding import *  # noqa: F401,F403
from tfkit.layers.embedding_reversible import *  # noqa: F401,F403
from tfkit.layers.layer_serialization import deserialize, serialize  # noqa: F401
from tfkit.layers.merging import *  # noqa: F401,F403
from tfkit.layers.merging_functions import *  # noqa: F401,F403
from tfkit.layers.noise import *  # noqa: F401,F403
from tfkit.layers.normalization import *  # noqa: F401,F403
from tfkit.layers.normalization_simple import *  # noqa: F401,F403
from tfkit.layers.pooling import *  # noqa: F401,F403
from tfkit.layers.pooling_adaptive import *  # noqa: F401,F403
from tfkit.layers.preprocessing import *  # noqa: F401,F403
from tfkit.layers.preprocessing.hashed_crossing import *  # noqa: F401,F403
from tfkit.layers.preprocessing.image import *  # noqa: F401,F403
from tfkit.layers.preprocessing.mel_spectrogram import *  # noqa: F401,F403
from tfkit.layers.preprocessing.stft_spectrogram import *  # noqa: F401,F403
from tfkit.layers.recurrent import *  # noqa: F401,F403
from tfkit.layers.regularization import *  # noqa: F401,F403
from tfkit.layers.reshaping import *  # noqa: F401,F403
from tfkit.layers.reshaping_nd import *  # noqa: F401,F403
from tfkit.layers.spectral_normalization import *  # noqa: F401,F403
from tfkit.layers.tf_op import *  # noqa: F401,F403
from tfkit.layers.tfsm_layer import *  # noqa: F401,F403
from tfkit.layers.wrappers import *  # noqa: F401,F403
