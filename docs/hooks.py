"""MkDocs hook: benchmark tables regenerated from benchmarks/results/*.json at every build.

A page marks a table with ``<!-- table: SCRIPT ARGS -->`` ... ``<!-- /table -->``; the build
replaces what is between the markers by SCRIPT's output (run from the repository root with
ARGS), so a rerun benchmark's JSON shows on the site without editing the page. The pages
keep the last output too, for reading them as Markdown; tests/python/test_docs.py checks the
two agree.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = re.compile(r"<!-- table: (\S+)([^\n]*?) -->\n(.*?)<!-- /table -->", re.S)


def table(script: str, args: list[str]) -> str:
    """SCRIPT's standard output, run as __main__ from the repository root with ARGS."""
    out, argv, cwd = io.StringIO(), sys.argv, os.getcwd()
    sys.argv = [script, *args]
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(ROOT / script), run_name="__main__")
    except SystemExit as e:  # a script that ends with sys.exit(0) after printing
        if e.code not in (None, 0):
            raise RuntimeError(f"{script} {' '.join(args)} exited with {e.code}") from e
    finally:
        sys.argv = argv
        os.chdir(cwd)
    return out.getvalue().strip() + "\n"


def regenerate(markdown: str) -> str:
    return TABLE.sub(lambda m: f"<!-- table: {m.group(1)}{m.group(2)} -->\n{table(m.group(1), m.group(2).split())}"
                     "<!-- /table -->", markdown)


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001 - MkDocs' hook signature
    return regenerate(markdown)
