"""Markdown table of benchmarks/results/shadow_hand_contact.json (docs/tasks/ShadowHandBlock.md)."""

import json
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/shadow_hand_contact.json")
rows = json.loads(path.read_text())["rows"]
print("| script | engine | time step (s) | block moves (mm) | deepest contact (mm) | mean deepest per step (mm) |")
print("|---|---|---|---|---|---|")
for r in rows:
    moves = (f"{r['block_moves_last_2s_mm']:.3f} over the last 2 s" if r["script"] == "rest"
             else f"{r['block_moves_last_1s_mm']:.1f} over the last 1 s ({r['block_moves_since_turn_mm']:.1f} since the turn)")
    print(f"| {r['script']} | {r['engine']} | {r['timestep']} | {moves} | {r['max_depth_mm']:.3f} | {r['mean_depth_mm']:.3f} |")
