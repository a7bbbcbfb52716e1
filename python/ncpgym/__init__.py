"""ncpgym: many robot worlds stepped in parallel by a non-smooth Newton NCP solver on
O(n) articulated-body dynamics, served to Python as Gymnasium vector environments."""

from importlib.metadata import PackageNotFoundError, version as _version

from . import _core
from ._core import Builder, Model, Simulator, State
from . import dynamics
from .models import load_model

try:
    __version__ = _version("ncpgym")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = _core.__version__

__all__ = ["Builder", "Model", "Simulator", "State", "dynamics", "load_model", "__version__"]
