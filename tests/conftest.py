"""Test-wide environment: quiet TensorFlow logs and the shared dataset cache."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault(
    "TFKIT_DATA_DIR",
    os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "datasets")),
)
