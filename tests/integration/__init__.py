"""Integration tests (real Coq). A package, so its modules may share a basename with a unit test
(`tests/test_sources.py` and `tests/integration/test_sources.py`) without a pytest import clash."""
