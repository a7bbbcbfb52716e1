"""Write constraints.txt: the exact versions of everything ncpgym's test and train extras and
its build requirements pull in, as installed in this environment -- the versions this project
is tested with. scripts/install.sh installs under it (pip -c), so scripts/test.sh,
scripts/train.sh and CI resolve the same set on every machine; the package's own dependency
ranges (pyproject.toml) stay open for users. Regenerate after testing with newer versions
(scripts/check_latest.sh):

    python scripts/lock.py            # writes constraints.txt from the installed versions
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("test", "train")
BUILD = ["scikit-build-core", "pybind11", "cmeel-eigen", "ninja", "setuptools", "wheel"]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(roots: list[tuple[str, set[str]]]) -> dict[str, str]:
    """name -> installed version of every distribution reachable from the roots (name, extras)
    through the installed metadata's requirements whose markers hold here."""
    seen: dict[str, set[str]] = {}
    found: dict[str, str] = {}
    todo = list(roots)
    while todo:
        name, extras = todo.pop()
        key = canonical(name)
        if key in seen and extras <= seen[key]:
            continue
        seen[key] = seen.get(key, set()) | extras
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            sys.exit(f"lock.py: {name} is not installed; install ncpgym[{','.join(EXTRAS)}] first")
        found[key] = dist.version
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is not None:
                ok = any(req.marker.evaluate({**default_environment(), "extra": e}) for e in (extras or {""}))
                if not ok:
                    continue
            todo.append((req.name, set(req.extras)))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "constraints.txt")
    args = ap.parse_args()
    import tomllib  # the project's own requirements from pyproject.toml (its installed metadata may be older)

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    direct = list(project["dependencies"]) + [r for e in EXTRAS for r in project["optional-dependencies"][e]]
    roots = [(Requirement(r).name, set(Requirement(r).extras)) for r in direct]
    pins = closure(roots + [(b, set()) for b in BUILD])
    pins.pop("ncpgym", None)
    lines = [f"# written by scripts/lock.py: the versions ncpgym[{','.join(EXTRAS)}] and its build are tested with",
             f"# (Python {sys.version_info.major}.{sys.version_info.minor}); scripts/install.sh installs under them"]
    lines += [f"{name}=={version}" for name, version in sorted(pins.items())]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}: {len(pins)} pins")


if __name__ == "__main__":
    main()
