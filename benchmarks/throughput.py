"""Environment throughput: ncpgym/Humanoid-v0 against MuJoCo on the same humanoid.

    python benchmarks/throughput.py --json benchmarks/results/throughput.json

Rows: {"engine", "task", "num_envs", "threads", "physics_dt", "control_dt",
"env_steps_per_s", "python_overhead_frac"} (plus "substeps").

* ncpgym: ``gymnasium.make_vec("ncpgym/Humanoid-v0")`` with random actions, autoreset on
  (episodes end when the humanoid falls, as in training). python_overhead_frac is the share
  of wall time outside the C++ batch step (observations, rewards, resets, checks).
* mujoco.rollout: the same humanoid.xml, compiled by MuJoCo, stepped by
  ``mujoco.rollout.rollout`` with one MjData per thread: at its own timestep (0.003 s, 5
  substeps per 0.015 s action, as Humanoid-v5) and at ncpgym's (0.0075 s, 2 substeps).
  Rollouts are 20 actions long from Humanoid-v5's reset distribution, about the length
  of a random-action episode, so both engines see standing-and-falling humanoids.
  python_overhead_frac is null (the loop is inside MuJoCo).
* gymnasium: ``gymnasium.make_vec("Humanoid-v5", vectorization_mode="sync")``, the
  user-level baseline (one Python env per world).
* envpool: ``envpool.make("Humanoid-v4", env_type="gymnasium")`` if envpool imports.

``--yumi`` measures ncpgym/YuMiDrawer-v0 (no peer runs it) with its scripted opener
(reach, grasp, pull: 300 env steps, the drawer out by then): env steps/s timed in
env.step only (the opener's Python is left out), physics world-steps/s, and contacts per
world, against the seed's YuMi batch (Table 2: 6,400 bodies, 4,082 contacts, 57.8 ms a
step on its GPU); merged into the JSON under "yumi".

``--phases`` prints where one Humanoid-v0 env step spends its time instead (the C++ step,
the task's evaluate, resets, the observation), for the first ``--num-envs`` on each
``--threads``.

``--robot-tasks`` measures ncpgym/FetchTomato-v0 and ncpgym/FetchBeamInsert-v0 instead (no
peer runs them) through a whole scripted episode: env steps/s and core milliseconds per
world and physics step, against the seed's Table 2 per-step times on its GPU; merged into
the JSON under "robot_tasks". It then measures ncpgym/ShadowHandBlock-v0 under random
actions against ``mujoco.rollout`` on the same model file (at its 2 ms and at ncpgym's 8 ms)
and against Gymnasium-Robotics' HandManipulateBlockRotateZ-v1 (one env, a SyncVectorEnv of
64), 0.04 s per env step everywhere, under "shadow_hand" (``--shadow-only``: just these).

Every configuration is timed for about ``--seconds`` after a warm-up; the figure is the
median of ``--repeats`` rounds, each round timing every configuration of one N in turn
(a shared machine's speed drifts over minutes: the ratios compare runs of the same rounds).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym
from ncpgym.tasks.humanoid import humanoid_xml

CONTROL_DT = 0.015


class _TimedBatch:
    """Forwards to a Batch and accumulates the wall time of its step() calls."""

    def __init__(self, batch):
        object.__setattr__(self, "_b", batch)
        object.__setattr__(self, "elapsed", 0.0)

    def step(self, *a, **k):
        t = time.perf_counter()
        self._b.step(*a, **k)
        object.__setattr__(self, "elapsed", self.elapsed + time.perf_counter() - t)

    def __getattr__(self, name):
        return getattr(self._b, name)


class _Bench:
    """One configuration to time: `loop(nsteps) -> (env steps done, extra)`, its row (the
    rate filled in by :func:`_interleaved`), and how to free it."""

    def __init__(self, loop, row: dict, close=lambda: None):
        self.loop, self.row, self.close = loop, row, close
        self.rates, self.extras = [], []


def _interleaved(benches: list[_Bench], seconds: float, repeats: int) -> list[dict]:
    """Median steps/s of each bench over `repeats` rounds, each round timing every bench in
    turn for about `seconds`: the configurations compared in a ratio see the same machine
    (a shared machine's speed drifts over minutes; timing them one after another would put
    that drift into the ratios)."""
    sizes = []
    for b in benches:
        b.loop(1)  # warm-up
        t = time.perf_counter()
        b.loop(1)
        sizes.append(max(1, int(seconds / max(time.perf_counter() - t, 1e-6))))
    for _ in range(repeats):
        for b, n in zip(benches, sizes):
            t = time.perf_counter()
            done, extra = b.loop(n)
            b.rates.append(done / (time.perf_counter() - t))
            b.extras.append(extra)
    rows = []
    for b in benches:
        k = int(np.argsort(b.rates)[len(b.rates) // 2])
        b.row["env_steps_per_s"] = b.rates[k]
        if b.extras[k] is not None:  # ncpgym's loop reports its share outside the C++ step
            b.row["python_overhead_frac"] = b.extras[k]
        b.close()
        rows.append(b.row)
    return rows


def bench_ncpgym(num_envs: int, threads: int, task: str = "Humanoid-v0") -> _Bench:
    env = gym.make_vec(f"ncpgym/{task}", num_envs=num_envs, num_threads=threads)
    env.reset(seed=0)
    core = env.unwrapped._c
    timed = _TimedBatch(core.batch)
    core.batch = timed
    rng = np.random.default_rng(0)
    high = 0.4 if task == "Humanoid-v0" else 1.0
    dim = env.single_action_space.shape[0]
    actions = rng.uniform(-high, high, (64, num_envs, dim)).astype(np.float32)

    def loop(n):
        object.__setattr__(timed, "elapsed", 0.0)
        t = time.perf_counter()
        for k in range(n):
            env.step(actions[k % 64])
        total = time.perf_counter() - t
        return n * num_envs, 1.0 - timed.elapsed / total

    b = core.task
    row = {
        "engine": "ncpgym",
        "task": task,
        "num_envs": num_envs,
        "threads": threads,
        "physics_dt": timed.timestep,
        "control_dt": timed.timestep * b.frame_skip,
        "substeps": b.frame_skip,
    }
    return _Bench(loop, row, env.close)


def _rollout_bench(m, datas, states, ctrl, horizon: int, row: dict) -> _Bench:
    """mujoco.rollout over every world's state for `horizon` actions per call (ctrl already
    repeated over the substeps); row["stable"] turns False if a state goes non-finite."""
    from mujoco import rollout

    num_envs = len(states)

    def loop(n):
        done = 0
        while done < max(1, n // horizon) * horizon * num_envs:
            st, _ = rollout.rollout(m, datas, states, ctrl)
            row["stable"] &= bool(np.isfinite(st).all())
            done += num_envs * horizon
        return done, None

    return _Bench(loop, row)


def bench_mujoco_rollout(num_envs: int, threads: int, physics_dt: float) -> _Bench:
    import mujoco

    m = mujoco.MjModel.from_xml_path(humanoid_xml())
    m.opt.timestep = physics_dt
    substeps = int(round(CONTROL_DT / physics_dt))
    datas = [mujoco.MjData(m) for _ in range(threads)]
    d = mujoco.MjData(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    size = mujoco.mj_stateSize(m, spec)
    rng = np.random.default_rng(0)
    states = np.empty((num_envs, size))
    for i in range(num_envs):  # Humanoid-v5's reset distribution (setup, not timed)
        mujoco.mj_resetData(m, d)
        d.qpos[:] = m.qpos0 + rng.uniform(-0.01, 0.01, m.nq)
        d.qvel[:] = rng.uniform(-0.01, 0.01, m.nv)
        mujoco.mj_getState(m, d, states[i], spec)
    horizon = 20  # actions per rollout
    ctrl = np.repeat(rng.uniform(-0.4, 0.4, (num_envs, horizon, m.nu)), substeps, axis=1)
    row = {
        "engine": "mujoco.rollout",
        "task": "humanoid.xml",
        "num_envs": num_envs,
        "threads": threads,
        "physics_dt": physics_dt,
        "control_dt": CONTROL_DT,
        "substeps": substeps,
        "python_overhead_frac": None,
        "stable": True,
    }

    return _rollout_bench(m, datas, states, ctrl, horizon, row)


def _bench_peer_env(env, engine: str, task: str, num_envs: int, threads: int) -> _Bench:
    """Random actions through a peer's vector env (MuJoCo at 0.003 s x 5 inside)."""
    env.reset(seed=0) if engine != "envpool" else env.reset()
    acts = np.random.default_rng(0).uniform(-0.4, 0.4, (64, num_envs, 17)).astype(np.float32)

    def loop(n):
        for k in range(n):
            env.step(acts[k % 64])
        return n * num_envs, None

    row = {"engine": engine, "task": task, "num_envs": num_envs, "threads": threads, "physics_dt": 0.003,
           "control_dt": CONTROL_DT, "substeps": 5, "python_overhead_frac": None}
    return _Bench(loop, row, env.close)


def bench_gymnasium(num_envs: int) -> _Bench:
    env = gym.make_vec("Humanoid-v5", num_envs=num_envs, vectorization_mode="sync")
    return _bench_peer_env(env, "gymnasium-sync", "Humanoid-v5", num_envs, 1)


def bench_envpool(num_envs: int, threads: int) -> _Bench | None:
    try:
        import envpool
    except Exception:  # noqa: BLE001 - optional peer
        return None
    env = envpool.make("Humanoid-v4", env_type="gymnasium", num_envs=num_envs, num_threads=threads, seed=0)
    return _bench_peer_env(env, "envpool", "Humanoid-v4", num_envs, threads)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--num-envs", type=int, nargs="+", default=[1, 16, 256, 1024, 4096])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seconds", type=float, default=1.5, help="timed seconds per run")
    ap.add_argument("--repeats", type=int, default=5, help="rounds (the median is reported)")
    ap.add_argument("--gym-max-envs", type=int, default=256, help="largest N for the sync Gymnasium baseline")
    ap.add_argument("--robot-tasks", action="store_true",
                    help="instead: the Fetch tasks' scripted episodes (no peer runs them), N = 1 and 16, rows "
                    "merged into --json under 'robot_tasks' (the humanoid rows are kept)")
    ap.add_argument("--shadow-only", action="store_true",
                    help="with --robot-tasks: only ncpgym/ShadowHandBlock-v0 against mujoco.rollout and "
                    "Gymnasium-Robotics' env (rows under 'shadow_hand')")
    ap.add_argument("--yumi", action="store_true",
                    help="instead: ncpgym/YuMiDrawer-v0 with its scripted opener, N = 1, 64, 256 on 1 and 2 "
                    "threads, rows merged into --json under 'yumi'")
    ap.add_argument("--phases", action="store_true",
                    help="instead: where one Humanoid-v0 env step spends its time (the C++ step, the task's "
                    "evaluate, resets, observation), N = --num-envs[0] on each of --threads; printed, not saved")
    args = ap.parse_args()
    if args.phases:
        return phases(args)
    if args.robot_tasks:
        return robot_tasks(args)
    if args.yumi:
        return yumi_rows(args)

    ncp_dt = ncpgym.tasks.HumanoidTask.solver_options["timestep"]
    rows = []

    def add(row):
        if row is None:
            return
        rows.append(row)
        ov = row["python_overhead_frac"]
        print(
            f"{row['engine']:15s} {row['task']:12s} N={row['num_envs']:5d} threads={row['threads']} "
            f"dt={row['physics_dt']:.4f}x{row['substeps']}  {row['env_steps_per_s']:10.0f} env-steps/s"
            + ("" if ov is None else f"  python {100 * ov:4.1f}%"),
            flush=True,
        )

    for n in args.num_envs:  # every configuration of one N timed in the same rounds
        benches = []
        for t in args.threads:
            benches += [bench_ncpgym(n, t), bench_mujoco_rollout(n, t, 0.003), bench_mujoco_rollout(n, t, ncp_dt),
                        bench_envpool(n, t)]
        if n <= args.gym_max_envs:
            benches.append(bench_gymnasium(n))
        for row in _interleaved([b for b in benches if b is not None], args.seconds, args.repeats):
            add(row)

    # the figures: ratios against MuJoCo measured in this run
    def rate(engine, n, t, dt=None):
        for r in rows:
            if r["engine"] == engine and r["num_envs"] == n and r["threads"] == t and (dt is None or r["physics_dt"] == dt):
                return r["env_steps_per_s"]
        return None

    summary = {}
    for n in args.num_envs:
        for t in args.threads:
            ours, own, same = rate("ncpgym", n, t), rate("mujoco.rollout", n, t, 0.003), rate("mujoco.rollout", n, t, ncp_dt)
            if ours and own:
                summary[f"N={n},threads={t}"] = {
                    "vs_mujoco_own_dt": ours / own,
                    "vs_mujoco_same_dt": ours / same if same else None,
                }
        if rate("ncpgym", n, 1) and rate("ncpgym", n, 2):
            summary.setdefault(f"N={n},threads=2", {})["thread_scaling_2_over_1"] = rate("ncpgym", n, 2) / rate("ncpgym", n, 1)
    for k, v in summary.items():
        print(k, {a: (None if b is None else round(b, 2)) for a, b in v.items()})
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        # the robot-task and YuMi rows (--robot-tasks, --yumi) are kept
        kept = json.loads(args.json.read_text()) if args.json.exists() else {}
        kept.update({"rows": rows, "summary": summary})
        args.json.write_text(json.dumps(kept, indent=1))
        print("wrote", args.json)


SEED_MS = {"FetchTomato-v0": 12.65, "FetchBeamInsert-v0": 18.8}  # Table 2, per step on the seed's GPU


def _scripted_episode(task_id: str, num_envs: int, threads: int, solver: dict | None):
    """One scripted episode (the task's scripted_actions: grasp-carry-place, insertion) of
    num_envs worlds: (env steps/s, core ms per world and physics step)."""
    from ncpgym.tasks import fetch_beam_insert as fb
    from ncpgym.tasks import fetch_tomato as ft

    mod = ft if task_id == "FetchTomato-v0" else fb
    cls = ft.FetchTomatoTask if mod is ft else fb.FetchBeamInsertTask
    saved = cls.solver_options
    if solver is not None:
        cls.solver_options = solver
    try:
        env = gym.make_vec(f"ncpgym/{task_id}", num_envs=num_envs, num_threads=threads)
    finally:
        cls.solver_options = saved
    env.reset(seed=0)
    core = env.unwrapped._c
    task, batch = core.task, core.batch
    timed = _TimedBatch(batch)
    core.batch = timed
    if mod is ft:
        start, plate = task.tomato(batch).copy(), task.plate_top(batch).copy()
        act = lambda k: ft.scripted_actions(task, batch, k, start, plate)  # noqa: E731
    else:
        act = lambda k: fb.scripted_actions(task, batch, k)  # noqa: E731
    steps = cls.max_episode_steps
    t = time.perf_counter()
    for k in range(steps):
        env.step(np.asarray(act(k), np.float32))
    total = time.perf_counter() - t
    env.close()
    return steps * num_envs / total, 1e3 * timed.elapsed * threads / (steps * task.frame_skip * num_envs)


def phases(args, steps: int = 60) -> None:
    """Milliseconds per env step in each part of NcpVectorEnv.step (wall clock around the
    task's hooks and the batch's calls; the rest is the env's own glue)."""
    from collections import defaultdict

    n = args.num_envs[0]
    for threads in args.threads:
        env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=n, num_threads=threads)
        env.reset(seed=0)
        u = env.unwrapped
        core, task = u._c, u._c.task
        spent = defaultdict(float)

        def timed(name, fn):
            def call(*a, **k):
                t = time.perf_counter()
                out = fn(*a, **k)
                spent[name] += time.perf_counter() - t
                return out
            return call

        timed_batch = _TimedBatch(core.batch)
        timed_batch.reset = timed("resets: C++ reset and forward of the reset worlds", core.batch.reset)
        core.batch = timed_batch
        task.before_step = timed("task.before_step", task.before_step)
        task.evaluate = timed("task.evaluate (reward, termination, info)", task.evaluate)
        u._reset_worlds = timed("resets: all (draws, C++, hooks)", u._reset_worlds)
        core.observe = timed("observation (rows of reset worlds)", core.observe)
        actions = np.random.default_rng(0).uniform(-0.4, 0.4, (64, n, 17)).astype(np.float32)
        for k in range(10):
            env.step(actions[k])
        spent.clear()
        object.__setattr__(timed_batch, "elapsed", 0.0)
        t = time.perf_counter()
        for k in range(steps):
            env.step(actions[k % 64])
        total = time.perf_counter() - t
        spent["C++ step (OpenMP)"] = timed_batch.elapsed
        print(f"N = {n}, {threads} thread(s): {1e3 * total / steps:.2f} ms per env step, "
              f"{100 * (1 - timed_batch.elapsed / total):.1f} % outside the C++ step")
        for name, s in sorted(spent.items(), key=lambda kv: -kv[1]):
            print(f"  {name:52s} {1e3 * s / steps:8.3f} ms")
        env.close()


def robot_tasks(args) -> None:
    """The Fetch tasks through a whole scripted episode (the robot grasps, carries and
    places the tomato; inserts the beam): env steps/s and the core time of one physics
    step per world (wall time of the batch step x threads / worlds), with the tasks'
    solver options and, for the tomato, the seed's 4 Newton / 50 linear. Anchor: the seed's
    Table 2, 12.65 ms (Fetch Tomato, 4 Newton / 50 linear) and 18.8 ms (Fetch Beam, 6 / 50)
    per step on its GPU, h = 0.0083 s."""
    if args.json and args.shadow_only:
        old = json.loads(args.json.read_text()) if args.json.is_file() else {}
        old["shadow_hand"] = {"rows": shadow_rows(args), "command": f"python benchmarks/throughput.py --robot-tasks "
                              f"--shadow-only --json {args.json}"}
        args.json.write_text(json.dumps(old, indent=1))
        print("updated", args.json)
        return
    rows = []
    cases = [("FetchTomato-v0", None, "task: 8 Newton"),
             ("FetchTomato-v0", {"newton_iterations": 4, "linear_iterations": 50}, "seed: 4 Newton / 50 linear"),
             ("FetchBeamInsert-v0", None, "task = seed: 6 Newton / 50 linear, springs as rows")]
    for task_id, solver, label in cases:
        for n, t in ((1, 1), (16, 2)):
            rate, ms = _scripted_episode(task_id, n, t, solver)
            r = {"engine": "ncpgym", "task": task_id, "solver": label, "num_envs": n, "threads": t,
                 "env_steps_per_s": rate, "ms_per_world_step": ms, "seed_gpu_ms_per_step": SEED_MS[task_id]}
            rows.append(r)
            print(f"ncpgym {task_id:20s} {label:48s} N={n:3d} threads={t}  {rate:8.1f} env-steps/s  "
                  f"{ms:6.2f} ms per world-step (core time; seed GPU {SEED_MS[task_id]} ms)", flush=True)
    shadow = shadow_rows(args)
    if args.json:
        old = json.loads(args.json.read_text()) if args.json.is_file() else {}
        old["robot_tasks"] = rows
        old["robot_tasks_command"] = f"python benchmarks/throughput.py --robot-tasks --json {args.json}"
        old["shadow_hand"] = {"rows": shadow, "command": old["robot_tasks_command"]}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(old, indent=1))
        print("updated", args.json)


def _shadow_rollout_bench(num_envs: int, threads: int, physics_dt: float) -> _Bench:
    """mujoco.rollout on Gymnasium-Robotics' manipulate_block.xml: 0.04 s actions (20 x 2 ms,
    theirs, or 5 x 8 ms, ncpgym's), random servo targets in the control ranges, rollouts of 20
    actions from their start (the block above the palm) with the block turned about z."""
    import mujoco

    from ncpgym.tasks import shadow_hand_block as sh

    m = mujoco.MjModel.from_xml_path(sh.model_path())
    m.opt.timestep = physics_dt
    substeps = int(round(0.04 / physics_dt))
    datas = [mujoco.MjData(m) for _ in range(threads)]
    d = mujoco.MjData(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    states = np.empty((num_envs, mujoco.mj_stateSize(m, spec)))
    rng = np.random.default_rng(0)
    o = m.jnt_qposadr[m.joint("object:joint").id]
    for i in range(num_envs):
        mujoco.mj_resetData(m, d)
        a = rng.uniform(-np.pi, np.pi)
        d.qpos[o + 3:o + 7] = [np.cos(a / 2), 0.0, 0.0, np.sin(a / 2)]
        mujoco.mj_getState(m, d, states[i], spec)
    horizon = 20
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    ctrl = np.repeat(rng.uniform(lo, hi, (num_envs, horizon, m.nu)), substeps, axis=1)
    row = {"engine": "mujoco.rollout", "task": "manipulate_block.xml", "num_envs": num_envs, "threads": threads,
           "physics_dt": physics_dt, "control_dt": 0.04, "substeps": substeps, "python_overhead_frac": None,
           "stable": True}

    return _rollout_bench(m, datas, states, ctrl, horizon, row)


def _patch_gymnasium_robotics() -> bool:
    """Gymnasium-Robotics 1.4.2's joint readers test ``jnt_type in (mjJNT_HINGE, mjJNT_SLIDE)``,
    which is False under MuJoCo 4 (its enums no longer equal NumPy integers from the left), so
    every Shadow hand env fails its first observation. Replaced here by readers that compare
    integers (same slices of qpos / qvel); returns whether the patch was needed."""
    import mujoco
    from gymnasium_robotics.utils import mujoco_utils as mu

    m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body><joint/><geom size='.1'/></body></worldbody></mujoco>")
    if m.jnt_type[0] in (mujoco.mjtJoint.mjJNT_HINGE,):
        return False
    width = {int(mujoco.mjtJoint.mjJNT_FREE): (7, 6), int(mujoco.mjtJoint.mjJNT_BALL): (4, 3)}

    def reader(kind):
        def read(model, data, name):
            j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
            assert j != -1, f"Joint with name '{name}' is not part of the model!"
            nq, nv = width.get(int(model.jnt_type[j]), (1, 1))
            if kind == "qpos":
                return data.qpos[model.jnt_qposadr[j]:model.jnt_qposadr[j] + nq].copy()
            return data.qvel[model.jnt_dofadr[j]:model.jnt_dofadr[j] + nv].copy()
        return read

    mu.get_joint_qpos, mu.get_joint_qvel = reader("qpos"), reader("qvel")
    return True


def _shadow_gymnasium_bench(num_envs: int) -> _Bench:
    """Gymnasium-Robotics' HandManipulateBlockRotateZ-v1 (MuJoCo at 2 ms x 20 inside): one env
    (num_envs = 1) or a SyncVectorEnv of them, random actions."""
    import gymnasium_robotics

    patched = _patch_gymnasium_robotics()
    gym.register_envs(gymnasium_robotics)
    if num_envs == 1:
        env = gym.make("HandManipulateBlockRotateZ-v1")
        engine = "gymnasium-robotics"
    else:
        env = gym.make_vec("HandManipulateBlockRotateZ-v1", num_envs=num_envs, vectorization_mode="sync")
        engine = "gymnasium-robotics-sync"
    env.reset(seed=0)
    acts = np.random.default_rng(0).uniform(-1, 1, (64, num_envs, 20)).astype(np.float32)

    def loop(n):
        for k in range(n):
            env.step(acts[k % 64][0] if num_envs == 1 else acts[k % 64])
        return n * num_envs, None

    row = {"engine": engine, "task": "HandManipulateBlockRotateZ-v1", "num_envs": num_envs, "threads": 1,
           "physics_dt": 0.002, "control_dt": 0.04, "substeps": 20, "python_overhead_frac": None,
           "patched_joint_readers": patched}
    return _Bench(loop, row, env.close)


def shadow_rows(args) -> list[dict]:
    """ncpgym/ShadowHandBlock-v0 under random actions (autoreset) against mujoco.rollout on the
    same model file and Gymnasium-Robotics' own env (single, SyncVectorEnv), 0.04 s per env
    step everywhere; N = 64 and 256 on 2 threads (1 and 64 for Gymnasium-Robotics' envs)."""
    rows = []
    for n in (64, 256):
        benches = [bench_ncpgym(n, 2, "ShadowHandBlock-v0"), _shadow_rollout_bench(n, 2, 0.002),
                   _shadow_rollout_bench(n, 2, 0.008)]
        if n == 64:
            benches += [_shadow_gymnasium_bench(1), _shadow_gymnasium_bench(64)]
        for r in _interleaved(benches, args.seconds, args.repeats):
            rows.append(r)
            print(f"{r['engine']:26s} N={r['num_envs']:4d} threads={r['threads']} dt={r['physics_dt']:.3f}  "
                  f"{r['env_steps_per_s']:9.1f} env-steps/s" + ("" if r.get("stable", True) else "  (NaN states)"),
                  flush=True)
    return rows


# Table 2's Yumi Cabinet: 6,400 bodies, 4,082 contacts, 1.8 + 56.0 ms a step on the seed's GPU;
# at our world's bodies (robot 18 + cabinet and drawer) that is 320 worlds in 57.8 ms
SEED_YUMI = {"bodies": 6400, "contacts": 4082, "ms_per_step": 57.8}


def yumi_rows(args) -> None:
    """YuMiDrawer-v0 through 300 env steps of its scripted opener (reach, close across the
    bar, pull): env steps/s (time inside env.step), physics world-steps/s (x frame_skip),
    mean contacts per world; the seed's batch as world-steps/s at its body count."""
    from ncpgym.tasks.yumi_drawer import H, ScriptedOpener

    rows = []
    for n in (1, 64, 256):
        for t in (1, 2):
            env = gym.make_vec("ncpgym/YuMiDrawer-v0", num_envs=n, num_threads=t)
            env.reset(seed=0)
            task, batch = env.unwrapped.task, env.unwrapped.batch
            bodies = batch.model.nbody - 1
            opener = ScriptedOpener(task, batch)
            stepping, contacts = 0.0, 0
            for k in range(300):
                a = opener(batch).astype(np.float32)
                t0 = time.perf_counter()
                env.step(a)
                stepping += time.perf_counter() - t0
                contacts += int(np.sum(batch.ncontact))
            opened = float(np.mean(batch.q[:, task.slide_q] >= 0.3))
            env.close()
            rate = 300 * n / stepping
            r = {"engine": "ncpgym", "task": "YuMiDrawer-v0", "num_envs": n, "threads": t,
                 "physics_dt": H, "substeps": task.frame_skip, "env_steps_per_s": rate,
                 "world_steps_per_s": rate * task.frame_skip, "contacts_per_world": contacts / (300 * n),
                 "opened_frac": opened}
            rows.append(r)
            print(f"ncpgym YuMiDrawer-v0 N={n:3d} threads={t}  {rate:8.1f} env-steps/s  "
                  f"{r['world_steps_per_s']:8.1f} world-steps/s  {r['contacts_per_world']:5.1f} contacts/world  "
                  f"opened {opened:.2f}", flush=True)
    seed_worlds = SEED_YUMI["bodies"] / bodies
    seed = {**SEED_YUMI, "bodies_per_world": bodies, "worlds": seed_worlds,
            "world_steps_per_s": seed_worlds / (SEED_YUMI["ms_per_step"] / 1e3),
            "contacts_per_world": SEED_YUMI["contacts"] / seed_worlds}
    print(f"seed (GPU): {seed_worlds:.0f} worlds of {bodies} bodies in {SEED_YUMI['ms_per_step']} ms: "
          f"{seed['world_steps_per_s']:.0f} world-steps/s, {seed['contacts_per_world']:.1f} contacts/world")
    if args.json:
        old = json.loads(args.json.read_text()) if args.json.is_file() else {}
        old["yumi"] = {"rows": rows, "seed": seed, "command": f"python benchmarks/throughput.py --yumi --json {args.json}"}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(old, indent=1))
        print("updated", args.json)


if __name__ == "__main__":
    main()
