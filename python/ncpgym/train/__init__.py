"""Training on ncpgym's vector environments: a compact PPO in torch (``ncpgym.train.ppo``),
an adapter for Stable-Baselines3 (``ncpgym.train.sb3``) and the command line
``python -m ncpgym.train --env ncpgym/InvertedPendulum-v0 --minutes 2 --out runs/ip``.

Needs the ``train`` extra: ``pip install "ncpgym[train]"``.
"""

from .ppo import PPO, PPOConfig, evaluate, latest_checkpoint

__all__ = ["PPO", "PPOConfig", "evaluate", "latest_checkpoint"]
