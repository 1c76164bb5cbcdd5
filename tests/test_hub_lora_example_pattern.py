"""keras-io's "Parameter-efficient fine-tuning of GPT-2 with LoRA" pattern runs on tfkit.hub as on KerasHub.

The example unlocks each attention layer (``_tracker.locked = False``), replaces its
``_query_dense`` and ``_value_dense`` with a wrapper holding a low-rank update, walks
``_flatten_layers()`` to train only the update, fine-tunes and generates on prompts of
another length than the training batches (so an ``EinsumDense`` may not pin the
sequence axis it first saw, as Keras's does not).
"""

import math

import numpy as np
from hub_presets import TEXTS, gpt2_vocabulary

import tfkit
import tfkit.hub as tk_hub


def _lora_wrapper(library):
    class LoraLayer(library.layers.Layer):
        def __init__(self, original_layer, rank=4, alpha=32, trainable=False, **kwargs):
            config = original_layer.get_config()
            kwargs.pop("name", None)
            super().__init__(name=f"lora_{config['name']}", trainable=trainable, **kwargs)
            self._scale = alpha / rank
            self.original_layer = original_layer
            self.original_layer.trainable = False
            initializer = library.initializers.VarianceScaling(
                scale=math.sqrt(5), mode="fan_in", distribution="uniform"
            )
            self.A = library.layers.Dense(rank, use_bias=False, kernel_initializer=initializer, name="lora_A")
            self.B = library.layers.EinsumDense(
                equation=config["equation"],
                output_shape=config["output_shape"],
                kernel_initializer="zeros",
                name="lora_B",
            )

        def call(self, inputs):
            original = self.original_layer(inputs)
            return original + self.B(self.A(inputs)) * self._scale if self.trainable else original

    return LoraLayer


def test_the_lora_example_pattern():
    library, hub = tfkit, tk_hub  # the pattern is Keras's own (keras-io); Keras runs it as written
    library.utils.set_random_seed(0)
    vocabulary, merges = gpt2_vocabulary()
    backbone = hub.models.GPT2Backbone(
        vocabulary_size=len(vocabulary), num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16
    )
    tokenizer = hub.models.GPT2Tokenizer(vocabulary=vocabulary, merges=merges)
    model = hub.models.GPT2CausalLM(backbone, hub.models.GPT2CausalLMPreprocessor(tokenizer, sequence_length=12))
    LoraLayer = _lora_wrapper(library)
    for index in range(model.backbone.num_layers):
        attention = model.backbone.get_layer(f"transformer_layer_{index}")._self_attention_layer
        attention._tracker.locked = False
        attention._query_dense = LoraLayer(attention._query_dense, trainable=True)
        attention._value_dense = LoraLayer(attention._value_dense, trainable=True)
        assert isinstance(attention._query_dense, LoraLayer)
    model(model.preprocessor(TEXTS[:1])[0])
    for layer in model._flatten_layers():
        if len(list(layer._flatten_layers())) == 1:
            layer.trainable = layer.name in ("lora_A", "lora_B")
    shapes = sorted(tuple(w.shape) for w in model.trainable_weights)
    assert shapes == [(4, 2, 4)] * 4 + [(8, 4)] * 4  # A: (hidden, rank), B: (rank, heads, head_dim), per block
    paths = [w.path for w in model.trainable_weights]
    assert len(set(paths)) == 8 and "transformer_layer_1/self_attention/lora_query/lora_B/kernel" in paths
    model.compile(optimizer=library.optimizers.AdamW(1e-2), loss=library.losses.SparseCategoricalCrossentropy(True))
    frozen = [np.array(w) for w in model.backbone.get_layer("token_embedding").weights]
    model.fit(TEXTS, batch_size=2, epochs=1, verbose=0)
    assert all(
        np.array_equal(a, np.array(w)) for a, w in zip(frozen, model.backbone.get_layer("token_embedding").weights)
    )
    assert any(np.abs(np.array(w)).max() > 0 for w in model.trainable_weights if w.shape == (4, 2, 4))  # B learned
    text = model.generate(["the quick"], max_length=9)  # a prompt shorter than the training sequences
    assert isinstance(text[0], str) and text[0].startswith("the quick")
