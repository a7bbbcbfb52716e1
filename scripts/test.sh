#!/usr/bin/env bash
# Runs every test, C++ (GoogleTest via ctest) and Python (pytest), on a fresh machine:
# installs what it needs, builds once into build/test (ccache-accelerated when present),
# installs the package from that build, then runs both suites.
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

# Python build requirements (the build below reuses them: no isolated environment) and
# the package with its test extras, built with the C++ tests into a persistent folder.
# (setuptools and wheel build sdists among the test requirements, e.g. rtb-data, in this
# same environment)
$PY -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "pybind11>=2.12" "cmeel-eigen>=3.4" ninja \
  setuptools wheel
$PY -m pip install -q --disable-pip-version-check --no-build-isolation \
  -Cbuild-dir=build/test -Ccmake.define.NCPGYM_BUILD_TESTS=ON ".[test]"

ctest --test-dir build/test --output-on-failure -j2
# Run pytest from outside the source tree so `import ncpgym` is the installed package.
(cd tests/python && $PY -m pytest -q -p no:cacheprovider "$@")
