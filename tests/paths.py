"""Where things are, for tests in any folder: the repository's root and the tests' data."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
