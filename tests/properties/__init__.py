"""Shared hypothesis strategies and profiles for the property tests (``tests/test_properties_*.py``)."""
