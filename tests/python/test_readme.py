"""Every Python snippet of the README runs as written, in order, in one namespace (as a
reader pasting them into one session would), except the one that needs a Ray cluster."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
NEEDS_CLUSTER = "needs a running Ray cluster"


def python_blocks() -> list[tuple[int, str]]:
    text = README.read_text()
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        blocks.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return blocks


def test_the_readme_has_python_snippets():
    blocks = python_blocks()
    assert len(blocks) >= 8
    assert sum(NEEDS_CLUSTER in code for _, code in blocks) == 1


def test_readme_python_snippets_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the video snippet writes videos/ here
    namespace: dict = {"__name__": "readme"}
    ran = 0
    for line, code in python_blocks():
        if NEEDS_CLUSTER in code:
            continue
        try:
            exec(compile(code, f"README.md:{line}", "exec"), namespace)
        except Exception as e:  # name the snippet that broke
            pytest.fail(f"README snippet at line {line} failed: {type(e).__name__}: {e}")
        ran += 1
    assert ran == len(python_blocks()) - 1
    for env in ("envs", "env"):
        if env in namespace and hasattr(namespace[env], "close"):
            namespace[env].close()
