"""Loading MJCF and URDF model files through MuJoCo's compiler."""

from .export import to_mjcf
from .hull import convex_hull
from .loader import built, compile_urdf, from_mujoco, load_model, mujoco_builder

__all__ = ["load_model", "from_mujoco", "mujoco_builder", "built", "compile_urdf", "to_mjcf", "convex_hull"]
