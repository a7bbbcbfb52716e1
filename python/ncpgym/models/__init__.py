"""Loading MJCF and URDF model files through MuJoCo's compiler."""

from .export import to_mjcf
from .hull import convex_hull
from .loader import compile_urdf, from_mujoco, load_model

__all__ = ["load_model", "from_mujoco", "compile_urdf", "to_mjcf", "convex_hull"]
