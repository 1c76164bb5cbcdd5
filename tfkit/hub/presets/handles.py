"""A preset handle as a local folder: a path, ``hf://owner/name`` or ``kaggle://owner/model/keras/variant``.

    local_directory("./gpt2_tiny")                   # the folder itself
    local_directory("hf://keras/gpt2_base_en")       # downloaded by huggingface_hub (when installed)

Downloads go through the libraries made for them, imported only when a handle
needs them (``huggingface_hub``, ``kagglehub``); tfkit opens no connection of
its own. KerasHub's built-in preset names (``"gpt2_base_en"``) are Kaggle
handles in KerasHub's tables; tfkit has no copy of those tables, so pass the
handle (``kaggle://keras/gpt2/keras/gpt2_base_en``) or a folder.
"""

from __future__ import annotations

import os

HF_PREFIX = "hf://"
KAGGLE_PREFIX = "kaggle://"


def local_directory(preset: str | os.PathLike) -> str:
    """The local folder holding ``preset``; ``ValueError`` for a handle tfkit cannot resolve."""
    handle = os.fspath(preset)
    if handle.startswith(HF_PREFIX):
        return _huggingface(handle[len(HF_PREFIX) :])
    if handle.startswith(KAGGLE_PREFIX):
        return _kaggle(handle[len(KAGGLE_PREFIX) :])
    if "://" in handle:
        raise ValueError(
            f"preset {handle!r}: tfkit resolves local folders, hf:// and kaggle:// handles; "
            f"download it and pass the folder"
        )
    if not os.path.isdir(handle):
        raise ValueError(
            f"preset {handle!r} is not a folder. tfkit reads KerasHub preset folders and Hugging Face "
            f"checkpoint folders; KerasHub's built-in names are Kaggle handles "
            f"(kaggle://keras/<model>/keras/<variant>) or hf://<owner>/<name>"
        )
    return handle


def _huggingface(repo: str) -> str:
    try:
        import huggingface_hub
    except ImportError as error:
        raise ImportError(f"hf://{repo} needs huggingface_hub: pip install huggingface_hub") from error
    return huggingface_hub.snapshot_download(repo_id=repo)


def _kaggle(handle: str) -> str:
    try:
        import kagglehub
    except ImportError as error:
        raise ImportError(f"kaggle://{handle} needs kagglehub: pip install kagglehub") from error
    return kagglehub.model_download(handle)
