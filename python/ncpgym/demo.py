"""The current end-to-end demo: load a third-party model through MuJoCo's compiler,
cross-check its dynamics against MuJoCo, print per-call and batched timings, hold the
seed's heavy stack, and run 1024 humanoids as a Gymnasium vector env against MuJoCo.

    python -m ncpgym.demo [--model PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
from pathlib import Path

import mujoco
import numpy as np

import ncpgym
from ncpgym import _core, dynamics as dyn


def default_model() -> Path:
    spec = importlib.util.find_spec("gymnasium.envs.mujoco")
    if spec is None:
        raise SystemExit("the demo's default model is Gymnasium's humanoid.xml: "
                         "pip install gymnasium, or pass --model PATH")
    return Path(spec.submodule_search_locations[0]) / "assets" / "humanoid.xml"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", type=Path, default=None, help="MJCF or URDF file")
    ap.add_argument("--batch", type=int, default=4096, help="states in the batched timing")
    args = ap.parse_args(argv)
    path = args.model or default_model()

    t0 = time.perf_counter()
    m = ncpgym.load_model(path, strict=False)
    print(f"ncpgym {ncpgym.__version__}: loaded {path.name} in {1e3 * (time.perf_counter() - t0):.0f} ms: {m}")

    # cross-check against MuJoCo at a random state (contacts and actuators off)
    mj = mujoco.MjModel.from_xml_path(str(path)) if path.suffix == ".xml" else None
    rng = np.random.default_rng(0)
    q = m.qpos0.copy()
    q += np.where(np.arange(m.nq) >= (7 if m.jnt_type[0] == 0 else 0), rng.uniform(-0.3, 0.3, m.nq), 0)
    u, tau = rng.normal(size=(2, m.nv))
    acc = dyn.forward(m, q, u, tau)
    if mj is not None:
        mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) | int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)
        d = mujoco.MjData(mj)
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = q, u, tau
        mujoco.mj_forward(mj, d)
        err = np.max(np.abs(acc - d.qacc)) / max(1.0, np.max(np.abs(d.qacc)))
        print(f"forward dynamics vs MuJoCo mj_forward: max relative difference {err:.1e}")

    # per-call timings on one thread (C++ loop, no Python overhead)
    B = rng.normal(size=(m.nv, m.nv))
    print(f"\n{'algorithm (1 thread)':<42}{'us/call':>10}")
    for label, algo in [("O(n) forward dynamics (ABA, eqs. 10-12)", "fd"),
                        (f"M^-1 B, Implicit Inversion Method (m={m.nv})", "iim"),
                        (f"M^-1 B, extended unit force method (m={m.nv})", "eufm"),
                        ("mass matrix (CRBA)", "crba"), ("inverse dynamics (RNEA)", "rnea")]:
        reps = 50 if algo == "eufm" else 2000
        us = _core.bench_dynamics(m, algo, q, u, tau, B, reps=reps, rounds=5)
        print(f"{label:<42}{us:>10.2f}")

    # batched forward dynamics over N states with OpenMP
    n = args.batch
    Q = np.tile(q, (n, 1))
    U = rng.normal(size=(n, m.nv))
    T = rng.normal(size=(n, m.nv))
    print(f"\nbatched forward dynamics, N={n} states")
    for threads in sorted({1, os.cpu_count() or 1}):
        dyn.forward(m, Q, U, T, threads=threads)
        t0 = time.perf_counter()
        for _ in range(5):
            dyn.forward(m, Q, U, T, threads=threads)
        dt = (time.perf_counter() - t0) / 5
        print(f"  threads={threads}: {n / dt / 1e6:.2f} M states/s ({1e6 * dt / n:.2f} us/state)")

    contact_demo()
    soft_demo()
    vector_env_demo()


def vector_env_demo(num_envs: int = 1024) -> None:
    """ncpgym/Humanoid-v0 through gymnasium.make_vec against mujoco.rollout (same N, threads)."""
    import gymnasium as gym
    from mujoco import rollout

    threads = min(2, os.cpu_count() or 1)
    envs = gym.make_vec("ncpgym/Humanoid-v0", num_envs=num_envs, num_threads=threads)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    acts = rng.uniform(-0.4, 0.4, (8, num_envs, 17)).astype(np.float32)
    envs.step(acts[0])
    steps, ret, ended = 60, np.zeros(num_envs), 0
    t0 = time.perf_counter()
    for k in range(steps):
        _, r, term, trunc, _ = envs.step(acts[k % 8])
        ret += r
        ended += int((term | trunc).sum())
    ours = steps * num_envs / (time.perf_counter() - t0)
    envs.close()

    m = mujoco.MjModel.from_xml_path(str(default_model()))  # Humanoid-v5: 0.003 s x 5
    datas = [mujoco.MjData(m) for _ in range(threads)]
    d = mujoco.MjData(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)
    states = np.tile(state, (num_envs, 1))
    ctrl = np.repeat(rng.uniform(-0.4, 0.4, (num_envs, 20, m.nu)), 5, axis=1)
    rollout.rollout(m, datas, states[:8], ctrl[:8])
    t0 = time.perf_counter()
    rollout.rollout(m, datas, states, ctrl)
    theirs = 20 * num_envs / (time.perf_counter() - t0)
    print(f"\nncpgym/Humanoid-v0, {num_envs} worlds, {threads} threads, random actions (control period 0.015 s)")
    print(f"  ncpgym vector env:           {ours:8.0f} env steps/s ({ended} episodes ended, autoreset)")
    print(f"  MuJoCo rollout (0.003 s x 5): {theirs:8.0f} env steps/s  -> ncpgym {ours / theirs:.1f}x")


def contact_demo() -> None:
    """The seed's heavy stack (4096:1 mass ratio) for 10 s: ncpgym against MuJoCo."""
    from ncpgym import scenes

    masses, half, h = (8, 64, 512, 4096, 32768), 0.2, 1 / 120
    model, q0 = scenes.heavy_stack(masses, half=half, timestep=h)
    sim = ncpgym.Simulator(model)
    sim.q[:] = q0
    t0 = time.perf_counter()
    sim.step(nsteps=1200)
    dt = (time.perf_counter() - t0) / 1200
    z = sim.q.reshape(-1, 7)[:, 2]
    pen = -min(0.0, (np.diff(np.concatenate([[-half], z])) - 2 * half).min())
    bodies = "".join(f'<body pos="0 0 {half * (2 * i + 1)}"><freejoint/><geom type="box" '
                     f'size="{half} {half} {half}" mass="{m}" friction="0.5 0 0"/></body>'
                     for i, m in enumerate(masses))
    mj = mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{h}"/><worldbody><geom type="plane" size="5 5 .1" '
        f'friction="0.5 0 0"/>{bodies}</worldbody></mujoco>')
    d = mujoco.MjData(mj)
    for _ in range(1200):
        mujoco.mj_step(mj, d)
    zm = d.qpos.reshape(-1, 7)[:, 2]
    pen_mj = -min(0.0, (np.diff(np.concatenate([[-half], zm])) - 2 * half).min())
    print(f"\nheavy stack, masses 8..32768 kg, 10 s at h=1/120 (seed §10.1.5)")
    print(f"  ncpgym (FB + PCR): max penetration {pen * 1e3:.4f} mm, {dt * 1e6:.0f} us/step")
    print(f"  MuJoCo defaults:   max penetration {pen_mj * 1e3:.2f} mm")


def soft_demo() -> None:
    """ncpgym/PneuNetGrasp-v0 with a scripted close-and-lift: soft fingers lift a rigid ball."""
    import gymnasium as gym

    env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=4)
    obs, _ = env.reset(seed=0)
    close = 2 * 0.25 / 0.35 - 1  # chamber command for activation 0.25
    t0 = time.perf_counter()
    for k in range(200):
        ball_z = obs[:, 20] + 0.12 + obs[:, 34]
        lift = np.where((k >= 30) & (ball_z < 0.2), 1.0, 0.0)
        obs, _, _, _, info = env.step(np.column_stack([np.full((4, 3), close), lift]).astype(np.float32))
    dt = (time.perf_counter() - t0) / 200
    m = env.unwrapped.batch.model
    print(f"\nPneuNet gripper ({m.ntet} tets, {m.nparticle} particles per world), 4 worlds, scripted close-and-lift")
    print(f"  ball heights after 4 s: {np.round(info['ball_height'], 3)} m (from 0.04 m; target 0.2 m), "
          f"{1e3 * dt:.1f} ms per step of 4 worlds")
    env.close()


if __name__ == "__main__":
    main()
