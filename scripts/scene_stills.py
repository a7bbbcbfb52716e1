"""Stills of the collision benchmark scenes after they settle, for the docs:
python scripts/scene_stills.py [--out DIR] [--seconds S]

Each scene of ncpgym.scenes (the rock pile: 30 random convex hulls of 50-300 vertices; the
seed's table pile: 54 tables of five boxes; the trampoline: a soft block, a rod and a shell
dropped on a clamped shell) is stepped for S seconds (default 3) at
h = 1/120 and drawn with ncpgym's renderer (MuJoCo's, through models.to_mjcf), saved as
DIR/<scene>.png (default docs/gallery/scenes).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import imageio.v3 as iio
from tqdm import tqdm

import ncpgym
from ncpgym import scenes
from ncpgym.render import Camera, WorldRenderer

ROOT = Path(__file__).resolve().parents[1]
SCENES = {  # builder, camera
    "rocks": (lambda: scenes.rocks(n=30), Camera(lookat=(0, 0, 0.1), distance=2.2, azimuth=60, elevation=-68)),
    "table_pile": (lambda: scenes.table_pile(n=54), Camera(lookat=(0, 0, 0.3), distance=3.2, azimuth=60, elevation=-30)),
    "trampoline": (scenes.trampoline, Camera(lookat=(0, 0, 0.0), distance=0.45, azimuth=60, elevation=-25)),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "gallery" / "scenes")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--scenes", nargs="+", choices=list(SCENES), default=list(SCENES))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.scenes:
        build, camera = SCENES[name]
        model, q0 = build()
        batch = ncpgym.Batch(model, 1)
        batch.q[0] = q0
        for _ in tqdm(range(int(round(args.seconds / model.timestep))), desc=name, unit="step"):
            batch.step()
        renderer = WorldRenderer(model, width=640, height=480, camera=camera)
        path = args.out / f"{name}.png"
        iio.imwrite(path, renderer.render(batch, 0))
        renderer.close()
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
