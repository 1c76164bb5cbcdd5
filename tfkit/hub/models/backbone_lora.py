"""LoRA on a backbone, as KerasHub does it: only the low-rank factors of the attention's query and value train.

    backbone.enable_lora(4)                       # every weight frozen; query/value get lora_kernel_a and _b
    backbone.save_lora_weights("adapter.lora.h5") # the factors only, in KerasHub's file layout
    other.load_lora_weights("adapter.lora.h5")    # enables LoRA with the file's rank, then loads the factors

KerasHub finds the layers by name (``query``, ``value``, ``query_dense``,
``value_dense``) and numbers them by their position among the backbone's
layers that hold weights, in Keras's ``_flatten_layers`` order (depth first,
each layer's sub-layers last-created first); a ``.lora.h5`` stores the rank
(``lora/vars/rank``) and each enabled layer's factors under that number
(``lora/<n>/vars/lora_kernel_a``), so files pass between tfkit and KerasHub.
"""

from __future__ import annotations

import collections
import os
from typing import Any, Sequence

import numpy as np

from tfkit.engine import tracking
from tfkit.files import atomic
from tfkit.saving import h5_writer, weights_io
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.model_kinds import is_graph_model


def layers_with_weights(backbone: Any) -> list[Any]:
    """The backbone's layers that hold weights, in Keras's ``_flatten_layers(include_self=False)`` order."""
    top = list(backbone.layers) if is_graph_model(backbone) else [child for _, child in tracking.children(backbone)]
    queue, out, seen = collections.deque(top), [], set()
    while queue:
        layer = queue.popleft()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        if layer.weights:
            out.append(layer)
        queue.extendleft([child for _, child in tracking.children(layer)])  # reversed: last-created first
    return out


class BackboneLora:
    """`enable_lora`, `save_lora_weights` and `load_lora_weights` of `Backbone`."""

    def default_lora_layer_names(self) -> list[str]:
        """The names of the layers `enable_lora` adapts by default: the attention's query and value projections.

        Returns:
            `["query_dense", "value_dense", "query", "value"]`, as KerasHub.
        """
        return ["query_dense", "value_dense", "query", "value"]

    def enable_lora(self, rank: int, target_layer_names: Sequence[str] | None = None) -> None:
        """Freezes every weight of the backbone and adds trainable low-rank factors to the target layers.

        Args:
            rank: The rank of the factorization.
            target_layer_names: The names of the layers to adapt; `None`
                (the default) uses `default_lora_layer_names()`.

        Raises:
            ValueError: If no layer has one of the target names.
        """
        names = list(target_layer_names) if target_layer_names is not None else self.default_lora_layer_names()
        self.trainable = True
        for layer in tracking.flatten_layers(self, include_self=False):
            layer.trainable = False
        enabled = []
        for index, layer in enumerate(layers_with_weights(self)):
            if layer.name in names and hasattr(layer, "enable_lora"):
                layer.trainable = True
                layer.enable_lora(rank)
                enabled.append(index)
        if not enabled:
            raise ValueError(f"{type(self).__name__} '{self.name}' has no layer named {names} to enable LoRA on")
        self._lora_enabled_layers = enabled
        self._lora_rank = rank

    def save_lora_weights(self, filepath: str) -> None:
        """Writes the LoRA factors (and the rank) to a `.lora.h5` file KerasHub reads, atomically.

        Args:
            filepath: A path ending in `.lora.h5`.

        Raises:
            ValueError: If LoRA is not enabled or the name does not end in `.lora.h5`.
        """
        enabled = getattr(self, "_lora_enabled_layers", [])
        if not enabled:
            raise ValueError(f"{type(self).__name__} '{self.name}' has no LoRA layers: call enable_lora(rank) first")
        if not str(filepath).endswith(".lora.h5"):
            raise ValueError(f"save_lora_weights: the file name must end in .lora.h5, got {filepath!r}")
        layers = layers_with_weights(self)
        with atomic.atomic_file(os.fspath(filepath)) as tmp:
            with h5_writer.create(tmp) as f:
                f.create_group("lora/vars")["rank"] = np.int64(self._lora_rank)
                for index in enabled:
                    group = f.create_group(f"lora/{index}/vars")
                    group["lora_kernel_a"] = layers[index].lora_kernel_a.numpy()
                    group["lora_kernel_b"] = layers[index].lora_kernel_b.numpy()

    def load_lora_weights(self, filepath: str) -> None:
        """Reads a `.lora.h5` (tfkit's or KerasHub's): enables LoRA with its rank if needed, then loads the factors.

        Args:
            filepath: The `.lora.h5` file.

        Raises:
            ValueError: If the file's rank or layers do not match the backbone's LoRA layers.
        """
        table = read_snapshot(os.fspath(filepath), ("*",)).tables.get("lora", {})
        rank_entry = table.get("vars/rank")
        if rank_entry is None or rank_entry.shape != ():
            raise ValueError(f"{filepath}: lora/vars/rank is missing or not a number")
        rank = int(rank_entry.array)
        if not getattr(self, "_lora_enabled_layers", []):
            self.enable_lora(rank)
        elif self._lora_rank != rank:
            raise ValueError(
                f"{filepath} holds LoRA factors of rank {rank}; the backbone was given enable_lora(rank={self._lora_rank})"
            )
        layers = layers_with_weights(self)
        pairs = []
        for index in self._lora_enabled_layers:
            for name in ("lora_kernel_a", "lora_kernel_b"):
                dataset = table.get(f"{index}/vars/{name}")
                if dataset is None:
                    raise ValueError(f"{filepath} has no lora/{index}/vars/{name} (layer '{layers[index].name}')")
                pairs.append((getattr(layers[index], name), dataset, f"lora/{index}/vars/{name}"))
        weights_io.assign(pairs)
