"""A compact PPO (Schulman et al., "Proximal Policy Optimization Algorithms", 2017) in torch
for Gymnasium vector environments on the CPU, written to be read top to bottom.

Pieces: Gaussian MLP policy with a state-independent log std and a separate MLP value
function; GAE(lambda) advantages (Schulman et al., 2016); clipped surrogate, value loss and
entropy bonus over shuffled minibatches; observations normalised by running statistics
and rewards scaled by the running std of the discounted return; Adam with a linearly
decaying learning rate; gradient-norm clipping.

Gymnasium's next-step autoreset is handled exactly: when an episode ends at step t, the
observation returned at t is the true final observation (bootstrapped on truncation, not
on termination) and the transition at t + 1, which only resets the world, is masked out
of the loss.
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

__all__ = ["PPOConfig", "ActorCritic", "RunningMeanStd", "PPO", "evaluate", "latest_checkpoint"]


@dataclass
class PPOConfig:
    rollout_steps: int = 64          # steps per world between updates
    epochs: int = 5
    minibatches: int = 8
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    lr: float = 3e-4
    lr_anneal: bool = True
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (256, 256)
    init_log_std: float = -0.5
    normalize_obs: bool = True
    normalize_reward: bool = True
    obs_clip: float = 10.0
    seed: int = 0
    torch_threads: int = 0           # 0: torch's default
    # demonstration-augmented PPO (Rajeswaran et al. 2018, DAPG, with a squared-error
    # behaviour-cloning term on the policy's mean): bc_coef * bc_decay**update weighs it
    bc_coef: float = 0.0
    bc_decay: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        # the demonstration term's weight must stay a non-negative, non-growing number
        if not (np.isfinite(self.bc_coef) and self.bc_coef >= 0):
            raise ValueError(f"PPOConfig.bc_coef: expected a finite number >= 0, got {self.bc_coef!r}")
        if not (0 < self.bc_decay <= 1):
            raise ValueError(f"PPOConfig.bc_decay: expected a number in (0, 1], got {self.bc_decay!r}")


class RunningMeanStd:
    """Running mean and variance over batches (Chan et al.'s parallel update)."""

    def __init__(self, shape: tuple[int, ...] = ()):
        self.mean = np.zeros(shape)
        self.var = np.ones(shape)
        self.count = 1e-4

    def update(self, x: np.ndarray) -> None:
        """Fold a batch of samples [n, *shape] into the running mean and variance."""
        mean, var, n = x.mean(axis=0), x.var(axis=0), x.shape[0]
        delta, total = mean - self.mean, self.count + n
        self.mean = self.mean + delta * n / total
        self.var = (self.var * self.count + var * n + delta**2 * self.count * n / total) / total
        self.count = total

    def state_dict(self) -> dict:
        return {"mean": self.mean, "var": self.var, "count": self.count}

    def load_state_dict(self, d: dict) -> None:
        self.mean, self.var, self.count = np.asarray(d["mean"]), np.asarray(d["var"]), float(d["count"])


def _mlp(sizes: list[int], out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(lin.weight, out_gain if last else math.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, act_dim: int, hidden: tuple[int, ...], init_log_std: float):
        super().__init__()
        self.actor = _mlp([obs_dim, *hidden, act_dim], 0.01)
        self.critic = _mlp([obs_dim, *hidden, 1], 1.0)
        self.log_std = nn.Parameter(torch.full((act_dim,), float(init_log_std)))

    def dist(self, obs: torch.Tensor) -> torch.distributions.Normal:
        return torch.distributions.Normal(self.actor(obs), self.log_std.exp())

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)


class PPO:
    """PPO on a Gymnasium vector env with Box observation and action spaces."""

    def __init__(self, envs, config: PPOConfig | None = None):
        self.envs = envs
        self.cfg = cfg = config or PPOConfig()
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.n = envs.num_envs
        self.obs_dim = int(np.prod(envs.single_observation_space.shape))
        self.act_dim = int(np.prod(envs.single_action_space.shape))
        self.low = envs.single_action_space.low.astype(np.float64)
        self.high = envs.single_action_space.high.astype(np.float64)
        self.policy = ActorCritic(self.obs_dim, self.act_dim, cfg.hidden, cfg.init_log_std)
        self.opt = torch.optim.Adam(self.policy.parameters(), lr=cfg.lr, eps=1e-5)
        self.obs_rms = RunningMeanStd((self.obs_dim,))
        self.ret_rms = RunningMeanStd(())
        self.env_steps = 0
        self.updates = 0
        self._obs, _ = envs.reset(seed=cfg.seed)
        self._disc_return = np.zeros(self.n)
        self._ep_return = np.zeros(self.n)
        self._ep_length = np.zeros(self.n, np.int64)
        self._after_done = np.zeros(self.n, bool)  # this world's next step is a reset step
        self.finished_returns: list[float] = []
        self.finished_lengths: list[int] = []
        self.finished_success: list[float] = []  # info["is_success"] at episode ends, where a task defines it
        self.elapsed_before = 0.0  # training seconds of earlier legs of a resumed run
        self.interrupted = False
        self._between_updates = True  # the trainer's state is that of a finished update
        self._demo: tuple[np.ndarray, torch.Tensor] | None = None  # (raw observations, actions)

    def set_demonstrations(self, obs: np.ndarray, actions: np.ndarray) -> None:
        """Observation-action pairs [M, obs_dim], [M, act_dim] the policy's mean is pulled
        towards while ``bc_coef * bc_decay**update`` > 0 (a behaviour-cloning term added to
        PPO's loss, as DAPG adds one to the policy gradient: the value of what the
        demonstration does is then learned from states PPO would take long to reach)."""
        obs, actions = np.asarray(obs, np.float64), np.asarray(actions, np.float64)
        if obs.ndim != 2 or obs.shape[1] != self.obs_dim or actions.shape != (len(obs), self.act_dim) or not len(obs):
            raise ValueError(f"set_demonstrations: expected observations [M, {self.obs_dim}] and actions "
                             f"[M, {self.act_dim}] with M > 0, got {obs.shape} and {actions.shape}")
        if not (np.isfinite(obs).all() and np.isfinite(actions).all()):
            raise ValueError("set_demonstrations: observations and actions must be finite")
        self._demo = (obs, torch.as_tensor(np.clip(actions, self.low, self.high), dtype=torch.float32))

    def pretrain_bc(self, steps: int, batch: int = 256) -> float:
        """Behaviour cloning alone before the first rollout (DAPG's first phase): the
        observation statistics take in the demonstrations (the standardisation the cloned
        mapping is learned under stays close to the one training then sees), then ``steps``
        Adam steps on the squared error of the policy's mean over ``batch`` demonstration
        pairs each. Returns the mean loss of the last (up to) 100 steps."""
        if self._demo is None:
            raise ValueError("pretrain_bc: set_demonstrations first")
        if self.updates:
            raise ValueError("pretrain_bc: only before the first update")
        if self.cfg.normalize_obs:
            self.obs_rms.update(self._demo[0])
        x = torch.as_tensor(self.normalize(self._demo[0]), dtype=torch.float32)
        y = self._demo[1]
        losses: list[float] = []
        for _ in range(int(steps)):
            j = torch.randint(len(x), (min(batch, len(x)),))
            bc = (self.policy.actor(x[j]) - y[j]).pow(2).sum(-1).mean()
            self.opt.zero_grad()
            bc.backward()
            nn.utils.clip_grad_norm_(self.policy.parameters(), self.cfg.max_grad_norm)
            self.opt.step()
            losses.append(bc.item())
        return float(np.mean(losses[-100:])) if losses else float("nan")

    def bc_weight(self) -> float:
        """The behaviour-cloning term's weight at this update (0 without demonstrations)."""
        if self._demo is None:
            return 0.0
        return self.cfg.bc_coef * self.cfg.bc_decay ** self.updates

    # -- observation and action plumbing --------------------------------------------------

    def normalize(self, obs: np.ndarray) -> np.ndarray:
        """Observations standardised by the running mean and std and clipped to +-obs_clip (unchanged when normalize_obs is off)."""
        if not self.cfg.normalize_obs:
            return obs
        z = (obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + 1e-8)
        return np.clip(z, -self.cfg.obs_clip, self.cfg.obs_clip)

    def act(self, obs: np.ndarray, deterministic: bool = False) -> np.ndarray:
        """Actions for raw observations [N, obs_dim] (clipped to the action space)."""
        with torch.no_grad():
            x = torch.as_tensor(self.normalize(obs), dtype=torch.float32)
            d = self.policy.dist(x)
            a = d.mean if deterministic else d.sample()
        return np.clip(a.numpy().astype(np.float64), self.low, self.high)

    # -- one update: collect a rollout, then optimise -------------------------------------

    def collect(self) -> dict[str, np.ndarray]:
        """Step every world rollout_steps times with sampled actions; the rollout buffer (observations, actions, log-probabilities, values, rewards, flags)."""
        cfg, T, N = self.cfg, self.cfg.rollout_steps, self.n
        buf = {
            "obs": np.zeros((T, N, self.obs_dim), np.float32),
            "act": np.zeros((T, N, self.act_dim), np.float32),
            "logp": np.zeros((T, N), np.float32),
            "val": np.zeros((T + 1, N), np.float32),
            "rew": np.zeros((T, N), np.float32),
            "term": np.zeros((T, N), bool),
            "done": np.zeros((T, N), bool),
            "valid": np.zeros((T, N), bool),
        }
        obs = self._obs
        for t in range(T):
            if cfg.normalize_obs:
                self.obs_rms.update(obs)
            x = torch.as_tensor(self.normalize(obs), dtype=torch.float32)
            with torch.no_grad():
                d = self.policy.dist(x)
                a = d.sample()
                buf["logp"][t] = d.log_prob(a).sum(-1).numpy()
                buf["val"][t] = self.policy.value(x).numpy()
            buf["obs"][t] = x.numpy()
            buf["act"][t] = a.numpy()
            buf["valid"][t] = ~self._after_done
            env_a = np.clip(a.numpy().astype(np.float64), self.low, self.high)
            obs, rew, term, trunc, info = self.envs.step(env_a.astype(self.envs.single_action_space.dtype))
            done = term | trunc
            buf["rew"][t], buf["term"][t], buf["done"][t] = self._scale(rew, done), term, done
            # episode statistics (the reset step after an episode is not part of it)
            live = ~self._after_done
            self._ep_return[live] += rew[live]
            self._ep_length[live] += 1
            if done.any():
                if "is_success" in info:  # the terminal step's info (next-step autoreset)
                    self.finished_success.extend(np.asarray(info["is_success"], float)[done].tolist())
                self.finished_returns.extend(self._ep_return[done].tolist())
                self.finished_lengths.extend(self._ep_length[done].tolist())
                self._ep_return[done] = 0
                self._ep_length[done] = 0
            self._after_done = done
            self.env_steps += N
        with torch.no_grad():
            buf["val"][T] = self.policy.value(torch.as_tensor(self.normalize(obs), dtype=torch.float32)).numpy()
        self._obs = obs
        return buf

    def _scale(self, rew: np.ndarray, done: np.ndarray) -> np.ndarray:
        """Reward divided by the running std of the discounted return."""
        if not self.cfg.normalize_reward:
            return rew
        valid = ~self._after_done
        self._disc_return = np.where(valid, self._disc_return * self.cfg.gamma + rew, self._disc_return)
        if valid.any():
            self.ret_rms.update(self._disc_return[valid])
        out = rew / np.sqrt(self.ret_rms.var + 1e-8)
        self._disc_return[done] = 0
        return out

    def advantages(self, buf) -> tuple[np.ndarray, np.ndarray]:
        """GAE(lambda) with next-step-autoreset masks: returns (advantages, returns)."""
        cfg, T = self.cfg, self.cfg.rollout_steps
        adv = np.zeros((T, self.n), np.float32)
        last = np.zeros(self.n, np.float32)
        for t in reversed(range(T)):
            # after a termination the next state's value is 0; after a truncation the
            # observation returned at t is the final one and is bootstrapped
            next_v = buf["val"][t + 1] * (~buf["term"][t])
            delta = buf["rew"][t] + cfg.gamma * next_v - buf["val"][t]
            last = delta + cfg.gamma * cfg.gae_lambda * (~buf["done"][t]) * last
            last = np.where(buf["valid"][t], last, 0.0)  # reset steps carry nothing
            adv[t] = last
        return adv, adv + buf["val"][:T]

    def update(self, buf) -> dict[str, float]:
        """PPO's clipped-surrogate optimisation over a rollout (epochs x minibatches); mean losses, entropy, KL and clip fraction."""
        cfg = self.cfg
        adv, ret = self.advantages(buf)
        valid = buf["valid"].reshape(-1)
        idx_all = np.flatnonzero(valid)
        obs = torch.as_tensor(buf["obs"].reshape(-1, self.obs_dim)[idx_all])
        act = torch.as_tensor(buf["act"].reshape(-1, self.act_dim)[idx_all])
        logp_old = torch.as_tensor(buf["logp"].reshape(-1)[idx_all])
        adv_t = torch.as_tensor(adv.reshape(-1)[idx_all])
        ret_t = torch.as_tensor(ret.reshape(-1)[idx_all])
        n = len(idx_all)
        mb = max(1, n // cfg.minibatches)
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_frac": 0.0}
        bc_w = self.bc_weight()
        if self._demo is not None:
            stats["bc_loss"] = 0.0
            # the demonstrations seen as the rollout's observations are (today's statistics)
            demo_x = torch.as_tensor(self.normalize(self._demo[0]), dtype=torch.float32)
        count = 0
        for _ in range(cfg.epochs):
            perm = torch.randperm(n)
            for start in range(0, n - mb + 1, mb):
                i = perm[start : start + mb]
                d = self.policy.dist(obs[i])
                logp = d.log_prob(act[i]).sum(-1)
                ratio = (logp - logp_old[i]).exp()
                a = adv_t[i]
                # a minibatch of one sample (tiny runs) has no spread: only centre it
                a = (a - a.mean()) / (a.std() + 1e-8) if len(i) > 1 else a - a.mean()
                pg = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
                v_loss = 0.5 * (self.policy.value(obs[i]) - ret_t[i]).pow(2).mean()
                ent = d.entropy().sum(-1).mean()
                loss = pg + cfg.vf_coef * v_loss - cfg.ent_coef * ent
                if self._demo is not None:
                    j = torch.randint(len(demo_x), (len(i),))
                    bc = (self.policy.actor(demo_x[j]) - self._demo[1][j]).pow(2).sum(-1).mean()
                    loss = loss + bc_w * bc
                    stats["bc_loss"] += bc.item()
                self.opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.policy.parameters(), cfg.max_grad_norm)
                self.opt.step()
                with torch.no_grad():
                    stats["policy_loss"] += pg.item()
                    stats["value_loss"] += v_loss.item()
                    stats["entropy"] += ent.item()
                    stats["approx_kl"] += ((ratio - 1) - (logp - logp_old[i])).mean().item()
                    stats["clip_frac"] += ((ratio - 1).abs() > cfg.clip).float().mean().item()
                count += 1
        self.updates += 1
        var = ret.reshape(-1)[idx_all].var()
        stats = {k: v / max(count, 1) for k, v in stats.items()}
        if self._demo is not None:
            stats["bc_weight"] = bc_w
        stats["explained_var"] = float(1 - np.var(ret.reshape(-1)[idx_all] - buf["val"][:-1].reshape(-1)[idx_all]) / (var + 1e-8))
        return stats

    # -- the training loop ----------------------------------------------------------------

    def learn(
        self,
        total_steps: int | None = None,
        seconds: float | None = None,
        out: str | Path | None = None,
        checkpoint_every: int = 25,
        progress: bool = True,
        callback: Callable[[dict], None] | None = None,
        log_every: float | None = 30.0,
    ) -> list[dict]:
        """Train until `total_steps` env steps or `seconds` of wall time (whichever first)
        or Ctrl-C (then ``self.interrupted`` is True). With `out`, writes progress.csv (one
        row per update), a checkpoint every `checkpoint_every` updates (0: none), final.pt
        and learning_curve.png there. Without a progress bar, prints a line every
        `log_every` seconds (None: never). Returns the rows (a resumed run's include the
        earlier legs' rows from `out`/progress.csv).

        Budgets count the whole run: after :meth:`resume`, `total_steps` and `seconds`
        include the steps and training time before the checkpoint, so the learning rate
        anneals as in an uninterrupted run (with a step budget the resumed run is bitwise
        the uninterrupted one)."""
        if total_steps is None and seconds is None:
            raise ValueError("give total_steps or seconds")
        out = Path(out) if out is not None else None
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
        per_update = self.cfg.rollout_steps * self.n
        planned = total_steps if total_steps is not None else None
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=planned, unit="step", unit_scale=True, dynamic_ncols=True, mininterval=1.0,
                       desc="PPO", bar_format=None if planned else "{desc}: {n_fmt} steps [{elapsed}, {rate_fmt}]{postfix}")
        rows: list[dict] = _previous_rows(out / "progress.csv", self.updates) if out is not None else []
        t0 = time.perf_counter() - self.elapsed_before  # a resumed run's clock goes on
        writer = None
        fh = None
        self.interrupted = False
        last_log = time.perf_counter()
        try:
            while True:
                elapsed = time.perf_counter() - t0
                if total_steps is not None and self.env_steps >= total_steps:
                    break
                if seconds is not None and elapsed >= seconds:
                    break
                if self.cfg.lr_anneal:
                    if total_steps is not None:
                        frac = 1.0 - self.env_steps / total_steps
                    else:
                        frac = 1.0 - elapsed / seconds
                    for g in self.opt.param_groups:
                        g["lr"] = self.cfg.lr * max(frac, 0.05)
                self._between_updates = False
                buf = self.collect()
                stats = self.update(buf)
                self.elapsed_before = time.perf_counter() - t0
                recent = self.finished_returns[-100:]
                row = {
                    "update": self.updates,
                    "env_steps": self.env_steps,
                    "time_s": round(time.perf_counter() - t0, 3),
                    "steps_per_s": round(self.env_steps / max(time.perf_counter() - t0, 1e-9), 1),
                    "episode_return": float(np.mean(recent)) if recent else float("nan"),
                    "episode_length": float(np.mean(self.finished_lengths[-100:])) if recent else float("nan"),
                    "episodes": len(self.finished_returns),
                    # share of the last 100 episodes that ended in success (nan: no is_success)
                    "success_rate": float(np.mean(self.finished_success[-100:])) if self.finished_success
                    else float("nan"),
                    **{k: round(v, 6) for k, v in stats.items()},
                }
                rows.append(row)
                self._between_updates = True
                if out is not None:
                    if writer is None:  # earlier legs' rows first (a resumed run)
                        fh = open(out / "progress.csv", "w", newline="")
                        # columns of every leg (a resumed run may add or drop one, e.g. bc_loss);
                        # a row without a column leaves it empty
                        names = list(dict.fromkeys(k for r in rows for k in r))
                        writer = csv.DictWriter(fh, fieldnames=names, restval="")
                        writer.writeheader()
                        writer.writerows(rows[:-1])
                    writer.writerow(row)
                    fh.flush()
                    if checkpoint_every and self.updates % checkpoint_every == 0:
                        self.save(out / f"checkpoint_{self.updates:05d}.pt")
                if bar is not None:
                    bar.update(per_update)
                    bar.set_postfix(ret=f"{row['episode_return']:.1f}", sps=f"{row['steps_per_s']:.0f}")
                elif log_every is not None and time.perf_counter() - last_log >= log_every:
                    last_log = time.perf_counter()
                    success = "" if np.isnan(row["success_rate"]) else f", success {row['success_rate']:.2f}"
                    print(f"update {row['update']}: {row['env_steps']} env steps in {row['time_s']:.0f} s "
                          f"({row['steps_per_s']:.0f}/s), return {row['episode_return']:.2f}{success}", flush=True)
                if callback is not None:
                    callback(row)
        except KeyboardInterrupt:
            # Ctrl-C ends training like the budget does: final.pt and the curve are written
            self.interrupted = True
        finally:
            if bar is not None:
                bar.close()
            if fh is not None:
                fh.close()
        if out is not None:
            self.save(out / "final.pt")
            spec = getattr(self.envs, "spec", None)
            title = getattr(spec, "id", None) or getattr(self.envs, "env_id", None)
            plot_learning_curve(rows, out / "learning_curve.png", title=title)
        return rows

    def save(self, path: str | Path) -> None:
        """The policy and observation statistics (what :meth:`load` and ``ncpgym.play``
        read) and, when saved between updates, everything :meth:`resume` needs."""
        torch.save(
            {
                "policy": self.policy.state_dict(),
                "obs_rms": self.obs_rms.state_dict(),
                "config": asdict(self.cfg),
                "obs_dim": self.obs_dim,
                "act_dim": self.act_dim,
                "env_steps": self.env_steps,
                "updates": self.updates,
                # Ctrl-C inside a rollout or an update leaves a half-done state: not resumable
                "resume": self._trainer_state() if self._between_updates else None,
            },
            path,
        )

    def _trainer_state(self) -> dict[str, Any]:
        get_state = getattr(self.envs, "get_state", None)
        return {
            "optimizer": self.opt.state_dict(),
            "ret_rms": self.ret_rms.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "elapsed": self.elapsed_before,
            "obs": self._obs.copy(),
            "disc_return": self._disc_return.copy(),
            "ep_return": self._ep_return.copy(),
            "ep_length": self._ep_length.copy(),
            "after_done": self._after_done.copy(),
            "finished": (list(self.finished_returns), list(self.finished_lengths), list(self.finished_success)),
            "envs": get_state() if get_state is not None else None,
        }

    def load(self, path: str | Path) -> None:
        """Load a policy and its normalisers from a saved file (save() or final.pt)."""
        self._load_policy(torch.load(path, weights_only=False))

    def _load_policy(self, ck: dict) -> None:
        self.policy.load_state_dict(ck["policy"])
        self.obs_rms.load_state_dict(ck["obs_rms"])

    def resume(self, path: str | Path) -> None:
        """Continue the run saved at `path` (a checkpoint or final.pt written between
        updates): policy, optimiser, normalisers, counters, torch's random stream and, for
        envs with ``get_state`` (ncpgym's vector envs), the worlds mid-episode. Envs
        without it (Ray shards) start new episodes, seeded by the update count."""
        ck = torch.load(path, weights_only=False)
        st = ck.get("resume")
        if st is None:
            raise ValueError(f"{path}: saved during a rollout or an update (Ctrl-C) or by an older "
                             "ncpgym; resume from a checkpoint_*.pt instead")
        if (ck["obs_dim"], ck["act_dim"], list(ck["config"]["hidden"])) != (self.obs_dim, self.act_dim, list(self.cfg.hidden)):
            raise ValueError(f"{path}: a policy for {ck['obs_dim']} observations, {ck['act_dim']} actions and "
                             f"hidden {list(ck['config']['hidden'])}; this trainer has {self.obs_dim}, {self.act_dim}, "
                             f"{list(self.cfg.hidden)}")
        self._load_policy(ck)
        self.opt.load_state_dict(st["optimizer"])
        self.ret_rms.load_state_dict(st["ret_rms"])
        torch.set_rng_state(st["torch_rng"])
        self.env_steps, self.updates, self.elapsed_before = ck["env_steps"], ck["updates"], st["elapsed"]
        self._disc_return, self._ep_return = st["disc_return"].copy(), st["ep_return"].copy()
        self._ep_length, self._after_done = st["ep_length"].copy(), st["after_done"].copy()
        self.finished_returns, self.finished_lengths, self.finished_success = (list(x) for x in st["finished"])
        if st["envs"] is not None and hasattr(self.envs, "set_state"):
            self.envs.set_state(st["envs"])
            self._obs = st["obs"].copy()
        else:  # new episodes: nothing carries over from interrupted ones
            self._obs, _ = self.envs.reset(seed=self.cfg.seed + self.updates)
            self._disc_return[:] = 0
            self._ep_return[:] = 0
            self._ep_length[:] = 0
            self._after_done[:] = False


def latest_checkpoint(out: str | Path) -> Path:
    """The resumable checkpoint of the run in `out` with the most updates (final.pt or
    checkpoint_*.pt). Checkpoints are read newest first (their names carry the update) and
    only until the first resumable one: each holds the worlds' state."""
    def resumable_updates(path: Path) -> int:
        ck = torch.load(path, weights_only=False)
        return ck.get("updates", -1) if ck.get("resume") is not None else -1

    final = Path(out) / "final.pt"
    best, best_updates = (final, resumable_updates(final)) if final.exists() else (None, -1)
    for path in sorted(Path(out).glob("checkpoint_*.pt"), reverse=True):
        if int(path.stem.split("_")[1]) <= best_updates:
            break  # final.pt is newer than every checkpoint left
        updates = resumable_updates(path)
        if updates > best_updates:
            best, best_updates = path, updates
            break
    if best is None or best_updates < 0:
        raise FileNotFoundError(f"{out}: no resumable checkpoint (final.pt or checkpoint_*.pt saved between updates)")
    return best


def _previous_rows(path: Path, upto: int) -> list[dict]:
    """Rows of an earlier leg's progress.csv up to update `upto` (none for a new run)."""
    if upto == 0 or not path.exists():
        return []
    with open(path, newline="") as fh:
        # an empty cell is a column that leg did not have
        rows = [{k: int(v) if k == "update" else float(v) if v != "" else float("nan") for k, v in r.items()}
                for r in csv.DictReader(fh)]
    for r in rows:
        for k in ("env_steps", "episodes"):
            r[k] = int(r[k])
    return [r for r in rows if r["update"] <= upto]


def evaluate(envs, act: Callable[[np.ndarray], np.ndarray], episodes: int, seed: int = 12345,
             with_success: bool = False):
    """Returns of the first `episodes` episodes finished by `act` on a vector env (one
    episode per world at most: worlds that finish are not counted again). With
    `with_success`, also each episode's ``info["is_success"]`` at its last step (nan where
    the task defines no success): (returns, successes)."""
    obs, _ = envs.reset(seed=seed)
    n = envs.num_envs
    if episodes > n:
        raise ValueError(f"evaluate: episodes ({episodes}) must be <= num_envs ({n})")
    ret = np.zeros(n)
    finished = np.zeros(n, bool)
    out = np.full(n, np.nan)
    success = np.full(n, np.nan)
    while not finished[:episodes].all():
        obs, r, term, trunc, info = envs.step(act(obs))
        ret += np.where(finished, 0.0, r)
        done = (term | trunc) & ~finished
        out[done] = ret[done]
        if "is_success" in info:
            success[done] = np.asarray(info["is_success"], float)[done]
        finished |= done
    if with_success:
        return out[:episodes], success[:episodes]
    return out[:episodes]


def plot_learning_curve(rows: list[dict], path: str | Path, title: str | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["env_steps"] for r in rows]
    y = [r["episode_return"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, y)
    ax.set_xlabel("environment steps")
    ax.set_ylabel("mean episode return (last 100)")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
