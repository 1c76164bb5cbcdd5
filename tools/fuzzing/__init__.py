"""Coverage-guided fuzzing of every tfkit reader of untrusted bytes (``tools/fuzz.py``).

Each target (``targets/``) names the reader modules it instruments, writes its
seed corpus, and checks one input: the reader either accepts it or raises
``ValueError`` naming the input, under an audit hook that refuses imports and
calls outside the target's allowed ones (``guard``), and, where a reference
reader exists, agrees with it on every input both accept. ``engine`` runs a
target under atheris (libFuzzer) in its own process; ``replay`` runs a corpus
through a target without atheris, as the test suite does.
"""
