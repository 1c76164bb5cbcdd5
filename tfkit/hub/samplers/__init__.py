"""``tfkit.hub.samplers``: KerasHub's samplers, the compiled decoding loop of ``generate``.

    import tfkit.hub as keras_hub
    sampler = keras_hub.samplers.TopKSampler(k=5, temperature=0.7, seed=1)
    ids = sampler(next, prompt, cache=cache, index=start, mask=padding_mask, stop_token_ids=[end_id])

``Sampler`` holds the loop (one ``tf.while_loop``: eager, ``tf.function`` or
XLA); ``GreedySampler``, ``TopKSampler``, ``TopPSampler``, ``RandomSampler``
pick a token per step; ``BeamSampler`` keeps ``num_beams`` sequences; ``ContrastiveSampler`` runs
contrastive search (top-k candidates, penalized by similarity to the past). ``get``
takes KerasHub's names (``"greedy"``, ``"top_k"``, ``"top_p"``, ``"random"``,
``"beam"``, ``"contrastive"``); ``serialize``/``deserialize`` write and read KerasHub's configs.
"""

from tfkit.hub.samplers.beam_sampler import BeamSampler
from tfkit.hub.samplers.contrastive_sampler import ContrastiveSampler
from tfkit.hub.samplers.greedy_sampler import GreedySampler
from tfkit.hub.samplers.random_sampler import RandomSampler
from tfkit.hub.samplers.sampler import Sampler
from tfkit.hub.samplers.serialization import deserialize, get, serialize
from tfkit.hub.samplers.top_k_sampler import TopKSampler
from tfkit.hub.samplers.top_p_sampler import TopPSampler

__all__ = [
    "BeamSampler",
    "ContrastiveSampler",
    "GreedySampler",
    "RandomSampler",
    "Sampler",
    "TopKSampler",
    "TopPSampler",
    "deserialize",
    "get",
    "serialize",
]
