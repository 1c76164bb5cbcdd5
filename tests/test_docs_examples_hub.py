"""The tfkit.hub scripts of the examples gallery run on their small slice (``--small``): BERT, Llama 3, T5, Whisper.

``test_docs_examples.py`` runs the other scripts and checks every script's page; the hub's are in a file of
their own so that the suite's workers share the two (each runs whole files).
"""

from __future__ import annotations

import pytest
from test_docs_examples import HUB_GALLERY, check_small_slice


@pytest.mark.slow
@pytest.mark.parametrize("stem", HUB_GALLERY)
def test_hub_example_runs_on_its_small_slice(stem, tmp_path, monkeypatch):
    check_small_slice(stem, tmp_path, monkeypatch)
