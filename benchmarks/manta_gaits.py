"""MantaSwim-v0's gaits through its motors: open-loop sine waves (the seed's travelling wave,
phase 0 at the front to pi at the back) over frequency x amplitude and full-amplitude square
waves (bang-bang), each for one 5 s episode from the same reset. Which gait does the task's
reward favour, and is bang-bang flapping still the best? (Issue 63 item 4.)

    python benchmarks/manta_gaits.py [--unlimited] [--json benchmarks/results/manta_gaits.json]
    python benchmarks/manta_gaits.py --table benchmarks/results/manta_gaits.json

Columns: frequency (Hz), amplitude (share of the task's 2 pi / 3), speed (m/s over the
episode, = body lengths/s for the 1 m body), the motors' mean power (W, the task's ``power``
term), the swimming's economy (mm of forward travel per J) and the mean reward per env step.
``--unlimited`` drives the natural angles directly (max_torque = max_speed = inf), as the
task did before its motors.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import ncpgym  # noqa: F401
from ncpgym.tasks import manta_swim as ms

from policy_eval import table_options

FREQUENCIES = (0.5, 1.0, 2.0, 3.4, 5.0, 8.0, 12.0)
AMPLITUDES = (0.25, 0.5, 1.0)
SQUARE = (3.4, 6.0, 8.0)


def gaits() -> list[tuple[str, float, float]]:
    return [("sine", f, a) for f in FREQUENCIES for a in AMPLITUDES] + [("square", f, 1.0) for f in SQUARE]


def run(seed: int, threads: int, unlimited: bool) -> list[dict]:
    kinds = gaits()
    limits = {"max_torque": np.inf, "max_speed": np.inf} if unlimited else {}
    env = ms.MantaSwimVectorEnv(num_envs=len(kinds), num_threads=threads, **limits)
    env.reset(seed=seed)
    f = np.array([k[1] for k in kinds])[:, None]
    amp = np.array([k[2] for k in kinds])[:, None]
    square = np.array([k[0] == "square" for k in kinds])[:, None]
    phase = np.linspace(0.0, np.pi, env.task.ngroup)[None, :]
    dt = ms.FRAME_SKIP * ms.H
    ret, power, positions = np.zeros(len(kinds)), np.zeros(len(kinds)), []
    for k in range(ms.EPISODE_STEPS):
        wave = np.sin(2 * np.pi * f * k * dt - phase)
        a = amp * np.where(square, np.sign(wave), wave)
        _, r, _, _, info = env.step(a.astype(np.float32))
        ret += r
        power += info["reward_terms"]["power"]
        positions.append(env.task.targets.copy())
    env.close()
    seconds = ms.EPISODE_STEPS * dt
    speed = info["distance"] / seconds
    power /= ms.EPISODE_STEPS
    stroke = ms.stroke_frequency(np.asarray(positions), dt)
    return [{"gait": g, "frequency_hz": fr, "amplitude": a, "speed_m_s": float(speed[i]),
             "power_w": float(power[i]), "economy_mm_per_j": float(1e3 * speed[i] / power[i]),
             "reward_per_step": float(ret[i] / ms.EPISODE_STEPS), "stroke_hz": float(stroke[i])}
            for i, (g, fr, a) in enumerate(kinds)]


def table(doc: dict) -> str:
    rows = doc["rows"]
    best = max(range(len(rows)), key=lambda i: rows[i]["reward_per_step"])
    lines = ["| gait | Hz | amplitude | speed (m/s = BL/s) | power (W) | mm/J | reward / step |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for i, r in enumerate(rows):
        mark = "**" if i == best else ""
        lines.append(f"| {mark}{r['gait']}{mark} | {r['frequency_hz']:g} | {r['amplitude']:g} | {r['speed_m_s']:.2f} | "
                     f"{r['power_w']:.0f} | {r['economy_mm_per_j']:.1f} | {mark}{r['reward_per_step']:.2f}{mark} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    table_options(ap)
    ap.add_argument("--unlimited", action="store_true", help="the natural angles driven directly (no motor limits)")
    args = ap.parse_args(argv)
    if args.table:
        print(table(json.loads(args.table.read_text())))
        return
    rows = run(args.seed, args.threads, args.unlimited)
    command = "python benchmarks/manta_gaits.py" + (" --unlimited" if args.unlimited else "")
    doc = {"rows": rows, "command": command + (f" --json {args.json}" if args.json else ""),
           "max_torque_n_m": np.inf if args.unlimited else ms.MAX_TORQUE,
           "max_speed_rad_s": np.inf if args.unlimited else ms.MAX_SPEED}
    print(table(doc))
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
