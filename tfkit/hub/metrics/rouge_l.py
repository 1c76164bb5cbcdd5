"""``RougeL``: KerasHub's ROUGE-L, the longest common subsequence of prediction and reference, averaged over samples.

rouge = keras_hub.metrics.RougeL()
rouge.update_state(["the cat sat on the mat"], ["the cat on a mat"])
rouge.result()      # {"precision", "recall", "f1_score"}
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.metrics.rouge_base import RougeBase
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RougeL(RougeBase):
    """ROUGE-L: precision, recall and F1 from the longest common subsequence of tokens, mean over samples.

    Args:
        use_stemmer: Whether to Porter-stem words longer than three letters
            (needs `rouge-score`). Defaults to `False`.
        name: The metric's name. Defaults to `"rouge-l"`.
        **kwargs: Other `Metric` keyword arguments, such as `dtype`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> rouge = keras_hub.metrics.RougeL()
        >>> rouge.update_state(["the cat sat on the mat"], ["the cat on a mat"])
        >>> {key: round(float(value), 4) for key, value in rouge.result().items()}
        {'precision': 0.8, 'recall': 0.6667, 'f1_score': 0.7273}
    """

    def __init__(self, use_stemmer: bool = False, name: str = "rouge-l", **kwargs: Any) -> None:
        super().__init__(variant="rougeL", use_stemmer=use_stemmer, name=name, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["variant"]
        return config
