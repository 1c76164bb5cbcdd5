"""Test-wide environment: quiet TensorFlow logs, the shared dataset cache, parallel workers.

The whole suite (``python -m pytest`` with no paths) runs in one pytest-xdist worker per
usable core, at most four, whole files per worker (``--dist loadfile``), so module fixtures
and the order inside a file stay as written. ``TFKIT_TEST_WORKERS=0`` (or ``-n 0``) runs it
in one process; naming files or tests runs them in this process as usual.
"""

import compileall
import os
import pathlib
import shutil
import sys
import tempfile

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault(
    "TFKIT_DATA_DIR",
    os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "datasets")),
)

MAX_WORKERS = 4


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Spread the whole suite over workers when pytest-xdist is installed and nothing else was asked."""
    if not config.pluginmanager.hasplugin("xdist") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if getattr(config.option, "numprocesses", None) is not None:  # -n given: the user decides
        return
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:  # files or tests named: one process
        return
    if config.option.collectonly or config.option.usepdb:
        return
    workers = int(os.environ.get("TFKIT_TEST_WORKERS", min(_usable_cores(), MAX_WORKERS)))
    if workers > 1:
        config.option.numprocesses = workers
        config.option.dist = "loadfile"
        # A worker that dies is not replaced: the run stops and says which test it was running. Replaced,
        # the new worker under loadfile never got the dead one's files and the run waited for them until
        # CI's time limit (stop 57).
        if config.option.maxworkerrestart is None:
            config.option.maxworkerrestart = "0"


def pytest_configure(config):
    """Compile tfkit to bytecode once, before any worker or subprocess imports it, and give the
    processes the run starts a temporary folder of their own.

    This project's machines set ``PYTHONDONTWRITEBYTECODE`` (CI likely too), and an editable install
    leaves no bytecode, so every process the suite starts (xdist workers, training workers,
    servers, the examples, the CLI) compiled tfkit's ~390 modules from source again: about
    0.7 s each on 2 cores, 14% of the CLI and kill-point tests. Compiling them here, as
    installing a wheel does, takes under a second (``__pycache__`` is ignored by git).
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if sys.dont_write_bytecode:
        compileall.compile_dir(str(pathlib.Path(__file__).resolve().parents[1] / "tfkit"), quiet=1)
    _confine_temporary_files_of_children(config)


def _confine_temporary_files_of_children(config):
    """Processes started from here write their temporary files in a folder of this run, removed at its end.

    AutoGraph writes each function it converts to a ``__autograph_generated_file*.py`` and deletes
    it at exit. The processes the suite kills on purpose (savers killed mid-save) or that leave with
    ``os._exit`` never get there: a run left about 80 such files in /tmp. This process keeps its own
    temporary folder (pytest's ``tmp_path`` folders stay where they were); the workers and every
    process they start inherit ``TMPDIR``.
    """
    tempfile.gettempdir()  # fixed for this process before TMPDIR changes
    folder = tempfile.mkdtemp(prefix="tfkit-tests-")
    os.environ["TMPDIR"] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


# The files that take longest (``pytest --durations``, a 2-core machine), longest first. Workers take
# whole files in collection order, so these go first: a long file started last would leave the other
# worker idle at the end (the suite ended with minutes of one worker before this order).
LONGEST_FILES = (
    "test_docstring_examples.py",
    "test_distribution_mesh.py",
    "test_hub_families.py",
    "test_hub_tokenizers.py",
    "test_hub_families_experts.py",
    "test_export_formats.py",
    "test_docs_site.py",
    "test_file_zoo.py",
    "test_saving_atomic.py",
    "test_variable_paths.py",
    "test_hub_vision2.py",
    "test_keras_files_in.py",
    "test_cli.py",
    "test_multi_worker.py",
    "test_mixed_precision_layers.py",
    "test_load_budgets.py",
    "test_ecosystem_tools.py",
    "test_hub_layers.py",
    "test_keras_behaviours_held_out.py",
    "test_hub_decoders2.py",
    "test_docs_guides.py",
    "test_layers_augment_common.py",
    "test_examples.py",
    "test_fuzz_loaders.py",
    "test_hub_gemma3.py",
    "test_hostile_presets.py",
    "test_wrappers_sklearn.py",
    "test_hub_gpt2.py",
    "test_hub_keras_files.py",
    "test_export.py",
)


def pytest_collection_modifyitems(session, config, items):
    """Longest files first (see LONGEST_FILES); the order inside each file is kept. Checks marked ``long``, or
    listed in ``long_checks.py``, are skipped, saying how to run them and why they may wait, unless
    ``TFKIT_LONG_TESTS=1``."""
    from long_checks import LONG_RUN, long_check_reason

    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: files and tests keep their order
    for item in items:
        reason = long_check_reason(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.long(reason=reason))
        marker = item.get_closest_marker("long")
        if not LONG_RUN and marker:
            why = reason or marker.kwargs.get("reason") or "a long check"
            item.add_marker(pytest.mark.skip(reason=f"{why}: TFKIT_LONG_TESTS=1 runs it"))
