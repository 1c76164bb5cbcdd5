"""``tfkit.hub.metrics``: KerasHub's text metrics (``Perplexity``, ``EditDistance``, ``Bleu``, ``RougeN``, ``RougeL``).

    causal_lm.compile(..., metrics=[keras_hub.metrics.Perplexity(from_logits=True, mask_token_id=0)])
    bleu = keras_hub.metrics.Bleu(); bleu.update_state(references, translations); bleu.result()

Each has KerasHub 0.32's arguments, config (registered as ``keras_hub>Name``)
and numbers; ``Perplexity`` and ``EditDistance`` are TensorFlow ops (usable in
``fit``), ``Bleu`` and the ROUGE scores count n-grams in Python, eagerly, as
KerasHub's do.
"""

from tfkit.hub.metrics.bleu import Bleu
from tfkit.hub.metrics.edit_distance import EditDistance
from tfkit.hub.metrics.perplexity import Perplexity
from tfkit.hub.metrics.rouge_l import RougeL
from tfkit.hub.metrics.rouge_n import RougeN

__all__ = ["Bleu", "EditDistance", "Perplexity", "RougeL", "RougeN"]
