"""Streaming generation: the compiled decoding loop run a few steps at a time, new tokens handed out between parts.

    for pieces in causal_lm.stream_generate(["The weather", "Once"], max_length=64):
        print(pieces)            # each row's new text since the last yield, e.g. [" is", " upon a"]

XLA on a CPU cannot call back into Python from inside a compiled loop, so the
loop is cut into parts: the prompt pass and the first token in one compiled
call, then calls of the same compiled decoding loop (``Sampler.decode``) with
a step budget given as a tensor, one program for every budget. The first
call also returns the attention projections' joined kernels, which the later
calls take instead of joining them again (``tfkit.hub.layers.joined_kernels``);
what each call still costs beyond its steps is copying the cache in (no
buffer donation in TensorFlow's XLA calls: about 1 ms for GPT-2 124M at batch
1 on this CPU, 5 ms at batch 8). So the budget grows until a part takes about
``interval`` seconds: the first token comes as soon as the prompt is read, and
then text arrives a few times a second at a small cost in tokens per second.

Rows of a batch stream together; a row's text starts after its own prompt and
ends at its first stop token.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

import numpy as np
import tensorflow as tf

STREAM_INTERVAL = 0.25  # seconds a part aims at: text arrives about four times a second


def _finished_rows(token_ids: np.ndarray, prompt_mask: np.ndarray, index: int, stop_ids: Any) -> np.ndarray:
    """Bool `(batch,)`: rows that wrote a stop token before `index`."""
    if stop_ids is None:
        return np.zeros(token_ids.shape[0], bool)
    written = ~prompt_mask & (np.arange(token_ids.shape[1])[None, :] < index)
    return (np.isin(token_ids, list(stop_ids)) & written).any(axis=1)


def _completion_mask(token_ids: np.ndarray, prompt_mask: np.ndarray, index: int, stop_ids: Any) -> np.ndarray:
    """Bool `(batch, length)`: each row's new tokens so far, up to and including its first stop token."""
    positions = np.arange(token_ids.shape[1])[None, :]
    new = ~prompt_mask & (positions < index)
    if stop_ids is not None:
        stops = np.isin(token_ids, list(stop_ids)) & new
        new &= np.cumsum(stops, axis=1) - stops == 0
    return new


def stream_token_ids(
    model: Any, prompt: dict[str, Any], stop_token_ids: Any, static: dict[str, Any], interval: float
) -> Iterator[list[np.ndarray]]:
    """Yields each row's new token ids (1-D arrays) as the parts of the decoding loop make them.

    Args:
        model: A `DecoderCausalLM`.
        prompt: `{"token_ids", "padding_mask"}` tensors, padded to the length
            to generate.
        stop_token_ids: Token ids that end a row, or `None`.
        static: More arguments of the prompt pass (`prefill_length`).
        interval: The seconds a part aims at.

    Yields:
        A list with one int array a row: its tokens since the last yield
        (empty for a row with none).
    """
    start, step = model.make_stream_functions()
    length = int(prompt["token_ids"].shape[1])
    prompt_mask = np.asarray(prompt["padding_mask"]).astype(bool)
    token_ids, cache, index, joined = start(prompt, stop_token_ids=stop_token_ids, **static)
    sent = np.zeros_like(prompt_mask)
    budget = 1
    while True:
        ids, at = token_ids.numpy(), int(index)
        new = _completion_mask(ids, prompt_mask, at, stop_token_ids)
        yield [row[fresh] for row, fresh in zip(ids, new & ~sent)]
        sent = new
        if at >= length or _finished_rows(ids, prompt_mask, at, stop_token_ids).all():
            return
        began = time.perf_counter()
        token_ids, cache, index = step(
            token_ids, cache, index, prompt["padding_mask"], stop_token_ids, tf.constant(budget, tf.int32), joined
        )
        per_step = (time.perf_counter() - began) / max(int(index) - at, 1)
        budget = int(min(max(interval / max(per_step, 1e-6), 1), length))


class TextPieces:
    """Each row's text as it grows, handing out only what is new and complete.

    A byte-level tokenizer may split one character over two tokens; text
    ending in the replacement character `U+FFFD` waits for the next part.

    Args:
        preprocessor: The causal LM's preprocessor (`generate_postprocess`).
        rows: The number of rows.
    """

    def __init__(self, preprocessor: Any, rows: int) -> None:
        self.preprocessor = preprocessor
        self.ids: list[list[int]] = [[] for _ in range(rows)]
        self.sent = [""] * rows

    def add(self, pieces: list[np.ndarray], final: bool = False) -> list[str]:
        """The new text of each row after adding its new token ids.

        Args:
            pieces: One int array a row.
            final: Whether these are the last tokens (incomplete characters
                are then handed out as they are). Defaults to `False`.

        Returns:
            One string a row.
        """
        for row, piece in enumerate(pieces):
            self.ids[row].extend(int(token) for token in piece)
        width = max(1, max(len(ids) for ids in self.ids))
        token_ids = np.zeros((len(self.ids), width), "int32")
        mask = np.zeros_like(token_ids, dtype=bool)
        for row, ids in enumerate(self.ids):
            token_ids[row, : len(ids)], mask[row, : len(ids)] = ids, True
        texts = self.preprocessor.generate_postprocess({"token_ids": token_ids, "padding_mask": mask})
        texts = [t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in np.asarray(texts).tolist()]
        new = []
        for row, text in enumerate(texts):
            if not final:
                text = text.rstrip("\ufffd")
            piece = text[len(self.sent[row]) :] if text.startswith(self.sent[row]) else text
            self.sent[row] = self.sent[row] + piece if text.startswith(self.sent[row]) else text
            new.append(piece)
        return new
