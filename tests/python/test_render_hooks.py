"""Tasks' render hooks (render_scene, render_frame) against what the picture must show,
kept apart from test_render.py so that mutation testing (scripts/mutation.py) can run them
per task in seconds: a decoration drawn where the task's state puts it (pinhole geometry,
background subtraction), a task's camera that keeps what matters in view."""

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import ncpgym  # noqa: F401  (registers the tasks)
from ncpgym.render import Camera


def _flag_pixels(env, xy):
    """Pixels of the flag drawn at xy: the frame against one with the flag out of sight."""
    task = env.unwrapped._c.task
    task.flag[0] = xy
    frame = env.render().astype(int)
    task.flag[0] = (500.0, 500.0)
    return np.abs(frame - env.render().astype(int)).max(axis=2) > 30


@pytest.mark.parametrize("env_id", ["ncpgym/HumanoidFlagrun-v0", "ncpgym/HumanoidFlagrunHarder-v0"])
def test_flagrun_draws_its_flag_at_the_flag_and_its_camera_keeps_the_flag_in_view(env_id):
    """The flag decoration (render_frame) stands where the task's flag is: with a fixed
    camera 8 m away along -y (azimuth 90: +x is image right), moving the flag 1 m in +x
    moves its pixels right by what a pinhole camera predicts. With the task's own camera
    (render_scene: tracking the torso, heading towards the flag) the flag is in the
    picture wherever it is around the robot."""
    h = 120
    cam = Camera(lookat=(0.0, 0.0, 1.0), distance=8.0, azimuth=90.0, elevation=0.0)
    env = gym.make(env_id, render_mode="rgb_array", width=160, height=h, camera=cam)
    env.reset(seed=0)
    cols = [np.nonzero(_flag_pixels(env, (x, 0.0)))[1].mean() for x in (1.5, 2.5)]
    env.close()
    px_per_m = (h / 2) / (8.0 * np.tan(np.radians(22.5)))
    assert cols[1] - cols[0] == pytest.approx(px_per_m, rel=0.25)
    env = gym.make(env_id, render_mode="rgb_array", width=160, height=h)
    env.reset(seed=0)
    robot = env.unwrapped.batch.xpos[0, 1, :2].copy()
    for bearing in np.radians([0.0, 90.0, 180.0, 270.0]):
        seen = _flag_pixels(env, robot + 5.0 * np.array([np.cos(bearing), np.sin(bearing)]))
        assert seen.sum() > 20, np.degrees(bearing)
    env.close()


@pytest.mark.parametrize("actuation", ["strain", "pressure"])
def test_pneunet_chambers_redden_with_their_fingers_actuation(actuation):
    """render_frame colours finger f's chambers between the task's CHAMBER and INFLATED
    colours by its actuation over the full scale (A_MAX = 0.35 of strain, P_MAX = 1 MPa of
    pressure, per the docstring), clipped to [0, 1]: half, over full and below zero for the
    three fingers. render_scene gives each finger's chambers their own colour class
    (2 + f) after the passive body (0; empty in the pressure fingers) and the stiff layer
    (1). The picture changes with it (pixels, not only the colour table)."""
    from ncpgym.tasks.pneunet_grasp import PneuNetGraspTask as T

    env = gym.make("ncpgym/PneuNetGrasp-v0", render_mode="rgb_array", width=96, height=72, actuation=actuation)
    env.reset(seed=0)
    b = env.unwrapped.batch
    full = 0.35 if actuation == "strain" else 1e6
    per_finger = b.activation.shape[1] // 3
    rest = env.render().astype(int)
    levels = (0.5 * full, 2.0 * full, -0.1 * full)
    for f, level in enumerate(levels):
        b.activation[0, per_finger * f: per_finger * (f + 1)] = level
    frame = env.render().astype(int)
    wr = env.unwrapped._render.renderer()
    drawn = {wr.scene.geoms[i].objid: np.array(wr.scene.geoms[i].rgba) for i in range(wr.scene.ngeom)
             if wr.scene.geoms[i].type == mujoco.mjtGeom.mjGEOM_FLEX}  # this frame's flex colours
    colour = [drawn.get(wr._flex[c][0]) for c in range(5)]
    lo, hi = np.array(T.CHAMBER), np.array(T.INFLATED)
    for f, a in enumerate((0.5, 1.0, 0.0)):
        np.testing.assert_allclose(colour[2 + f], lo + a * (hi - lo), atol=1e-6)
    np.testing.assert_allclose(colour[1], T.STIFF, atol=1e-6)
    # every finger has chamber particles and a stiff layer; the strain fingers a passive body
    # too (the pressure fingers are all chamber walls above their stiff layer)
    assert all(len(wr._flex[c][2]) > 0 for c in range(1, 5))
    if actuation == "strain":
        np.testing.assert_allclose(colour[0], T.PASSIVE, atol=1e-6)
    assert (np.abs(frame - rest).max(axis=2) > 30).sum() > 20
    env.close()
