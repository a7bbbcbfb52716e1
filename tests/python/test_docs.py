"""Documentation a newcomer can find their way in (issue 65): the README stays short, the
site builds with warnings as errors (broken links and references fail), every Python snippet
of the README and of the docs pages runs as written (each page's snippets in order, in one
namespace, as a reader pasting them would), the docs' home page is the README, and every
public name of the API reference has a docstring."""

import importlib
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NEEDS_CLUSTER = "needs a running Ray cluster"
# the modules the API reference renders (docs/api/*.md) and the C++ core's classes
API_MODULES = ["dynamics", "vector", "wrappers", "models", "soft", "rods", "shells", "control", "cluster", "render",
               "video", "train", "objects", "scenes", "state", "errors", "play"]
CORE = ["Batch", "Builder", "Model", "Simulator", "SolverOptions", "State"]


def python_blocks(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)]


def snippet_pages() -> list[Path]:
    pages = [ROOT / "README.md"]
    pages += sorted(p for p in DOCS.rglob("*.md") if "results" not in p.parts and p.name != "index.md"
                    and python_blocks(p))
    return pages


def test_the_readme_is_short_and_the_docs_home_is_the_readme():
    readme = (ROOT / "README.md").read_text()
    assert readme.count("\n") <= 300
    home = readme.replace("](docs/", "](").replace('src="docs/', 'src="').replace("[`docs/`](docs/index.md)", "`docs/`")
    home = home.replace("(`LICENSE`)", "(`LICENSE` in the repository)")
    assert (DOCS / "index.md").read_text() == home, "docs/index.md is the README with links relative to docs/"


@pytest.mark.parametrize("page", snippet_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_snippets_run_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # snippets that write files write them here
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for line, code in python_blocks(page):
        if NEEDS_CLUSTER in code:
            continue
        try:
            exec(compile(code, f"{page.relative_to(ROOT)}:{line}", "exec"), namespace)
        except Exception as e:  # name the snippet that broke
            pytest.fail(f"{page.relative_to(ROOT)}: snippet at line {line} failed: {type(e).__name__}: {e}")
    for name in ("envs", "env"):
        if hasattr(namespace.get(name), "close"):
            namespace[name].close()


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (mkdocs-material, mkdocstrings) is part of the test extra")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin",
                                                                          "HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "site" / "tasks" / "ShadowHandBlock.html").is_file()
    api = (tmp_path / "site" / "api" / "core.html").read_text()
    assert "Batch" in api and "num_worlds" in api  # the C++ core's stubs rendered


def _public(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_") and getattr(getattr(mod, n), "__module__", "") == mod.__name__]
    return names


def test_every_public_name_has_a_docstring():
    import ncpgym

    missing = []

    def check(qual, obj):
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(qual)

    for name in ["load_model", "make", "make_vec", *CORE]:
        check(f"ncpgym.{name}", getattr(ncpgym, name))
    for cls in CORE:
        for attr in dir(getattr(ncpgym, cls)):
            if not attr.startswith("_"):
                check(f"ncpgym.{cls}.{attr}", getattr(getattr(ncpgym, cls), attr))
    for m in API_MODULES:
        mod = importlib.import_module(f"ncpgym.{m}")
        check(f"ncpgym.{m}", mod)
        for name in _public(mod):
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            check(f"ncpgym.{m}.{name}", obj)
            if inspect.isclass(obj):
                for attr, val in vars(obj).items():
                    if not attr.startswith("_") and (callable(val) or isinstance(val, (property, staticmethod, classmethod))):
                        check(f"ncpgym.{m}.{name}.{attr}", val)
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"


def test_benchmark_tables_in_the_pages_are_what_their_scripts_print():
    """A table between ``<!-- table: SCRIPT ARGS -->`` markers is regenerated from its JSON at
    every build (docs/hooks.py); the copy kept in the Markdown page equals that output."""
    sys.path.insert(0, str(DOCS))
    try:
        import hooks
    finally:
        sys.path.remove(str(DOCS))
    found = 0
    for page in DOCS.rglob("*.md"):
        if "results" in page.parts:
            continue
        text = page.read_text()
        for m in hooks.TABLE.finditer(text):
            assert m.group(3) == hooks.table(m.group(1), m.group(2).split()), f"{page.name}: {m.group(1)}"
            found += 1
    assert found >= 3
