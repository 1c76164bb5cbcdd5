"""The long mode's list (``tests/long_checks.py``) names tests that exist: a renamed test must not silently
leave the list and return to the default run, nor a stale entry hide that it no longer skips anything."""

from __future__ import annotations

import pathlib
import re

import pytest
from long_checks import LONG_CHECKS, long_check_reason

TESTS = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("pattern", sorted(LONG_CHECKS))
def test_every_entry_names_a_test_file_and_the_test_functions_in_it(pattern):
    file_name = re.match(r"(test_\w+)\\\.py::", pattern).group(1) + ".py"
    text = (TESTS / file_name).read_text()
    functions = re.findall(r"test_\w+", pattern.split("::", 1)[1])  # whole names or their beginnings
    for name in functions:
        assert f"def {name}" in text, f"{file_name} has no test {name} (long_checks.py: {pattern})"


def test_a_node_id_is_long_only_where_an_entry_matches():
    assert long_check_reason("tests/test_docs_examples.py::test_example_runs_on_its_small_slice[gan_mnist]")
    assert long_check_reason("tests/test_docs_examples.py::test_example_runs_on_its_small_slice[mnist_convnet]") is None
    assert (
        long_check_reason(
            "tests/test_hub_encoders.py::test_the_tokenizer_and_preprocessors_give_keras_hubs_ids[roberta]"
        )
        is None
    )
