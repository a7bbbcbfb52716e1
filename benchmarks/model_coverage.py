"""Model coverage: how many third-party robot models ncpgym loads, simulates and agrees with
MuJoCo on.

    python benchmarks/model_coverage.py --json benchmarks/results/model_coverage.json   # ~4 min, CoACD cache warm
    python benchmarks/model_coverage.py --groups gymnasium dm_control   # only these groups
    python benchmarks/model_coverage.py --models humanoid               # paths containing this

The model set is every file that MuJoCo itself compiles among
  gymnasium           gymnasium/envs/mujoco/assets/*.xml
  gymnasium_robotics  gymnasium_robotics/envs/assets/**/*.xml
  dm_control          dm_control/suite/*.xml (the group is reported unavailable, with the
                      reason, when dm_control does not import)
  example_robot_data  the example-robot-data package's robots/**/*.urdf
  rtb_data            the rtbdata package's **/*.urdf (xacro files are not URDFs)
URDFs are compiled the way ``ncpgym.load_model`` compiles them
(``ncpgym.models.loader.compile_urdf``: visuals dropped, package:// meshes resolved, invalid
inertias repaired); a URDF that only MuJoCo's plain compile accepts still counts as a model
(and fails to load). A file MuJoCo cannot compile (an include-only fragment) is listed as
"not a model" and not counted.

Each model runs in a fresh interpreter (``--worker``) under a timeout (``--timeout``, 120 s
for the whole model); the worker reports each stage as it finishes, so a crash, a hang or a
timeout is recorded with the stage it happened in and never stops the benchmark. Stages:

1. compile: MuJoCo compiles the file (yes/no; its sizes).
2. strict load: ``ncpgym.load_model(path, strict=True)``, wall time (MuJoCo's compile, the
   conversion and any convex decomposition by CoACD: cached on disk, so a mesh's first load
   is the slow one; ``coacd_misses`` counts the meshes decomposed in this run). A refusal's
   lines (one per refused feature, from the UnsupportedFeatureError) are each put in a
   feature category (``classify``); another exception is a load error.
3. non-strict load, when the strict one is refused: ``strict=False`` (drops the features).
4. simulation with whichever load succeeded (strict first): 1 s of model time at the
   model's time step with ``ncpgym.Simulator`` from the default state (qpos0, zero
   velocity), controls drawn uniformly inside each actuator's ctrlrange every step
   ([-1, 1] for an actuator without one; seeded): finite (no NaN/inf in q or u after any
   step, no exception) and steps per second of wall time; then MuJoCo's own 1 s (its step,
   constraints on) from qpos0 on the same controls, for reference (finite without a
   bad-qacc warning).
5. contact-free accelerations against MuJoCo at ``--states`` random states near qpos0
   (hinge/slide offsets U(-0.1, 0.1), free/ball quaternions turned by a rotation vector of
   N(0, 0.1) per axis, free positions moved N(0, 0.05), qvel N(0, 1), ctrl as above):
   MuJoCo's ``qacc`` from ``mj_forward`` with ``mjDSBL_CONSTRAINT | mjDSBL_CONTACT`` (no
   contacts, joint limits, equalities or dry friction: ``qacc = M^-1 (qfrc_passive +
   qfrc_actuator - qfrc_bias)``, springs, damping and gravity compensation included) against
   ``ncpgym.dynamics.forward(model, q, u, tau)`` (``M^-1 (tau + passive - bias)``, passive =
   springs, damping, gravity compensation) with ``tau`` ncpgym's own actuator forces for
   the same ctrl (``Batch.qfrc_actuator`` after ``Batch.forward``). Error: the worst over the
   states of ``|a - b|_inf / max(1, |b|_inf)`` with a ncpgym's and b MuJoCo's qacc. For a
   non-strict load the dropped features (tendons, fluid forces, actuators ncpgym does not
   have, force ranges, ...) stay in MuJoCo's qacc, so a difference there is expected; the
   MuJoCo controls of actuators ncpgym dropped are set to 0 (ncpgym's actuators are matched
   to MuJoCo's by name, in order).

Output: a per-model table, a feature table (category -> models refused for it) and a summary
line; ``--json`` writes every row, the feature table and the summary. With ``--groups`` or
``--models`` the rows replace the same models' rows in an existing ``--json`` file.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import importlib.metadata as md
import importlib.util
import json
import re
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ("gymnasium", "gymnasium_robotics", "dm_control", "example_robot_data", "rtb_data")
LABELS = {"gymnasium": "Gymnasium", "gymnasium_robotics": "Gymnasium-Robotics", "dm_control": "dm_control",
          "example_robot_data": "example-robot-data", "rtb_data": "rtb-data"}
QACC_TOL = 1e-9
KEEP_LINES = 5  # refusal lines kept in the JSON per model and category (all are counted)
MARK = "@@model_coverage "  # prefix of the worker's result lines (MuJoCo may print too)


# ---------------------------------------------------------------- the model set

def _package_dir(name: str) -> Path:
    """Directory of an installed top-level package (not imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {name!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def group_files(group: str) -> tuple[Path, list[Path]]:
    """(root, files) of a group; raises with the reason when the group is unavailable."""
    if group == "gymnasium":
        root = _package_dir("gymnasium") / "envs" / "mujoco" / "assets"
        return root, sorted(root.glob("*.xml"))
    if group == "gymnasium_robotics":
        root = _package_dir("gymnasium_robotics") / "envs" / "assets"
        return root, sorted(root.rglob("*.xml"))
    if group == "dm_control":
        import dm_control.suite  # noqa: F401  (the group needs the package to import)
        root = _package_dir("dm_control") / "suite"
        return root, sorted(root.glob("*.xml"))
    if group == "example_robot_data":
        dist = md.distribution("example-robot-data")
        root = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
        if not root.is_dir():
            raise FileNotFoundError(f"no robots directory in the installed example-robot-data ({root})")
        return root, sorted(root.rglob("*.urdf"))
    if group == "rtb_data":
        root = _package_dir("rtbdata")
        return root, sorted(root.rglob("*.urdf"))
    raise ValueError(group)


# ---------------------------------------------------------------- refusal categories

# (pattern on one refusal line of loader.py, category); the first match wins. Derived from
# the messages python/ncpgym/models/loader.py writes; a line none matches is "other: ...".
CATEGORIES = [
    (r"fluid forces", "fluid forces (option density/viscosity)"),
    (r"^tendon '", "tendons (stiffness, damping, limits, friction, actuation)"),
    (r"^joint '.*': actuatorgravcomp", "joint actuatorgravcomp"),
    (r"^joint '.*': frictionloss", "joint frictionloss (dry friction)"),
    (r"^joint '.*': actuatorfrcrange", "joint actuatorfrcrange"),
    (r"^joint '.*': polynomial damping", "joint polynomial damping/stiffness"),
    (r"^joint '.*': stiffness on a (\w+) joint", "stiffness on a {0} joint"),
    (r"^joint '.*': per-dof damping/armature", "per-dof damping/armature within a joint"),
    (r"^joint '.*': limits on a ball joint", "ball joint limits"),
    (r"^actuator '.*': transmission type mjTRN_(\w+)", "actuator transmission {0}"),
    (r"^actuator '.*': activation dynamics", "actuator dynamics (activation)"),
    (r"^actuator '.*': forcerange", "actuator forcerange"),
    (r"^actuator '.*': damping or armature", "actuator damping/armature"),
    (r"^actuator '.*': control delay", "actuator control delay"),
    (r"^actuator '.*': gain/bias", "actuator gain/bias"),
    (r"^geom '.*': condim [46]", "condim 4/6 (torsional/rolling friction)"),
    (r"^geom '.*': condim 1 with friction", "condim-1 friction pair"),
    (r"^geom '.*': type mjGEOM_(\w+)", "{0} geom"),
    (r"^geom '.*': gap", "geom gap"),
    (r"^geom priorities", "geom priorities that differ"),
    (r"explicit contact pair", "explicit contact pairs"),
    (r"^contact pair .*: anisotropic friction", "contact pair anisotropic friction"),
    (r"^contact pair .*: gap", "contact pair gap"),
    (r"^\d+ sensor\(s\)", "sensors"),
    (r"^sensor '.*' \(mjSENS_(\w+)\)", "sensor {0}"),
    (r"^equality '.*': solref", "soft equality (solref)"),
    (r"^equality '.*': defined between sites", "equality between sites"),
    (r"^equality '.*': torquescale", "weld torquescale"),
    (r"^equality '.*' \(mjEQ_(\w+)\): .*constraint", "equality {0}"),
]


def classify(line: str) -> str:
    for pat, cat in CATEGORIES:
        m = re.search(pat, line)
        if m:
            return cat.format(*(g.lower() for g in m.groups()))
    return "other: " + re.sub(r"'[^']*'", "'…'", line)


def refusal_lines(message: str) -> list[str]:
    """The refused features of an UnsupportedFeatureError's message (lines after the first)."""
    return [ln.strip() for ln in message.splitlines()[1:] if ln.strip()]


# ---------------------------------------------------------------- the worker (one model)

_DIRS: list[str] = []  # directories cut from messages (the model's, site-packages)


def _describe(e: BaseException, n: int = 400) -> str:
    """An exception's type and the first line of its message (at most n characters), with
    the model's directory and site-packages cut from the paths it names."""
    text = str(e).strip()
    for d in _DIRS:
        text = text.replace(d, "")
    return f"{type(e).__name__}: {text.splitlines()[0][:n] if text else ''}"


def _emit(**kw):
    print(MARK + json.dumps(kw), flush=True)


def _ctrl_bounds(ranges, limited):
    import numpy as np
    lo = np.where(limited, ranges[:, 0], -1.0)
    hi = np.where(limited, ranges[:, 1], 1.0)
    return lo, hi


def _near_qpos0(mj, rng):
    """A configuration near MuJoCo's qpos0 (unit quaternions)."""
    import mujoco
    import numpy as np
    q = mj.qpos0.copy()
    for j in range(mj.njnt):
        a, t = int(mj.jnt_qposadr[j]), int(mj.jnt_type[j])
        if t in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL):
            if t == mujoco.mjtJoint.mjJNT_FREE:
                q[a:a + 3] += rng.normal(0.0, 0.05, 3)
                a += 3
            quat = q[a:a + 4].copy()
            mujoco.mju_quatIntegrate(quat, rng.normal(0.0, 0.1, 3), 1.0)
            q[a:a + 4] = quat / np.linalg.norm(quat)
        else:
            q[a] += rng.uniform(-0.1, 0.1)
    return q


def _actuator_map(mj_names, ncp_names, mj_nu, ncp_nu):
    """MuJoCo actuator index of each ncpgym actuator (ncpgym keeps MuJoCo's order and drops
    some), or None when the names cannot tell."""
    if mj_nu == ncp_nu:
        return list(range(mj_nu))
    out, k = [], 0
    for name in ncp_names:
        if not name:
            return None
        while k < mj_nu and mj_names[k] != name:
            k += 1
        if k == mj_nu:
            return None
        out.append(k)
        k += 1
    return out


def worker(path: Path, seed: int, nstates: int, sim_seconds: float) -> None:
    import logging

    import mujoco
    import ncpgym
    import numpy as np
    from ncpgym import dynamics as dyn
    from ncpgym.errors import UnsupportedFeatureError
    from ncpgym.models import loader

    misses = []

    class Decompositions(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if "convex parts" in msg and "cache miss" in msg:
                misses.append(msg)

    log = logging.getLogger("ncpgym")
    log.setLevel(logging.INFO)
    log.addHandler(Decompositions())
    log.propagate = False  # the non-strict load's warnings: the refusal lines already say them

    urdf = path.suffix.lower() == ".urdf"
    _DIRS.extend([str(path.parent) + "/", sysconfig.get_paths()["purelib"] + "/"])
    # 1. compile
    _emit(start="compile")
    try:
        mj = loader.compile_urdf(path) if urdf else mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:  # noqa: BLE001 - any failure to compile is the outcome
        mj, note = None, _describe(e)
        plain = False
        if urdf:  # ncpgym's preparation failed: does MuJoCo's own URDF import compile it?
            try:
                mujoco.MjModel.from_xml_path(str(path))
                plain = True
            except Exception as e2:  # noqa: BLE001
                note += f" (MuJoCo's own URDF import: {_describe(e2, 200)})"
        if not plain:
            _emit(stage="compile", compiles=False, error=note)
            _emit(done=True)
            return
        # a model (MuJoCo compiles it) that ncpgym's URDF preparation fails on: the loads will say
        _emit(stage="compile", compiles=True, plain_mujoco_only=True, error=note)
    else:
        # MuJoCo's <flag ... = "disable"> settings (the loader reads the option values alone)
        flags = [k for k, f in mujoco.mjtDisableBit.__members__.items()
                 if k != "mjNDISABLE" and int(mj.opt.disableflags) & int(f)]
        _emit(stage="compile", compiles=True, nq=mj.nq, nv=mj.nv, nu=mj.nu, nbody=mj.nbody - 1,
              ngeom=mj.ngeom, timestep=float(mj.opt.timestep), disableflags=flags)

    # 2. strict load
    _emit(start="strict_load")
    model, loaded = None, None
    t0 = time.perf_counter()
    try:
        model = ncpgym.load_model(path, strict=True)
        loaded = "strict"
        _emit(stage="strict_load", ok=True, load_s=time.perf_counter() - t0, coacd_misses=len(misses))
    except UnsupportedFeatureError as e:
        lines = refusal_lines(str(e))
        counts: dict[str, int] = {}
        kept = []
        for ln in lines:  # every category counted, its first KEEP_LINES lines kept
            cat = classify(ln)
            counts[cat] = counts.get(cat, 0) + 1
            if counts[cat] <= KEEP_LINES:
                kept.append({"line": ln, "category": cat})
        _emit(stage="strict_load", ok=False, load_s=time.perf_counter() - t0, coacd_misses=len(misses),
              refusal_counts=counts, refusals=kept)
    except Exception as e:  # noqa: BLE001
        _emit(stage="strict_load", ok=False, load_s=time.perf_counter() - t0, coacd_misses=len(misses),
              error=_describe(e))

    # 3. non-strict load
    if model is None:
        _emit(start="nonstrict_load")
        t0 = time.perf_counter()
        try:
            model = ncpgym.load_model(path, strict=False)
            loaded = "non-strict"
            _emit(stage="nonstrict_load", ok=True, load_s=time.perf_counter() - t0)
        except Exception as e:  # noqa: BLE001
            _emit(stage="nonstrict_load", ok=False, load_s=time.perf_counter() - t0,
                  error=_describe(e))
    if model is None:
        _emit(done=True)
        return

    # ncpgym's actuators among MuJoCo's (the same list unless a non-strict load dropped some)
    amap = None
    if mj is not None:
        mj_names = [mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_ACTUATOR, a) or "" for a in range(mj.nu)]
        amap = _actuator_map(mj_names, list(model.actuator_names), mj.nu, model.nu)
    lo, hi = _ctrl_bounds(np.asarray(model.actuator_ctrlrange).reshape(-1, 2),
                          np.asarray(model.actuator_ctrllimited, dtype=bool))

    # 4. one second of simulation, and MuJoCo's on the same controls for reference
    _emit(start="simulate", loaded=loaded)
    h = float(model.timestep)
    nsteps = max(1, round(sim_seconds / h))
    rng = np.random.default_rng(seed)
    done, finite, error = 0, True, None
    t0 = time.perf_counter()
    try:
        sim = ncpgym.Simulator(model)
        sim.q[:] = model.qpos0
        sim.u[:] = 0.0
        for _ in range(nsteps):
            sim.step(ctrl=rng.uniform(lo, hi) if model.nu else None)
            done += 1
            if not (np.isfinite(sim.q).all() and np.isfinite(sim.u).all()):
                finite, error = False, f"non-finite q or u after step {done}"
                break
    except Exception as e:  # noqa: BLE001
        finite, error = False, f"at step {done + 1}: {_describe(e, 300)}"
    wall = time.perf_counter() - t0
    ref = {}
    if mj is not None and amap is not None:
        # MuJoCo's step (its own defaults, constraints on) from qpos0 with the same controls; a
        # run MuJoCo flags with a bad-qacc warning (it resets such a state) counts as not finite
        rng = np.random.default_rng(seed)
        d = mujoco.MjData(mj)
        ctrl = np.zeros(mj.nu)
        n_mj = max(1, round(sim_seconds / mj.opt.timestep))
        t1 = time.perf_counter()
        for _ in range(n_mj):
            if model.nu:
                ctrl[amap] = rng.uniform(lo, hi)
                d.ctrl[:] = ctrl
            mujoco.mj_step(mj, d)
        mj_wall = time.perf_counter() - t1
        bad = int(d.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)].number)
        ref = {"mujoco_finite": bool(np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all() and bad == 0),
               "mujoco_steps_per_s": n_mj / mj_wall if mj_wall > 0 else None}
    _emit(stage="simulate", loaded=loaded, finite=finite, steps=done, of=nsteps, timestep=h,
          steps_per_s=done / wall if wall > 0 and done else None, error=error, **ref)

    # 5. contact-free accelerations against MuJoCo
    _emit(start="qacc")
    if mj is None:
        _emit(stage="qacc", rel_err=None, note="no MuJoCo model compiled the way ncpgym compiles it")
        _emit(done=True)
        return
    if (model.nq, model.nv) != (mj.nq, mj.nv):
        _emit(stage="qacc", rel_err=None, note=f"sizes differ: ncpgym nq/nv {model.nq}/{model.nv}, "
              f"MuJoCo {mj.nq}/{mj.nv}")
        _emit(done=True)
        return
    if amap is None:
        _emit(stage="qacc", rel_err=None, note=f"ncpgym's {model.nu} actuators cannot be matched to "
              f"MuJoCo's {mj.nu} by name")
        _emit(done=True)
        return
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) | int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    d = mujoco.MjData(mj)
    batch = ncpgym.Batch(model, 1, num_threads=1)
    qrng = np.random.default_rng(seed + 1)
    worst, worst_abs, cond = 0.0, 0.0, None
    M = np.zeros((mj.nv, mj.nv))
    for _ in range(nstates):
        q = _near_qpos0(mj, qrng)
        u = qrng.normal(size=mj.nv)
        ctrl = qrng.uniform(lo, hi) if model.nu else np.zeros(0)
        mj_ctrl = np.zeros(mj.nu)
        mj_ctrl[amap] = ctrl
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, mj_ctrl
        d.qfrc_applied[:] = 0.0
        mujoco.mj_forward(mj, d)
        batch.q[0], batch.u[0] = q, u
        if model.nu:
            batch.ctrl[0] = ctrl
        batch.forward()
        a = dyn.forward(model, q, u, batch.qfrc_actuator[0].copy())
        b = d.qacc.copy()
        if mj.nv == 0:
            continue
        diff = float(np.max(np.abs(a - b)))
        err = diff / max(1.0, float(np.max(np.abs(b))))
        if not np.isfinite(err):  # NaN or inf on either side: the worst there is
            worst, worst_abs = float("inf"), float("inf")
        if err >= worst:  # the condition number of MuJoCo's M at the worst state
            mujoco.mj_fullM(mj, d, M)
            cond = float(np.linalg.cond(M))
        worst, worst_abs = max(worst, err), max(worst_abs, diff)
    _emit(stage="qacc", rel_err=worst, abs_err=worst_abs, cond_M=cond, nstates=nstates, loaded=loaded)
    _emit(done=True)


# ---------------------------------------------------------------- the parent

def run_model(path: Path, timeout: float, seed: int, nstates: int, sim_seconds: float, scratch: str) -> dict:
    """Run the worker on one model; the stages it reported, and how it ended."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(path), "--seed", str(seed),
           "--states", str(nstates), "--sim-seconds", str(sim_seconds)]
    t0 = time.perf_counter()
    # a session of its own: on a timeout the whole group goes (CoACD runs in a grandchild);
    # cwd: MuJoCo writes MUJOCO_LOG.TXT where it runs
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=scratch, start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    res: dict = {"worker_s": time.perf_counter() - t0}
    stage, finished = None, False
    for line in out.splitlines():
        if not line.startswith(MARK):
            continue
        rec = json.loads(line[len(MARK):])
        if "start" in rec:
            stage = rec["start"]
        elif rec.get("done"):
            finished = True
        else:
            res[rec.pop("stage")] = rec
            stage = None
    if timed_out:
        res["outcome"] = f"timeout ({timeout:g} s) in {stage}"
    elif not finished:
        code = proc.returncode
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
        tail = " | ".join(err.strip().splitlines()[-3:])[-400:]
        res["outcome"] = f"crash ({how}) in {stage}: {tail}"
    else:
        res["outcome"] = "ok"
    return res


def reason_summary(row: dict) -> str:
    sl = row.get("strict_load")
    if sl is None:
        return ""
    if sl.get("ok"):
        return ""
    if "error" in sl:
        return "error: " + sl["error"]
    counts = sl.get("refusal_counts", {})
    return ", ".join(f"{c} ({n})" if n > 1 else c for c, n in counts.items())


def is_model(row: dict) -> bool:
    """MuJoCo compiles the file (a crash or timeout inside MuJoCo's compile: not a model)."""
    return bool((row.get("compile") or {}).get("compiles"))


def loaded(row: dict) -> bool:
    return bool((row.get("strict_load") or {}).get("ok") or (row.get("nonstrict_load") or {}).get("ok"))


def feature_table(rows: list[dict]) -> dict[str, list[str]]:
    """category -> models whose strict load was refused for it (or failed with that error)."""
    table: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        sl = r.get("strict_load")
        if not is_model(r) or sl is None or sl.get("ok"):
            continue
        key = f"{r['group']}/{r['model']}"
        if "error" in sl:
            table["load error: " + re.sub(r"'[^']*'", "'…'", sl["error"])[:70]].append(key)
        for cat in sl.get("refusal_counts", {}):
            table[cat].append(key)
    return dict(sorted(table.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def summarise(rows: list[dict], groups: list[str], unavailable: dict[str, str]) -> tuple[str, dict]:
    per_group = {}
    for g in groups:
        if g in unavailable:
            per_group[g] = {"unavailable": unavailable[g]}
            continue
        models = [r for r in rows if r["group"] == g and is_model(r)]
        strict = [r for r in models if (r.get("strict_load") or {}).get("ok")]
        per_group[g] = {"models": len(models), "strict": len(strict),
                        "non_strict_only": sum(1 for r in models if not (r.get("strict_load") or {}).get("ok")
                                               and (r.get("nonstrict_load") or {}).get("ok")),
                        "not_a_model": sum(1 for r in rows if r["group"] == g and not is_model(r))}
    models = [r for r in rows if is_model(r)]
    q_all = [r for r in models if (r.get("qacc") or {}).get("rel_err") is not None]
    q_strict = [r for r in q_all if r["qacc"].get("loaded") == "strict"]
    within = lambda rs: sum(1 for r in rs if r["qacc"]["rel_err"] <= QACC_TOL)
    sims = [r for r in models if loaded(r)]  # a crash or timeout after the load counts against it
    sim_ok = [r for r in sims if (r.get("simulate") or {}).get("finite") and r["outcome"] == "ok"]
    # a divergence the solver detected and reported (the state left as it was, no NaN), on a model
    # MuJoCo itself does not keep finite: counted apart from crashes and NaNs
    reported = [r for r in sims if r not in sim_ok and r["outcome"] == "ok"
                and "diverged" in str(r["simulate"].get("error")) and r["simulate"].get("mujoco_finite") is False]
    parts = []
    for g in groups:
        pg = per_group[g]
        parts.append(f"{LABELS[g]} unavailable" if "unavailable" in pg
                     else f"{LABELS[g]} {pg['strict']}/{pg['models']}")
    line = (", ".join(parts) + f" load strictly; qacc within {QACC_TOL:g} on {within(q_strict)}/{len(q_strict)} strict loads"
            f" ({within(q_all) - within(q_strict)}/{len(q_all) - len(q_strict)} non-strict); "
            f"no crash/NaN on {len(sim_ok) + len(reported)}/{len(sims)} simulated, "
            f"{len(reported)} of them a reported divergence where MuJoCo diverges too "
            f"(of {len(models)} models, {sum(1 for r in models if r['outcome'] != 'ok')} crash/timeout outcomes)")
    return line, {"per_group": per_group, "qacc_within_tol_strict": [within(q_strict), len(q_strict)],
                  "qacc_within_tol_nonstrict": [within(q_all) - within(q_strict), len(q_all) - len(q_strict)],
                  "simulated_finite": [len(sim_ok), len(sims)],
                  "reported_divergences": [r["model"] for r in reported], "qacc_tol": QACC_TOL}


def _yes(v):
    return "-" if v is None else ("yes" if v else "no")


def print_tables(rows: list[dict], groups: list[str], unavailable: dict[str, str]) -> None:
    w = max([len(r["model"]) for r in rows] + [5]) + 2
    print(f"\n{'group':<20}{'model':<{w}}{'compiles':>9}{'nv':>5}{'strict':>8}{'finite 1s':>10}{'MuJoCo':>7}"
          f"{'steps/s':>9}{'qacc err':>10}{'load s':>8}  reason / outcome")
    for r in rows:
        c = r.get("compile") or {}
        if not is_model(r):
            why = c.get("error", "") if r["outcome"] == "ok" else r["outcome"]
            print(f"{r['group']:<20}{r['model']:<{w}}{'no':>9}  not a model: {why[:110]}")
            continue
        sl, ns, sim, qa = (r.get(k) or {} for k in ("strict_load", "nonstrict_load", "simulate", "qacc"))
        strict = _yes(sl.get("ok")) if sl else "-"
        if sl and not sl.get("ok"):
            strict += "/ns" if ns.get("ok") else ""
        fin = _yes(sim.get("finite")) if sim else "-"
        mjf = _yes(sim.get("mujoco_finite"))
        nv = str(c.get("nv", "-"))
        sps = f"{sim['steps_per_s']:.0f}" if sim.get("steps_per_s") else "-"
        qe = qa.get("rel_err")
        qtxt = "-" if qe is None else f"{qe:.1e}"
        if qe is not None and qa.get("loaded") == "non-strict":
            qtxt += "*"
        load = f"{sl['load_s']:.2f}" if sl.get("load_s") is not None else "-"
        why = reason_summary(r)
        if r["outcome"] != "ok":
            why = (r["outcome"] + ("; " + why if why else ""))
        if sim.get("error"):  # first: the reasons can be long
            why = "sim: " + sim["error"] + ("; " + why if why else "")
        print(f"{r['group']:<20}{r['model']:<{w}}{'yes':>9}{nv:>5}{strict:>8}{fin:>10}{mjf:>7}{sps:>9}{qtxt:>10}"
              f"{load:>8}  {why[:200]}")
    print("(strict 'no/ns': refused strictly, loads with strict=False; MuJoCo: MuJoCo's own 1 s on the same controls"
          " finite; qacc err '*': from the non-strict load, dropped features included in MuJoCo's)")
    for g, why in unavailable.items():
        print(f"{g}: unavailable ({why})")
    flagged = [(r, r["compile"]["disableflags"]) for r in rows if is_model(r) and r["compile"].get("disableflags")]
    if flagged:  # MuJoCo leaves these parts of the dynamics out; the loader reads no <flag>
        print("\nmodels with MuJoCo <flag ... disable> settings: "
              + "; ".join(f"{r['group']}/{r['model']} {' '.join(f.removeprefix('mjDSBL_') for f in fl)}"
                          for r, fl in flagged))
    ft = feature_table(rows)
    print(f"\n{'feature':<58}{'models':>7}  refused models")
    for cat, models in ft.items():
        print(f"{cat[:57]:<58}{len(models):>7}  {', '.join(models)}")


def source_state() -> dict:
    """The commit of this checkout and whether ncpgym's sources differ from it (benchmarks run
    against the installed, editable build)."""
    def git(*a):
        r = subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, check=False)
        return r.stdout.strip() if r.returncode == 0 else None
    changed = git("status", "--porcelain", "--", "cpp", "python", "CMakeLists.txt")
    return {"commit": git("rev-parse", "HEAD"), "uncommitted_source_changes": None if changed is None else bool(changed)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "model_coverage.json")
    ap.add_argument("--groups", nargs="+", choices=GROUPS, metavar="GROUP",
                    help="only these groups (" + ", ".join(GROUPS) + ")")
    ap.add_argument("--models", metavar="SUBSTR", help="only models whose path (within its group) contains this")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per model (all stages), default 120")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--states", type=int, default=3, help="random states of the qacc comparison")
    ap.add_argument("--sim-seconds", type=float, default=1.0, help="model time simulated")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        worker(args.worker, args.seed, args.states, args.sim_seconds)
        return

    from tqdm import tqdm

    groups = list(args.groups or GROUPS)
    jobs, unavailable, roots = [], {}, {}
    for g in groups:
        try:
            root, files = group_files(g)
        except Exception as e:  # noqa: BLE001 - an unavailable group is reported, not fatal
            unavailable[g] = f"{type(e).__name__}: {e}"
            continue
        roots[g] = str(root)
        for f in files:
            rel = f.relative_to(root).as_posix()
            if args.models is None or args.models in rel:
                jobs.append((g, rel, f))
    start = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="model_coverage_") as scratch:
        bar = tqdm(jobs, unit="model", disable=args.no_progress, dynamic_ncols=True)
        for g, rel, f in bar:
            bar.set_postfix_str(f"{g}/{rel}"[-50:])
            res = run_model(f, args.timeout, args.seed, args.states, args.sim_seconds, scratch)
            rows.append({"group": g, "model": rel, **res})
    elapsed = time.perf_counter() - start

    partial = bool(args.groups or args.models)
    if partial and args.json.is_file():  # merge: the models run now replace their old rows
        old = json.loads(args.json.read_text())
        ran = {(r["group"], r["model"]) for r in rows}
        rows_all = [r for r in old["models"] if (r["group"], r["model"]) not in ran] + rows
        rows_all.sort(key=lambda r: (GROUPS.index(r["group"]), r["model"]))
        unavailable_all = {**{k: v for k, v in old["meta"].get("unavailable", {}).items() if k not in groups},
                           **unavailable}
        meta = old["meta"]
        meta["partial_runs"] = meta.get("partial_runs", []) + [" ".join(["python benchmarks/model_coverage.py",
                                                                            *(argv or sys.argv[1:])])]
        groups_all = [g for g in GROUPS if any(r["group"] == g for r in rows_all) or g in unavailable_all]
    else:
        rows_all, unavailable_all, groups_all = rows, unavailable, groups
        meta = {}
    print_tables(rows, groups, unavailable)
    line, counts = summarise(rows_all, groups_all, unavailable_all)
    import mujoco
    import ncpgym
    meta.update({"command": "python benchmarks/model_coverage.py --json benchmarks/results/model_coverage.json",
                 "ncpgym": ncpgym.__version__, "mujoco": mujoco.__version__, "timeout_s": args.timeout,
                 **source_state(), "seed": args.seed, "qacc_states": args.states, "sim_seconds": args.sim_seconds,
                 "roots": {**meta.get("roots", {}), **roots}, "unavailable": unavailable_all,
                 "qacc_error": "max over states of |a - b|_inf / max(1, |b|_inf), a ncpgym, b MuJoCo"})
    if not partial:
        meta["run_s"] = elapsed
    else:
        meta["last_partial_run_s"] = elapsed
    print(f"\nran {len(rows)} files in {elapsed:.0f} s")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"summary": line, "counts": counts, "features": feature_table(rows_all),
                                     "models": rows_all, "meta": meta}, indent=1) + "\n")
    print(f"wrote {args.json}")
    print(line)


if __name__ == "__main__":
    main()
