"""The production settings, plus one URL that only the benchmark serves (bench/urls.py)."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
