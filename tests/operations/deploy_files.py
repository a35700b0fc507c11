"""deploy/'s files, for the tests that hold the docs and the code to them."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
