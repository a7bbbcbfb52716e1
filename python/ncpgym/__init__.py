"""ncpgym: many robot worlds stepped in parallel by a non-smooth Newton NCP solver on
O(n) articulated-body dynamics, served to Python as Gymnasium vector environments."""

from importlib.metadata import PackageNotFoundError, version as _version

from . import _gl

# before anything imports mujoco, which reads MUJOCO_GL once (headless: egl or osmesa)
_gl.choose_backend()

from . import _core  # noqa: E402
from ._core import Batch, Builder, Model, Simulator, SolverOptions, State
from . import dynamics
from .models import load_model
from . import vector
from .tasks import TASK_IDS, register_all as _register_all

_register_all()


def make(id: str, **kwargs):
    """``gymnasium.make`` for an ncpgym task id (``"ncpgym/"`` may be omitted)."""
    import gymnasium

    return gymnasium.make(_full_id(id), **kwargs)


def make_vec(id: str, num_envs: int = 1, **kwargs):
    """``gymnasium.make_vec`` through the task's C++ batch (never Python sub-envs)."""
    import gymnasium

    return gymnasium.make_vec(_full_id(id), num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def _full_id(id: str) -> str:
    full = id if id.startswith("ncpgym/") else "ncpgym/" + id
    if full not in TASK_IDS:
        raise ValueError(f"unknown ncpgym task {id!r}; registered: {', '.join(TASK_IDS)}")
    return full

try:
    __version__ = _version("ncpgym")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = _core.__version__

__all__ = [
    "Batch",
    "Builder",
    "Model",
    "Simulator",
    "SolverOptions",
    "State",
    "TASK_IDS",
    "dynamics",
    "load_model",
    "make",
    "make_vec",
    "vector",
    "__version__",
]
