"""Choose MuJoCo's OpenGL backend for headless machines before ``mujoco`` is imported.

MuJoCo picks its GL backend from ``MUJOCO_GL`` once, when ``mujoco`` is first imported; its
default (GLFW) needs a display. When the user has not set ``MUJOCO_GL`` and there is no
display (Linux without ``DISPLAY`` / ``WAYLAND_DISPLAY``), ncpgym sets ``MUJOCO_GL=egl`` if
an EGL driver loads (Mesa's software renderer llvmpipe on a CPU-only machine), else
``osmesa`` if OSMesa loads, else ``egl`` (rendering then fails with an error naming the
Debian packages). No GL context is created here: this module only loads libraries.
"""

from __future__ import annotations

import ctypes
import os
import sys

# Debian packages that provide each backend (Mesa's software rasteriser included).
PACKAGES = {"egl": "libegl1 libegl-mesa0 libgl1-mesa-dri", "osmesa": "libosmesa6"}

chosen: str | None = None  # the backend ncpgym set, None when it left MUJOCO_GL alone


def _loads(*names: str) -> bool:
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            pass
    return False


def has_display(environ=os.environ) -> bool:
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def headless_backend() -> str:
    """'egl' when libEGL and a vendor driver (Mesa or NVIDIA) load, else 'osmesa' when
    libOSMesa loads, else 'egl'."""
    if _loads("libEGL.so.1") and _loads("libEGL_mesa.so.0", "libEGL_nvidia.so.0"):
        return "egl"
    if _loads("libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so"):
        return "osmesa"
    return "egl"


def choose_backend(environ=os.environ) -> str | None:
    """Set ``MUJOCO_GL`` for headless rendering when unset on a Linux machine without a
    display; returns the backend set (None: left alone)."""
    global chosen
    if not sys.platform.startswith("linux") or environ.get("MUJOCO_GL") or has_display(environ):
        return None
    chosen = headless_backend()
    environ["MUJOCO_GL"] = chosen
    return chosen
