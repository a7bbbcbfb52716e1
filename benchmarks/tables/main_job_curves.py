"""The main job's learning curves (HumanoidFlagrun-v0, `bash scripts/train.sh`: 256 worlds,
10 minutes) before and after issue 23's change of the task's Newton iterations (8 -> 4):
mean episode return against wall time. Before: the first 10 minutes of the committed
35-minute run (same PPO, 8 iterations); after: three seeds of the 10-minute job.

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
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    t, r = curve("flagrun_35min")
    ax.plot(t, r, color="0.5", lw=2, label="before: 8 Newton iterations, 7.7k steps/s (first 10 min of the 35-min run)")
    for s, c in zip(range(3), ("tab:blue", "tab:orange", "tab:green")):
        t, r = curve(f"flagrun_10min_seed{s}")
        ax.plot(t, r, color=c, label=f"after: 4 Newton iterations, seed {s}")
    ax.set_xlabel("wall time (min, 2 cores, simulation and learning)")
    ax.set_ylabel("mean episode return (last 100 episodes)")
    ax.set_title("bash scripts/train.sh: HumanoidFlagrun-v0, 256 worlds")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(RUNS / "main_job_10min.png", dpi=110)


if __name__ == "__main__":
    main()
