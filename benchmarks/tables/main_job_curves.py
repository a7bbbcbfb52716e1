"""The main job's learning curves (HumanoidFlagrun-v0, `bash scripts/train.sh`: 256 worlds,
10 minutes): mean episode return against wall time for three seeds of the job as it is now
(session 41: flagrun_10min_session41_seed{0,1,2}), of sessions 22-23
(flagrun_10min_session22_seed0, flagrun_10min_session23_seed{1,2}), of the same job on
session 16's simulator (lr 6e-4, flagrun_10min_seed*) and before that with PPO's default
3e-4 (flagrun_10min_lr3e-4_seed*), and the first 10 minutes of the committed 35-minute run
(3e-4 annealed over 35 minutes, 8 Newton iterations).

    python benchmarks/tables/main_job_curves.py   # writes benchmarks/results/training/main_job_10min.png
"""

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RUNS = Path(__file__).resolve().parents[1] / "results" / "training"


def curve(run: str):
    rows = list(csv.DictReader(open(RUNS / run / "progress.csv")))
    t = [float(r["time_s"]) / 60 for r in rows]
    return [x for x in t if x <= 10.0], [float(r["episode_return"]) for r, x in zip(rows, t) if x <= 10.0]


def main() -> None:
    fig, ax = plt.subplots(figsize=(10, 4.6))
    t, r = curve("flagrun_35min")
    ax.plot(t, r, color="0.6", lw=2, label="35-min run's first 10 min (lr 3e-4 over 35 min, 8 Newton its)")
    then = {0: "flagrun_10min_session22_seed0", 1: "flagrun_10min_session23_seed1", 2: "flagrun_10min_session23_seed2"}
    for s, c in zip(range(3), ("tab:blue", "tab:orange", "tab:green")):
        t, r = curve(f"flagrun_10min_lr3e-4_seed{s}")
        ax.plot(t, r, color=c, ls=":", lw=1, label=f"session 16 simulator, lr 3e-4, seed {s}")
        t, r = curve(f"flagrun_10min_seed{s}")
        ax.plot(t, r, color=c, ls="--", lw=1.2, label=f"session 16 simulator, lr 6e-4, seed {s}")
        t, r = curve(then[s])
        ax.plot(t, r, color=c, ls="-.", lw=1.2, label=f"sessions 22-23, seed {s}")
        t, r = curve(f"flagrun_10min_session41_seed{s}")
        ax.plot(t, r, color=c, lw=2, label=f"main job now (session 41), seed {s}")
    ax.set_xlabel("wall time (min, 2 cores, simulation and learning)")
    ax.set_ylabel("mean episode return (last 100 episodes)")
    ax.set_title("bash scripts/train.sh: HumanoidFlagrun-v0, 256 worlds")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(RUNS / "main_job_10min.png", dpi=110)


if __name__ == "__main__":
    main()
