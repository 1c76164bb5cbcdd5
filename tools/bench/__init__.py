"""The benchmark behind ``tools/bench.py``: tfkit against Keras 3, tf-keras and raw TF.

    python tools/bench.py --quick                 # smoke run: VAE + predict, 1 repeat
    python tools/bench.py                         # full table into docs/PERFORMANCE.md
    python tools/bench.py --workloads vae --peers tfkit,raw_tf --repeats 5

Modules: ``spec`` (runners, cases, table rows; plain data), ``cli`` (arguments and
the run loop), ``orchestrate`` (one subprocess per measurement), ``report``
(medians, ratios, the Markdown table, machine facts), ``worker`` (what runs inside
a subprocess), ``data`` (the arrays every peer shares), ``timing`` (epoch timers,
RSS, serving latency) and one ``peer_*`` module per framework.
The orchestrating process never imports TensorFlow, Keras or tfkit.
"""
