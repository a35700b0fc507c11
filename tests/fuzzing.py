"""How many examples a fuzz test tries, by hypothesis profile (tests/conftest.py)."""

import os

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")


def examples(deep: int) -> int:
    """`deep` (the test's full number) under the `deep` profile; a fifth of it, at least 5,
    under `ci`, the same examples every run."""
    return deep if PROFILE == "deep" else max(5, deep // 5)
