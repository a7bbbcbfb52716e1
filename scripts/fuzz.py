"""Long fuzz run of the model loader and the Builder (issue 25): seeded mutations of MJCF
files and random Builder call sequences (tests/python/fuzzing.py), each in this process.
Every case must end in a Python exception with a message or a model that steps. A crash
kills this process: the case that did it is the last one written to --log (rerun it with
--replay to get the MJCF).

    python scripts/fuzz.py --cases 20000 --json benchmarks/results/fuzz.json
    FUZZ_CASES=2000 bash scripts/sanitize.sh --python   # under ASan + UBSan
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))

import fuzzing  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--cases", type=int, default=20000, help="cases of each kind (MJCF, Builder)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first case")
    ap.add_argument("--log", type=Path, default=Path("/tmp/ncpgym_fuzz_case.txt"),
                    help="the case being run (what crashed, if the process dies)")
    ap.add_argument("--json", type=Path, default=None, help="write the outcome counts here")
    args = ap.parse_args(argv)

    src = fuzzing.sources()
    names = sorted(src)
    counts = {"mjcf": collections.Counter(), "builder": collections.Counter()}
    t0 = time.perf_counter()
    for i in range(args.cases):
        seed = args.seed + i
        rng = np.random.default_rng(seed)
        name = names[i % len(names)]
        mutated = fuzzing.mutate_mjcf(src[name], rng, edits=int(rng.integers(1, 4)))
        args.log.write_text(f"mjcf {name} seed {seed}\n{mutated}\n")
        from ncpgym.models import load_model

        counts["mjcf"][fuzzing.run_case(lambda: load_model(mutated, convex_decomposition="hull"), rng)] += 1
        args.log.write_text(f"builder seed {seed}\n")
        counts["builder"][fuzzing.run_case(fuzzing.random_builder(np.random.default_rng(seed)), rng)] += 1
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} cases of each kind, {time.perf_counter() - t0:.0f} s: "
                  f"mjcf {dict(counts['mjcf'])}, builder {dict(counts['builder'])}", flush=True)
    out = {"cases_per_kind": args.cases, "seed": args.seed, "seconds": round(time.perf_counter() - t0, 1),
           "crashes": 0, "outcomes": {k: dict(v) for k, v in counts.items()},
           "command": "python scripts/fuzz.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    print(json.dumps(out, indent=1))
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
