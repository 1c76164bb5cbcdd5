"""``RougeN``: KerasHub's ROUGE-N, the n-gram overlap of predictions with references, averaged over samples.

rouge = keras_hub.metrics.RougeN(order=2)
rouge.update_state(["the cat sat on the mat"], ["the cat sat"])
rouge.result()      # {"precision", "recall", "f1_score"}
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.metrics.rouge_base import RougeBase
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RougeN(RougeBase):
    """ROUGE-N: precision, recall and F1 of the prediction's n-grams found in the reference, mean over samples.

    Args:
        order: The n-gram length, 1 to 9. Defaults to `2`.
        use_stemmer: Whether to Porter-stem words longer than three letters
            (needs `rouge-score`). Defaults to `False`.
        name: The metric's name. Defaults to `"rouge-n"`.
        **kwargs: Other `Metric` keyword arguments, such as `dtype`.

    Raises:
        ValueError: If `order` is not in 1 to 9.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> rouge = keras_hub.metrics.RougeN(order=1)
        >>> rouge.update_state(["The cat sat."], ["the cat"])
        >>> {key: round(float(value), 4) for key, value in rouge.result().items()}
        {'precision': 1.0, 'recall': 0.6667, 'f1_score': 0.8}
    """

    def __init__(self, order: int = 2, use_stemmer: bool = False, name: str = "rouge-n", **kwargs: Any) -> None:
        if order not in range(1, 10):
            raise ValueError(f"Invalid `order` value. Should lie in the range [1, 9]. Received order={order}")
        super().__init__(variant=f"rouge{order}", use_stemmer=use_stemmer, name=name, **kwargs)
        self.order = order

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["variant"]
        config.update(order=self.order)
        return config
