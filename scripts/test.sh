#!/usr/bin/env bash
# Runs every test, C++ (GoogleTest via ctest) and Python (pytest), on a fresh machine:
# installs what it needs, builds once into build/ncpgym (scripts/install.sh, shared with
# scripts/train.sh; ccache-accelerated when present), then runs both suites.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# System packages: GoogleTest (and ccache) from Debian when missing and we may install.
if ! { [ -f /usr/include/gtest/gtest.h ] && command -v ccache >/dev/null; }; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libgtest-dev ccache >/dev/null
  else
    echo "scripts/test.sh: install GoogleTest (Debian: libgtest-dev) to build the C++ tests" >&2
  fi
fi

# Headless rendering (tests/python/test_render.py): Mesa's EGL with its software rasteriser
# (llvmpipe), and OSMesa as the fallback ncpgym picks when EGL does not load.
if ! { compgen -G "/usr/lib/*/libEGL_mesa.so.0" && compgen -G "/usr/lib/*/dri/swrast_dri.so" \
       && compgen -G "/usr/lib/*/libOSMesa.so.*"; } >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri libosmesa6 >/dev/null
  else
    echo "scripts/test.sh: install Mesa's EGL for rendering tests (Debian: libegl1 libegl-mesa0 libgl1-mesa-dri libosmesa6)" >&2
  fi
fi

# ncpgym with its test extras and the C++ tests, from the build scripts/train.sh shares.
bash scripts/install.sh test
ctest --test-dir build/ncpgym --output-on-failure -j2
# Run pytest from outside the source tree so `import ncpgym` is the installed package, one
# worker per core (pytest-xdist; the Ray modules share one worker: --dist loadgroup).
(cd tests/python && $PY -m pytest -q -p no:cacheprovider -n auto --dist loadgroup "$@")
