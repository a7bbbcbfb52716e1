"""Loading MJCF and URDF model files through MuJoCo's compiler."""

from .export import to_mjcf
from .loader import from_mujoco, load_model

__all__ = ["load_model", "from_mujoco", "to_mjcf"]
