"""Loading MJCF and URDF model files through MuJoCo's compiler."""

from .loader import from_mujoco, load_model

__all__ = ["load_model", "from_mujoco"]
