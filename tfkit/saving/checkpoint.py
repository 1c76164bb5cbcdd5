"""Weights as TensorFlow checkpoints, for models too large for one HDF5 write.

    model.save_weights("ckpt/vae")        # ckpt/vae.index + ckpt/vae.data-00000-of-00001
    model.load_weights("ckpt/vae")

Layers are ``tf.Module``s, so ``tf.train.Checkpoint(model=model)`` sees every
variable through the attribute graph with no adapter. Loading is all or
nothing here too: values are snapshotted first and put back if the restore
fails or leaves model variables unmatched.
"""

from __future__ import annotations

import os
from typing import Any

import tensorflow as tf

from tfkit.files.checkpoint_files import publish_checkpoint, readable_prefix, reading
from tfkit.files.checkpoint_index import check_checkpoint


def is_checkpoint_prefix(filepath: str) -> bool:
    """Whether a checkpoint can be read at ``filepath`` (looking only: a load changes nothing on disk)."""
    return readable_prefix(filepath) is not None


def save_checkpoint(model: Any, prefix: str, overwrite: bool = True) -> str:
    """``tf.train.Checkpoint(model=model).write(prefix)``; returns the prefix."""
    prefix = os.fspath(prefix)
    if is_checkpoint_prefix(prefix) and not overwrite:
        raise ValueError(f"A checkpoint already exists at {prefix} and overwrite=False")
    if not model.built:
        raise ValueError(
            f"Model '{model.name}' has no weights yet; call it on a batch (or model.build(input_shape)) before save_weights"
        )
    folder = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(folder, exist_ok=True)
    checkpoint = tf.train.Checkpoint(model=model)
    publish_checkpoint(checkpoint.write, prefix)  # a kill at any point leaves the previous checkpoint loadable
    return prefix


def load_checkpoint(model: Any, prefix: str, skip_mismatch: bool = False) -> None:
    """Restore a checkpoint written by :func:`save_checkpoint`; nothing changes if it fails."""
    prefix = os.fspath(prefix)
    if not model.built and is_checkpoint_prefix(prefix):
        raise ValueError(
            f"Model '{model.name}' is not built and a TensorFlow checkpoint stores no input shapes. "
            f"Call the model on a batch of data (or model.build(input_shape)) first, then load the weights."
        )
    with reading(prefix) as source:  # no tfkit publish of this prefix runs until the read is done
        if source is None:
            raise FileNotFoundError(
                f"No checkpoint at {prefix} (expected {prefix}.index). Weights files must end in .h5; "
                f"any other path is read as a TensorFlow checkpoint prefix."
            )
        check_checkpoint(source)  # TensorFlow's reader aborts the process on a damaged index: it gets only sound ones
        variables = list(model.variables)
        snapshot = [v.numpy() for v in variables]
        try:
            status = tf.train.Checkpoint(model=model).read(source)
            if skip_mismatch:
                status.expect_partial()
            else:
                status.assert_existing_objects_matched()
                status.expect_partial()
        except (AssertionError, ValueError, tf.errors.OpError) as error:
            for variable, value in zip(variables, snapshot):
                variable.assign(value)
            raise ValueError(
                f"Could not load checkpoint {prefix} into model '{model.name}'; nothing was loaded: {error}"
            ) from None
