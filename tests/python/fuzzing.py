"""Fuzz cases for the model loader and the Builder (issue 25): mutated MJCF files and random
Builder call sequences. Each case must end in a Python exception with a message or in a
model that steps; a crash, a hang or a sanitizer report is a bug. Used by the bounded test
(tests/python/test_hardening.py) and by the long run (scripts/fuzz.py).

Written here by hand: the mutations are specific to MJCF's attributes and to the Builder's
calls, which no general fuzzer (atheris needs coverage-instrumented C++ to help here) knows.
"""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable

import numpy as np

import ncpgym
from ncpgym import _core

# values that have broken parsers and solvers elsewhere: extremes, non-numbers, wrong counts
ODD_VALUES = ["0", "-1", "1e300", "-1e300", "1e-300", "nan", "inf", "-inf", "", "abc", "1 2", "0 0 0 0 0 0 0 0",
              "-0", "3.4e38", "1e-12", "2147483648", "-2147483649"]


def sources() -> dict[str, str]:
    """MJCF texts the fuzzer mutates: ncpgym's flag-run humanoid and Gymnasium's pendulum
    (installed packages), and a small scene with every geom type, limits, springs,
    actuators, an equality and a mocap body, written here."""
    import gymnasium

    out = {"humanoid_flagrun": (Path(ncpgym.__file__).parent / "envs" / "humanoid" / "humanoid_flagrun.xml").read_text()}
    pend = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / "inverted_pendulum.xml"
    out["inverted_pendulum"] = pend.read_text()
    out["scene"] = """<mujoco model="scene">
  <option timestep="0.01"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="mocap" mocap="true" pos="0 0 1"><geom type="box" size="0.05 0.05 0.05" contype="0" conaffinity="0"/></body>
    <body name="a" pos="0 0 0.5">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body name="b" pos="0.2 0 0">
        <joint name="h" type="hinge" axis="0 1 0" range="-1 1" stiffness="5" springref="0.2" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="0.3"/>
        <body name="c" pos="0.2 0 0">
          <joint name="s" type="slide" axis="1 0 0" range="0 0.1"/>
          <geom type="cylinder" size="0.03 0.05" mass="0.2"/>
          <geom type="sphere" size="0.04" pos="0 0 0.05" mass="0.1"/>
          <site name="tip" pos="0.05 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><joint joint1="s" joint2="h" polycoef="0 0.05 0 0 0"/></equality>
  <actuator>
    <motor joint="h" gear="2" ctrlrange="-1 1" ctrllimited="true"/>
    <position joint="s" kp="50" ctrlrange="0 0.1"/>
  </actuator>
</mujoco>"""
    return out


def mutate_mjcf(text: str, rng: np.random.Generator, edits: int = 3) -> str:
    """`edits` random edits of an MJCF text: an attribute set to an odd value, an element
    deleted or duplicated, or an attribute copied onto another element."""
    root = ET.fromstring(text)
    for _ in range(edits):
        elems = list(root.iter())
        kind = rng.integers(4)
        e = elems[rng.integers(len(elems))]
        if kind == 0 and e.attrib:  # odd value
            k = list(e.attrib)[rng.integers(len(e.attrib))]
            e.set(k, ODD_VALUES[rng.integers(len(ODD_VALUES))])
        elif kind == 1 and e is not root:  # delete
            parent = next(p for p in root.iter() if e in list(p))
            parent.remove(e)
        elif kind == 2 and e is not root:  # duplicate (names clash, bodies double)
            parent = next(p for p in root.iter() if e in list(p))
            parent.append(copy.deepcopy(e))
        else:  # an attribute of one element on another
            donor = elems[rng.integers(len(elems))]
            if donor.attrib:
                k = list(donor.attrib)[rng.integers(len(donor.attrib))]
                e.set(k, donor.attrib[k])
    return ET.tostring(root, encoding="unicode")


def _vec(rng: np.random.Generator, n: int):
    """A vector of n floats, now and then odd (NaN, inf, huge, wrong length)."""
    r = rng.random()
    if r < 0.05:
        return [float("nan")] * n
    if r < 0.1:
        return [float("inf")] + [0.0] * (n - 1)
    if r < 0.15:
        return list(rng.normal(size=n + 1))
    if r < 0.2:
        return [1e300] * n
    return list(rng.normal(scale=0.3, size=n))


def _num(rng: np.random.Generator, typical: float) -> float:
    r = rng.random()
    if r < 0.05:
        return float("nan")
    if r < 0.1:
        return -typical
    if r < 0.15:
        return 0.0
    if r < 0.2:
        return 1e300
    return float(typical * rng.uniform(0.2, 2.0))


def random_builder(rng: np.random.Generator, calls: int = 25) -> Callable[[], _core.Model]:
    """A thunk that runs `calls` random Builder calls (indices sometimes out of range,
    values sometimes NaN, negative, zero or huge) and builds. Errors from single calls are
    the Builder refusing bad input and are skipped, as a user's try/except would."""
    def run() -> _core.Model:
        b = _core.Builder()
        bodies, joints, particles, meshes = [0], [], [], []

        def pick(seq, extra=3):
            return int(rng.integers(-1, len(seq) + extra)) if rng.random() < 0.1 else (
                seq[rng.integers(len(seq))] if seq else 0)

        for _ in range(calls):
            op = rng.integers(12)
            try:
                if op <= 2:
                    bodies.append(b.add_body(pick(bodies), pos=_vec(rng, 3), mass=_num(rng, 1.0),
                                             inertia=np.diag(np.abs(np.resize(_vec(rng, 3), 3)))))
                elif op == 3:
                    kind = ["hinge", "slide", "ball", "free", "bogus"][rng.integers(5)]
                    rng_ = (float(rng.normal()), float(rng.normal())) if rng.random() < 0.5 else None
                    joints.append(b.add_joint(pick(bodies), kind, axis=_vec(rng, 3), range=rng_,
                                              stiffness=_num(rng, 1.0), damping=_num(rng, 0.1)))
                elif op <= 5:
                    kind = ["sphere", "capsule", "box", "cylinder", "plane", "mesh"][rng.integers(6)]
                    b.add_geom(pick(bodies), kind, size=[abs(x) for x in _vec(rng, 3)], pos=_vec(rng, 3),
                               mesh=pick(meshes) if kind == "mesh" else -1)
                elif op == 6:
                    n = int(rng.integers(0, 12))
                    v = rng.normal(scale=0.1, size=(n, 3))
                    if rng.random() < 0.3 and n:
                        v[:, 2] = 0.0  # flat
                    meshes.append(b.add_mesh(v))
                elif op == 7 and joints:
                    b.add_actuator(pick(joints), ["motor", "position"][rng.integers(2)], gear=_num(rng, 1.0),
                                   kp=_num(rng, 10.0))
                elif op == 8:
                    particles.append(b.add_particle(_vec(rng, 3), mass=_num(rng, 0.01), radius=abs(_num(rng, 0.01))))
                elif op == 9 and len(particles) >= 2:
                    b.add_distance(pick(particles), pick(particles), compliance=abs(_num(rng, 1e-4)))
                elif op == 10 and len(particles) >= 4:
                    b.add_tet([pick(particles) for _ in range(4)], young=_num(rng, 1e5), poisson=_num(rng, 0.3))
                elif op == 11 and len(bodies) >= 2:
                    [b.add_connect, b.add_weld][rng.integers(2)](pick(bodies), pick(bodies))
            except Exception as e:  # noqa: BLE001  (refusals must carry a message)
                if not str(e):
                    raise AssertionError(f"{type(e).__name__} without a message") from e
        return b.build()
    return run


def step_briefly(model: _core.Model, rng: np.random.Generator, steps: int = 10) -> None:
    """A few steps with random controls from the model's default configuration."""
    sim = ncpgym.Simulator(model)
    for _ in range(steps):
        if model.nu:
            sim.ctrl[:] = rng.normal(size=model.nu)
        sim.step()


def run_case(make: Callable[[], _core.Model], rng: np.random.Generator) -> str:
    """'model' when `make` gave a model that stepped, else the exception's type name. An
    exception without a message is a failure (AssertionError)."""
    try:
        model = make()
    except Exception as e:  # noqa: BLE001
        if not str(e).strip():
            raise AssertionError(f"{type(e).__name__} without a message") from e
        return type(e).__name__
    try:
        step_briefly(model, rng)
    except Exception as e:  # noqa: BLE001  (a diverging world may raise; it must say why)
        if not str(e).strip():
            raise AssertionError(f"stepping: {type(e).__name__} without a message") from e
        return "step:" + type(e).__name__
    return "model"


def mjcf_case(text: str, rng: np.random.Generator) -> tuple[str, str]:
    """(mutated text, outcome) of one MJCF case."""
    from ncpgym.models import load_model

    mutated = mutate_mjcf(text, rng, edits=int(rng.integers(1, 4)))
    return mutated, run_case(lambda: load_model(mutated, convex_decomposition="hull"), rng)
