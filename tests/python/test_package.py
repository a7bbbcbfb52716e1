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


def test_make_builds_a_task_with_or_without_the_prefix():
    import numpy as np
    import pytest

    env = ncpgym.make("InvertedPendulum-v0", reset_noise_scale=0.0)
    assert env.spec.id == "ncpgym/InvertedPendulum-v0" and env.spec.max_episode_steps == 1000
    obs, _ = env.reset(seed=0)
    np.testing.assert_array_equal(obs, 0.0)  # qpos0 = 0 and no reset noise: the kwarg reached the task
    env2 = ncpgym.make("ncpgym/InvertedPendulum-v0")
    obs2, _ = env2.reset(seed=0)
    assert obs2.shape == (4,) and 0 < np.abs(obs2).max() <= 0.01
    with pytest.raises(ValueError, match="unknown ncpgym task"):
        ncpgym.make("Nope-v0")
