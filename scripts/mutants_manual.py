"""Hand-written mutants of the Python layer (the one-line bugs issue 14 lists), each applied
to a scratch copy of the package and run against the task/env tests; prints KILLED or
SURVIVED per mutant. Not in CI. Usage: python scripts/mutants_manual.py [--only NAME ...] [TEST_FILE ...]
(TEST_FILEs replace the default test files of the task mutants; loader/export mutants run
their own)."""
import os, shutil, subprocess, sys, tempfile, site
from pathlib import Path
from mutant_runner import write_runner
ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "python" / "ncpgym")
T = str(ROOT / "tests" / "python")
SCRATCH = tempfile.mkdtemp(prefix="ncpgym-mutants-")
SO = next(so for d in site.getsitepackages() for so in Path(d).glob("ncpgym/_core*.so"))
RUNNER = write_runner(os.path.join(SCRATCH, "run_pytest.py"), SCRATCH)
SQUEEZE = ["test_allegro.py::test_squeeze_task_terms_and_observation_from_its_docstring"]
GRASP = ["test_allegro_grasp.py::test_grasp_task_definition_from_its_docstring",
         "test_allegro_grasp.py::test_pinch_synergy_sweeps_the_fingertips_at_a_fixed_depth"]
TOMATO = ["test_fetch_tomato.py"]
BEAM = ["test_fetch_beam.py"]
MANTA = ["test_manta_swim.py"]
RODS = ["test_rods.py", "test_shells.py", "test_medium.py"]
INVERSE = ["test_soft_inverse.py"]
PRESSURE = ["test_pressure.py"]
PRESSURE_TASK = ["test_task_definitions.py::test_pneunet_grasp_pressure_variant_definition",
                 "test_pneunet.py::test_pressure_gripper_closes_on_the_ball_lifts_it_and_holds_it"]
TRAIN = ["test_training.py::test_a_resumed_run_is_bitwise_the_uninterrupted_one",
         "test_training.py::test_a_checkpoint_written_inside_a_rollout_is_not_resumable",
         "test_training.py::test_play_takes_the_task_from_the_run_and_reports_returns_and_success"]
LOADER = ["test_loading.py", "test_mujoco_crosscheck.py", "test_simulator_api.py", "test_equality.py"]
M = [
 ("tasks/flagrun.py", "np.arctan2(d[:, 1], d[:, 0]) - yaw", "np.arctan2(d[:, 1], d[:, 0]) + yaw", "yaw sign"),
 ("tasks/flagrun.py", "c, s = np.cos(-yaw), np.sin(-yaw)", "c, s = np.cos(yaw), np.sin(yaw)", "velocity rotated wrong way"),
 ("tasks/flagrun.py", "0.3 * v[:, 2], roll, pitch]", "0.3 * v[:, 2], pitch, roll]", "roll/pitch swap"),
 ("tasks/flagrun.py", "jp = (q[:, self._hinge_q] - self._mid) / self._half", "jp = (q[:, self._hinge_q] - self._mid) / self._half / 2", "obs joint scaling halved"),
 ("tasks/flagrun.py", '"joint_pos": (q[:, self._hinge_q] - self._mid) / self._half,\n            "joint_speed": 0.1 * u[:, self._hinge_v], "feet": self._feet,\n        })\n        reward, terms = self.rewards(ctx)\n        terminated', '"joint_pos": (q[:, self._hinge_q] - self._mid) / self._half / 2,\n            "joint_speed": 0.1 * u[:, self._hinge_v], "feet": self._feet,\n        })\n        reward, terms = self.rewards(ctx)\n        terminated', "reward joint scaling halved"),
 ("tasks/flagrun.py", "np.abs(c.action * c.joint_speed).mean(axis=1)", "np.abs(c.action * c.joint_speed).sum(axis=1)", "electricity sum"),
 ("tasks/flagrun.py", "c.batch.geom_dynamic_contact[:, feet]", "c.batch.geom_contact[:, feet]", "feet_collision counts ground"),
 ("tasks/flagrun.py", "c.batch.geom_dynamic_contact[:, feet]",
  "(c.batch.geom_contact[:, feet].astype(bool) & ~c.batch.geom_static_contact[:, feet].astype(bool))",
  "feet_collision misses a foot standing on the ground"),
 ("tasks/flagrun.py", "terminated = (q[:, 2] <= 0.78) | ~np.isfinite(q).all(axis=1)", "terminated = ~np.isfinite(q).all(axis=1)", "no termination"),
 ("tasks/flagrun.py", "move = (after < 1.0) | (self.timer <= 0)", "move = (after < 1.0)", "no flag timeout"),
 ("tasks/flagrun.py", "        if first:", "        if False:", "no first flag ahead"),
 ("tasks/flagrun.py", "np.where((c.z >= 0.8) & (c.z_before >= 0.8),", "np.where((c.z >= 0.8),", "progress gate one-sided"),
 ("tasks/curriculum.py", "p = self.floor + self.failure", "p = self.floor + 0 * self.failure", "curriculum removed"),
 ("tasks/flagrun.py", "self.ground >= 170", "self.ground > 170", "ground counter off by one"),
 ("tasks/flagrun.py", "np.maximum(self.ground - 1, 0)", "self.ground", "ground counter no decrease"),
 ("tasks/flagrun.py", "self.z0[worlds] = 0.8", "pass", "harder z0"),
 ("tasks/flagrun.py", '"electricity": -8.5 / 4', '"electricity": -8.5', "harder electricity weight"),
 ("tasks/humanoid.py", "reward = forward + survive - ctrl_cost - contact_cost", "reward = forward + survive + ctrl_cost - contact_cost", "ctrl-cost sign"),
 ("tasks/humanoid.py", "terminated = ~healthy if self.terminate_when_unhealthy else np.zeros_like(healthy)", "terminated = np.zeros_like(healthy)", "humanoid no termination"),
 ("tasks/humanoid.py", "contact_cost = np.clip(contact, *self.contact_cost_range)", "contact_cost = contact", "contact cost unclipped"),
 ("tasks/humanoid.py", "u = batch.uniform(worlds, m.nv, -s, s)", "u = np.zeros((len(worlds), m.nv))", "humanoid no qvel noise"),
 ("tasks/inverted_pendulum.py", "np.abs(batch.q[:, 1]) > 0.2", "batch.q[:, 1] > 0.2", "pendulum abs"),
 ("tasks/pneunet_grasp.py", "(1.0 - np.exp(-dt / LAG))", "(dt / LAG)", "pneunet euler lag"),
 ("tasks/pneunet_grasp.py", "lost = np.hypot(batch.q[:, 1], batch.q[:, 2]) > WORKSPACE", "lost = np.abs(batch.q[:, 1]) > WORKSPACE", "pneunet workspace"),
 ("tasks/pneunet_grasp.py", "hold = (np.abs(z - TARGET_Z) < HOLD_BAND)", "hold = (np.abs(z - TARGET_Z) < 2 * HOLD_BAND)", "pneunet hold band"),
 ("tasks/pneunet_grasp.py", "P_MAX = 1.0e6", "P_MAX = 1.0e5", "pneunet pressure full scale", PRESSURE_TASK),
 ("tasks/pneunet_grasp.py", "(P_MAX, 1e-6)", "(P_MAX, 1.0)", "pneunet pressure observed in Pa", PRESSURE_TASK),
 ("tasks/pneunet_grasp.py", 'if self.actuation == "strain" else self.act\n', 'if self.actuation == "strain" else self.act[:, ::-1]\n',
  "pneunet pressure supply lines crossed", PRESSURE_TASK),
 ("tasks/pneunet_grasp.py", "PRESSURE_TILT = 80.0", "PRESSURE_TILT = 70.0", "pneunet pressure fingers at the strain tilt", PRESSURE_TASK),
 ("tasks/pneunet_grasp.py", "PRESSURE_POISSON = 0.3", "PRESSURE_POISSON = 0.47", "pneunet pressure nu locks", PRESSURE_TASK),
 ("envs/pneunet/__init__.py", "group_offset=f, one_group=True", "group_offset=f, one_group=False", "pneunet pressure one group per chamber", PRESSURE_TASK),
 ("tasks/pneunet_grasp.py", 'if actuation == "pressure" and mesh != (8, 2, 2):', "if False:", "pneunet pressure mesh ignored", PRESSURE_TASK),
 ("tasks/yumi_drawer.py", 'RewardTerm("reach", lambda c: -c.grip_dist, 1.0)', 'RewardTerm("reach", lambda c: c.grip_dist, 1.0)', "yumi reach sign"),
 ("tasks/yumi_drawer.py", "np.minimum(c.opening / OPEN_GOAL, 1.0)", "np.minimum(c.opening / 0.4, 1.0)", "yumi open scale"),
 ("tasks/yumi_drawer.py", "np.mean(c.action ** 2, axis=1)", "np.sum(c.action ** 2, axis=1)", "yumi action sum"),
 ("tasks/yumi_drawer.py", '"is_success": opening >= OPEN_GOAL', '"is_success": opening > 0.35', "yumi success threshold"),
 ("tasks/yumi_drawer.py", "0.025 * 0.5 * (action[:, -1] + 1.0)", "0.025 * (action[:, -1] + 1.0)", "yumi finger target"),
 ("tasks/yumi_drawer.py", "grasped = (touching & (dist < GRASP_RADIUS))", "grasped = touching", "yumi grasp radius ignored"),
 ("tasks/yumi_drawer.py", "step = STEP_RAD * action[:, :7]", "step = 0.1 * action[:, :7]", "yumi arm step"),
 ("tasks/yumi_drawer.py", "(HOOK + (1.0 - HOOK) * c.grasped)", "1.0", "yumi open not gated by the grasp"),
 ("tasks/yumi_drawer.py", 'np.einsum("nij,nik->nj", jmb, force)', 'np.einsum("nij,nik->nj", jmb, dx[..., None])', "yumi ee_delta without Lambda"),
 ("tasks/yumi_drawer.py", "step *= np.minimum(1.0, STEP_RAD / np.maximum(np.abs(step).max(axis=1, keepdims=True), 1e-12))", "step = np.clip(step, -STEP_RAD, STEP_RAD)", "yumi ee_delta clipped per joint"),
 ("tasks/yumi_drawer.py", "shift = batch.uniform(worlds, 2, -1.0, 1.0) * np.array(CABINET_NOISE)", "shift = np.zeros((len(worlds), 2))", "yumi cabinet not randomised"),
 ("vector.py", "obs[pending] = self._restart(pending)[pending]", "self._elapsed[pending] = 0", "next-step autoreset skips state reset"),
 ("wrappers.py", "reward[reset_step] = 0.0  # next-step", "pass  # next-step", "RewardTerms reward zeroing removed"),
 ("wrappers.py", "                v[reset_step] = 0.0", "                pass", "RewardTerms terms zeroing removed"),
 # the Allegro tasks (their own definition tests)
 ("tasks/allegro_squeeze.py", "return 1.0 - batch.soft_volume[:, 0] / self.V0", "return batch.soft_volume[:, 0] / self.V0 - 1.0", "squeeze strain sign", SQUEEZE),
 ("tasks/allegro_squeeze.py", "1.0 - np.abs(c.error) / TRACK_WIDTH", "1.0 - np.abs(c.error) / 0.1", "squeeze track width", SQUEEZE),
 ("tasks/allegro_squeeze.py", "self.held >= HOLD_STEPS", "self.held > HOLD_STEPS", "squeeze hold off by one", SQUEEZE),
 ("tasks/allegro_squeeze.py", "axis=1) > DROP_DISTANCE", "axis=1) > 0.05", "squeeze drop distance", SQUEEZE),
 ("tasks/allegro_squeeze.py", "self.targets + STEP_RAD * action, self.lo, self.hi", "self.targets + STEP_RAD * action, self.lo, 9.0", "squeeze targets unclipped", SQUEEZE),
 ("tasks/allegro_grasp.py", "1.0 - np.tanh(10.0 * np.linalg.norm(c.offset, axis=1))", "1.0 - np.tanh(5.0 * np.linalg.norm(c.offset, axis=1))", "grasp reach scale", GRASP),
 ("tasks/allegro_grasp.py", "np.clip(c.height / LIFT_GOAL, 0.0, 1.0)", "np.clip(c.height / 0.12, 0.0, 1.0)", "grasp lift scale", GRASP),
 ("tasks/allegro_grasp.py", "self.held >= HOLD_STEPS", "self.held >= HOLD_STEPS - 1", "grasp hold off by one", GRASP),
 ("tasks/allegro_grasp.py", "axis=1) > LOST)", "axis=1) > 0.2)", "grasp lost distance", GRASP),
 ("tasks/allegro_grasp.py", "self.closure + STEP_S * action[:, 3]", "self.closure + 0.05 * action[:, 3]", "grasp closure step", GRASP),
 ("tasks/allegro_grasp.py", "TABLE_TOP - v[:, 2].min() + 5e-4", "TABLE_TOP + 5e-4", "grasp object not on the table", GRASP),
 ("tasks/allegro_grasp.py", "active[w, self.park_eq[pick[i]]] = 0", "pass", "grasp picked object stays welded", GRASP),
 ("tasks/allegro_grasp.py", "self.wrist_target + STEP_M * action[:, :3], WRIST_LO, WRIST_HI", "self.wrist_target + STEP_M * action[:, :3], -1.0, 1.0", "grasp wrist targets unclipped", GRASP),
 ("envs/allegro/__init__.py", "[0.535, 0.895], [0.604, 0.949]", "[0.535, 0.895], [0.604, 0.849]", "synergy table entry", GRASP),
 ("envs/allegro/__init__.py", "np.maximum(s - 1.0, 0.0)", "np.maximum(s - 1.0, 0.0) * 0.5", "synergy squeeze beyond 1", GRASP),
 # the Fetch tasks (their own tests)
 ("tasks/fetch_tomato.py", "np.minimum(c.to_plate / c.start_dist, 1.0)", "np.minimum(c.to_plate / 0.5, 1.0)", "tomato carry scale", TOMATO),
 ("tasks/fetch_tomato.py", "np.maximum(c.squeeze - SAFE_SQUEEZE, 0.0) / SAFE_SQUEEZE", "np.maximum(c.squeeze - SAFE_SQUEEZE, 0.0) / 20.0", "tomato crush scale", TOMATO),
 ("tasks/fetch_tomato.py", "crushed = (squeeze > CRUSHED) | (c > CRUSHED_COMPRESSION)", "crushed = c > CRUSHED_COMPRESSION", "tomato crush ignores the squeeze", TOMATO),
 ("tasks/fetch_tomato.py", "(self.closing(batch) * batch.geom_dynamic_contact[:, self.idx.pads]).max(axis=1)", "self.closing(batch).max(axis=1)", "tomato squeeze without contact", TOMATO),
 ("tasks/fetch_tomato.py", "released = placed & ~pads.any(axis=1)", "released = placed", "tomato release ignores the pads", TOMATO),
 ("tasks/fetch_tomato.py", "& (np.abs(reading - self.mass) <= READING_TOLERANCE * self.mass))", ")", "tomato success ignores the reading", TOMATO),
 ("tasks/fetch_tomato.py", "x[worlds, :, :2] += shift[:, None, :]", "pass", "tomato not shifted at reset", TOMATO),
 ("tasks/fetch_tomato.py", "self.yaw + STEP_YAW * action[:, 3]", "self.yaw + 0.1 * action[:, 3]", "tomato yaw step", TOMATO),
 ("tasks/fetch_tomato.py", "dropped = T[:, 2] < fetch.TABLE_TOP", "dropped = T[:, 2] < 0.0", "tomato drop height", TOMATO),
 ("tasks/fetch_tomato.py", "self.finger + STEP_FINGER * action[:, 4], 0.0, FINGER_OPEN)", "self.finger + 0.02 * action[:, 4], 0.0, FINGER_OPEN)", "tomato finger step", TOMATO),
 ("tasks/fetch_tomato.py", "        self.finger[worlds] = FINGER_OPEN\n", "", "tomato fingers not reopened at reset", TOMATO),
 ("envs/fetch/__init__.py", "        err[:, :3] += goal_step", "        pass", "fetch ik feed-forward dropped", TOMATO),
 ("envs/fetch/__init__.py", "spec.geom(g).friction = [PAD_FRICTION, 0.005, 0.0001]", "spec.geom(g).friction = [1.0, 0.005, 0.0001]", "fetch pad friction", TOMATO),
 ("tasks/fetch_beam_insert.py", "quat_angle(batch.xquat[:, self.handle], batch.xquat[:, self.last])", "quat_angle(batch.xquat[:, self.handle + 1], batch.xquat[:, self.last])", "beam bend from link 0", BEAM),
 ("tasks/fetch_tomato.py", "(pads.all(axis=1) & (reach < GRASP_RADIUS))", "pads.all(axis=1)", "tomato grasp without the tomato", TOMATO),
 ("tasks/fetch_tomato.py", "placed = over & on_plate & batch", "placed = over & batch", "tomato place without the tomato on it", TOMATO),
 ("tasks/fetch_beam_insert.py", "< beam.HOLE / 2, axis=1)", "< beam.HOLE, axis=1)", "beam hole outline", BEAM),
 ("tasks/fetch_beam_insert.py", "np.clip(c.depth / INSERT_GOAL, 0.0, 1.0)", "np.clip(c.depth / 0.04, 0.0, 1.0)", "beam insert scale", BEAM),
 ("tasks/fetch_beam_insert.py", "success = (depth >= INSERT_GOAL) & (bend < STRAIGHT)", "success = depth >= INSERT_GOAL", "beam success ignores the bend", BEAM),
 ("tasks/fetch_beam_insert.py", "np.where(c.bend < STRAIGHT, np.clip(c.depth / INSERT_GOAL, 0.0, 1.0), 0.0)", "np.clip(c.depth / INSERT_GOAL, 0.0, 1.0)", "beam depth pays when bent", BEAM),
 # training: resume and play (issue 24)
 ("train/ppo.py", 'torch.set_rng_state(st["torch_rng"])', 'pass', "resume without torch's random stream", TRAIN),
 ("train/ppo.py", '"resume": self._trainer_state() if self._between_updates else None', '"resume": self._trainer_state()', "resume from inside a rollout", TRAIN),
 ("train/ppo.py", "self.envs.set_state(st[\"envs\"])", "self.envs.reset(seed=0)", "resume without the worlds", TRAIN),
 ("play.py", 'success[done] = np.asarray(info["is_success"], float)[done]', 'pass', "play ignores success", TRAIN),
 ("tasks/fetch_beam_insert.py", 'RewardTerm("reach", lambda c: -c.reach, 5.0)', 'RewardTerm("reach", lambda c: -c.reach, 1.0)', "beam reach weight", BEAM),
 ("scenes.py", "F = (stiffness * lift + np.sum(G * arm)) / np.sum(arm * arm)", "F = stiffness * lift / np.sum(arm * arm)", "beam statics without gravity", BEAM),
 # the loader and the MJCF export (their own tests)
 ("models/loader.py", "springref=float(mjm.qpos_spring[qa]) if scalar else 0.0,", "springref=0.0,", "loader drops springref", LOADER),
 ("models/loader.py", "kp=float(gain[0]),", "kp=0.5 * float(gain[0]),", "loader halves kp", LOADER),
 ("models/loader.py", "gear=gear * gain[0]", "gear=gear", "loader drops the motor gain", LOADER),
 ("models/loader.py", "contype=int(mjm.geom_contype[g]), conaffinity=int(mjm.geom_conaffinity[g]),",
  "contype=1, conaffinity=1,", "loader forces contype/conaffinity to 1", LOADER),
 ("models/export.py", 'friction="{_f(model.geom_friction[g])}"', 'friction="1 0.005 0.0001"', "export friction constant", LOADER),
 ("models/export.py", "            if model.jnt_limited[j]:\n", "            if False:\n", "export drops joint limits", LOADER),
 ("tasks/manta_swim.py", "forward = (com[:, 1] - before[:, 1]) / dt", "forward = (com[:, 1] - before[:, 1])", "manta forward not per second", MANTA),
 ("tasks/manta_swim.py", "self.targets = AMPLITUDE * self.action", "self.targets = self.action", "manta amplitude dropped", MANTA),
 ("tasks/manta_swim.py", "is_success\": distance >= SUCCESS_DISTANCE", "is_success\": distance > 0.5 * SUCCESS_DISTANCE", "manta success distance halved", MANTA),
 ("tasks/manta_swim.py", "normal = np.cross(side, fwd)", "normal = np.cross(fwd, side)", "manta normal flipped", MANTA),
 ("tasks/manta_swim.py", "self.start[worlds] = self.com(batch)[worlds]", "pass", "manta start not recorded", MANTA),
 ("tasks/manta_swim.py", "phase = np.linspace(0.0, np.pi, task.ngroup)[None, :]", "phase = np.linspace(0.0, 0.0, task.ngroup)[None, :]", "manta gait without phase lag", MANTA),
 ("rods.py", "ids = (nodes[0], nodes[1], ghosts[0]) if end", "ids = (nodes[0], ghosts[0]) if end", "rod clamp lets the second node go", RODS),
 ("rods.py", "ids = (nodes[0], nodes[1], ghosts[0]) if end", "ids = (nodes[0], nodes[1]) if end", "rod clamp lets the twist go", RODS),
 ("shells.py", "return np.arctan2(np.sum(np.cross(n0, n1) * e, axis=-1), np.sum(n0 * n1, axis=-1))", "return np.arctan2(np.sum(np.cross(n1, n0) * e, axis=-1), np.sum(n0 * n1, axis=-1))", "hinge angle reader sign", RODS),
 ("scenes.py", "b.set_medium(density=1.0, drag_coefficient=10.0)", "b.set_medium(density=1.0, drag_coefficient=5.0)", "parachute drag coefficient", RODS),
 ("control.py", "return 1e-3 * np.abs(WtW).sum(axis=1).max() / n_aa", "return 1e-1 * np.abs(WtW).sum(axis=1).max() / n_aa", "inverse epsilon rule 100x", INVERSE),
 ("control.py", "new = np.clip(lam[j] - W[:, j] @ shift / norms[j], lo[j], hi[j])", "new = np.clip(lam[j] + W[:, j] @ shift / norms[j], lo[j], hi[j])", "inverse GS step sign", INVERSE),
 ("control.py", "W, Waa = R[self._coords], B.T @ R", "W, Waa = R[self._coords], R.T @ R", "inverse W_aa from R alone", INVERSE),
 ("control.py", "B = self._directions(snap[2], w.x)", "B = self._directions(snap[2], snap[2])", "inverse pressure direction at the start", INVERSE),
 ("control.py", "lo = np.maximum(self.lo - current, -self.max_change)", "lo = self.lo - current", "inverse max_change ignored downwards", INVERSE),
 ("control.py", "    d = np.asarray(anchor, float) - x\n", "    d = x - np.asarray(anchor, float)\n", "inverse cable direction", INVERSE),
 ("control.py", "return D * np.asarray(y, float), int(info[\"iterations\"])", "return np.asarray(y, float), int(info[\"iterations\"])", "inverse QP scaling not undone", INVERSE),
 ("control.py", "if np.any(np.isin(self.effectors, fixed)):", "if False:", "inverse fixed effector accepted", INVERSE),
 ("control.py", "            w.v[...] = 0.0\n", "            pass\n", "inverse quasi_static ignored", INVERSE),
 ("control.py", "W[..., j] = ((x[0] - x[1]) / (2 * a.fd_step))", "W[..., j] = ((x[1] - x[0]) / (2 * a.fd_step))", "inverse activation column sign", INVERSE),
 ("control.py", "bumped[..., j] += sign * a.fd_step", "bumped[..., j] += a.fd_step", "inverse activation one-sided bump", INVERSE),
 ("soft.py", "out.append(piece[:, [0, 2, 1]])", "out.append(piece)", "cavities keep the material's orientation", PRESSURE),
 ("soft.py", "inside = np.all(r[t] < inner * (1 + 1e-9), axis=1)", "inside = np.any(r[t] < inner * (1 + 1e-9), axis=1)", "hollow ball cuts too much", PRESSURE),
 ("soft.py", "return float(np.einsum(\"ij,ij->i\", y[:, 0], np.cross(y[:, 1], y[:, 2])).sum() / 6.0)", "return float(np.einsum(\"ij,ij->i\", y[:, 0], np.cross(y[:, 1], y[:, 2])).sum() / 3.0)", "surface volume doubled", PRESSURE),
]
args = sys.argv[1:]
only = []
while "--only" in args:  # --only NAME: the mutants whose name contains NAME
    k = args.index("--only")
    only.append(args[k + 1])
    del args[k:k + 2]
DEFAULT = args or ["test_task_definitions.py", "test_flagrun_and_wrappers.py", "test_vector_env.py", "test_yumi.py"]
for f, old, new, name, *own in M:
    if only and not any(o in name for o in only):
        continue
    tests = own[0] if own else DEFAULT
    dst = os.path.join(SCRATCH, "ncpgym")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(SRC, dst)
    os.symlink(SO, os.path.join(dst, SO.name))
    p = os.path.join(dst, f)
    s = open(p).read()
    assert s.count(old) >= 1, name
    open(p, "w").write(s.replace(old, new))
    r = subprocess.run(["nice", "-n", "10", sys.executable, RUNNER, "-q", "-x", "-p", "no:cacheprovider",
                        "-k", "not bitwise_reproducible", *tests], cwd=T, capture_output=True, text=True)
    print(("KILLED  " if r.returncode else "SURVIVED") + f"  {name}", flush=True)
shutil.rmtree(SCRATCH, ignore_errors=True)
