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


def test_constraints_pin_every_requirement_of_the_test_and_train_extras():
    """constraints.txt (scripts/lock.py) pins each requirement of ncpgym, its test and train
    extras and its build to one version that satisfies pyproject.toml's range, so
    scripts/install.sh resolves the tested set; a dependency added to pyproject.toml without
    `python scripts/lock.py` fails here."""
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[2]
    pins = {}
    for line in (root / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    project = tomllib.loads((root / "pyproject.toml").read_text())
    reqs = project["project"]["dependencies"] + [r for e in ("test", "train") for r in project["project"]["optional-dependencies"][e]]
    reqs += project["build-system"]["requires"]
    for r in map(Requirement, reqs):
        name = r.name.lower().replace("_", "-")
        assert name in pins, f"{r.name} is not pinned in constraints.txt (python scripts/lock.py)"
        assert r.specifier.contains(pins[name], prereleases=True), f"{r.name}=={pins[name]} outside {r.specifier}"
