import sys
from pathlib import Path

import ncpgym

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_version_comes_from_pyproject():
    with open(ROOT / "pyproject.toml", "rb") as f:
        want = tomllib.load(f)["project"]["version"]
    assert ncpgym.__version__ == want
    assert ncpgym._core.__version__ == want


def test_stub_file_ships_with_package():
    stub = Path(ncpgym.__file__).parent / "_core.pyi"
    assert stub.is_file()
    text = stub.read_text()
    for name in ("class Model", "class Builder", "def minv_times", "def forward"):
        assert name in text
