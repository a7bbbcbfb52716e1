"""Markdown table of benchmarks/results/contact_scenes.json for the README."""

import json
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/contact_scenes.json")
print("| scene | engine | max penetration (m) | drift (m) | stable | µs/step |")
print("|---|---|---|---|---|---|")
rows = json.loads(path.read_text())["scenes"]
for r in rows:
    if "max_violation_m" not in r and "angle_error" not in r:
        print(f"| {r['scene']} | {r['engine']} | {r['max_penetration_m']:.2e} | {r['drift_m']:.2e} | {r['stable']} | {r['step_us']:.0f} |")
print()
print("| pile scene | engine | deepest transient penetration (m) | resting penetration, last second (m) | contacts at the end | µs/step |")
print("|---|---|---|---|---|---|")
for r in rows:
    if "contacts" in r:
        print(f"| {r['scene']} | {r['engine']} | {r['max_penetration_m']:.2e} | {r['rest_penetration_m']:.2e} | {r['contacts']} | {r['step_us']:.0f} |")
print()
print("| scene | engine | max violation (m, rad) | at the end | stable | µs/step |")
print("|---|---|---|---|---|---|")
for r in rows:
    if "max_violation_m" in r:
        print(f"| {r['scene']} | {r['engine']} | {r['max_violation_m']:.2e} | {r['drift_m']:.2e} | {r['stable']} | {r['step_us']:.0f} |")
print()
print("| fetch_beam engine | joint-angle error (relative) | support-lift error (m) | max penetration (m) | stable | µs/step |")
print("|---|---|---|---|---|---|")
for r in rows:
    if "angle_error" in r:
        print(f"| {r['engine']} | {r['angle_error']:.2e} | {r['drift_m']:.2e} | {r['max_penetration_m']:.2e} | {r['stable']} | {r['step_us']:.0f} |")
