#!/usr/bin/env bash
# Developer loop: rebuild the editable install's build folder and refresh the installed
# extension module (scikit-build-core's editable mode copies it into site-packages).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build/dev -j2
dest=$(python3 -c "import importlib.util as u; print(u.find_spec('ncpgym._core').origin)")
# a new file (not overwritten in place): running processes keep the module they mapped
cp build/dev/_core*.so "$dest.tmp" && mv -f "$dest.tmp" "$dest"
