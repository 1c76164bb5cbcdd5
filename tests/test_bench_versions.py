"""The bench report names the TensorFlow it ran on whichever distribution installed it.

``pip install tensorflow-cpu`` installs the same ``tensorflow`` package under another
distribution name; the report once said "TensorFlow: not installed" for such a run.
"""

from __future__ import annotations

import importlib
import pathlib
from importlib import metadata

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture
def report(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    return importlib.import_module("bench.report")


def _installed(monkeypatch, packages):
    def version(name):
        if name not in packages:
            raise metadata.PackageNotFoundError(name)
        return packages[name]

    monkeypatch.setattr(metadata, "version", version)


def test_tensorflow_cpu_is_reported_as_tensorflow(report, monkeypatch):
    _installed(monkeypatch, {"tensorflow-cpu": "2.21.0", "numpy": "2.4.6"})
    versions = report.package_versions()
    assert versions["TensorFlow"] == "2.21.0"
    assert versions["numpy"] == "2.4.6"
    assert versions["JAX"] == "not installed"


def test_the_tensorflow_distribution_is_preferred_and_absence_is_said(report, monkeypatch):
    _installed(monkeypatch, {"tensorflow": "2.21.0", "tensorflow-cpu": "2.20.0"})
    assert report.package_versions()["TensorFlow"] == "2.21.0"
    _installed(monkeypatch, {})
    assert set(report.package_versions().values()) == {"not installed"}
