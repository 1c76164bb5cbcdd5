"""``import tfkit`` freezes what the import made (full collections skip it); later objects are collected as ever."""

import os
import subprocess
import sys
import textwrap

import time_limits

_PROBE = textwrap.dedent("""
    import gc, weakref
    import tfkit
    frozen = gc.get_freeze_count()

    class Holder:
        pass

    layer = tfkit.layers.Dense(2)
    holder = Holder()
    holder.layer, layer.holder = layer, holder        # a reference cycle made after the import
    alive = weakref.ref(holder)
    del layer, holder
    gc.collect()
    print(frozen, alive() is None)
""")


def _probe(**environment):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", **environment)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=time_limits.seconds(300), env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, collected = done.stdout.split()
    return int(frozen), collected == "True"


def test_the_import_is_frozen_and_later_cycles_are_still_collected():
    frozen, collected = _probe()
    assert frozen > 100_000  # TensorFlow's and tfkit's modules, classes and functions
    assert collected


def test_tfkit_gc_freeze_0_leaves_the_collector_alone():
    frozen, collected = _probe(TFKIT_GC_FREEZE="0")
    assert frozen == 0 and collected
