#!/usr/bin/env bash
# Builds the documentation site into site/ (open site/index.html): MkDocs with the Material
# theme and mkdocstrings (the API reference from the docstrings and ncpgym/_core.pyi), with
# warnings as errors (a broken link or reference fails). Installs its tools when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
$PY -c "import mkdocs, material, mkdocstrings_handlers.python" 2>/dev/null || \
  $PY -m pip install -q --disable-pip-version-check -c constraints.txt mkdocs-material "mkdocstrings[python]"
NO_MKDOCS_2_WARNING=1 $PY -m mkdocs build --strict --site-dir "${1:-site}"
