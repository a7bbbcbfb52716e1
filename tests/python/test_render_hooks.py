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
from pinhole import extent_errors, mocap_pixels, pinhole as _pinhole


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


def test_inverted_pendulum_camera_sees_the_cart_from_the_side_above_a_reflecting_floor():
    """render_scene: the camera looks at (0, 0, 0.2) from 3 m along +y (azimuth 90: the rail's
    +x to the image right), 12 degrees down; the cart (a yellow capsule at the cart's
    origin on z = 0) is where a pinhole camera puts it, also 0.5 m along the rail. The file
    has no floor: the scene's floor plane 0.4 m below the rail mirrors the cart, whose image
    then lies at z = -0.8, and the floor's far edge (y = 4 m: a plane of half-size 4 m)
    meets the sky where the camera puts (0, 4, -0.4)."""
    w, h = 160, 120
    view = ((0.0, 0.0, 0.2), 3.0, 90.0, -12.0, w, h)
    env = gym.make("ncpgym/InvertedPendulum-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b = env.unwrapped.batch
    for x in (0.0, 0.5):
        b.q[0] = [x, 0.0]
        b.forward()
        f = env.render().astype(int)
        yellowish = (f[..., 0] + f[..., 1]) / 2 - f[..., 2]  # the cart and its dim mirror image
        rows, cols = np.nonzero(yellowish[:85] > 25)
        row, col = _pinhole((x, 0.0, 0.0), *view)
        assert abs(rows.mean() - row) < 1 and abs(cols.mean() - col) < 1, (x, rows.mean(), cols.mean(), row, col)
        c = int(round(col))
        mirror = np.nonzero(yellowish[85:, c - 10:c + 10].max(axis=1) > 2)[0] + 85
        assert mirror.size > 3 and abs(mirror.mean() - _pinhole((x, 0.0, -0.8), *view)[0]) < 3
    brightness = f[:, 60:100].mean(axis=(1, 2))  # sky above (~75), the dark floor below (~33)
    first = int(np.argmax(brightness < 55))  # the first row mostly floor
    sky, floor = brightness[first - 2], brightness[first + 3]
    # the edge to a fraction of a row: full sky rows count 1, the row it crosses its share
    edge = np.clip((brightness[:first + 3] - floor) / (sky - floor), 0.0, 1.0).sum()
    assert abs(edge - _pinhole((0.0, 4.0, -0.4), *view)[0]) < 0.6
    env.close()


def test_humanoid_camera_follows_the_torso_from_the_side():
    """render_scene: Gymnasium's humanoid.xml seen from 4 m along +y (azimuth 90), 15 degrees
    down, looking at 1 m above the torso's x, y and following it. The top of the head (the
    torso's head sphere: 0.19 m above the torso, radius 0.09) is where a pinhole camera puts
    it, and the robot stays in the middle of the picture when it walks 1 m or 3 m along x."""
    w, h = 160, 120
    env = gym.make("ncpgym/Humanoid-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b = env.unwrapped.batch
    torso = b.xpos[0, 1].copy()
    for dx in (0.0, 1.0, 3.0):
        b.q[0, 0] = torso[0] + dx
        b.forward()
        f = env.render().astype(int)
        robot = f[:80, :, 0] - f[:80, :, 2] > 25  # the tan body above the floor (its mirror image is below)
        rows, cols = np.nonzero(robot)
        look = (torso[0] + dx, torso[1], 1.0)
        top, col = _pinhole((torso[0] + dx, torso[1], torso[2] + 0.19 + 0.09), look, 4.0, 90.0, -15.0, w, h)
        assert abs(rows.min() - top) < 1.5 and abs(cols.mean() - col) < 3, (dx, rows.min(), top, cols.mean())
    env.close()


@pytest.mark.parametrize("env_id", ["ncpgym/HumanoidFlagrun-v0", "ncpgym/HumanoidFlagrunHarder-v0"])
def test_flagrun_camera_and_flag_drawn_where_a_pinhole_camera_puts_them(env_id):
    """render_scene: the camera follows the torso's x, y and looks at 0.9 m above it from
    4.5 m, 18 degrees down, at the azimuth of the flag's bearing from the robot plus 25
    degrees (the flag beside the robot). render_frame: a 1.6 m pole at the flag with a red
    0.6 x 0.4 m cloth hanging from its top on the +x side. The red pixels' extent is the
    projected cloth's (a pinhole camera with
    MuJoCo's 45 degree field of view), the pole's light pixels below the cloth where
    the camera puts it, at two bearings. Harder's cube is drawn red where
    it is (placed above the robot's head here)."""
    w, h = 160, 120
    env = gym.make(env_id, render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    harder = "Harder" in env_id
    b.q[0, :2] += (3.0, -2.0)  # away from the origin: the camera must follow the torso
    b.forward()
    robot = b.xpos[0, task._robot_bodies if harder else slice(1, None), :2].mean(axis=0)
    torso = b.xpos[0, 1]
    for bearing in (30.0, -120.0):
        fx, fy = robot + 4.0 * np.array([np.cos(np.radians(bearing)), np.sin(np.radians(bearing))])
        view = ((torso[0], torso[1], 0.9), 4.5, bearing + 25.0, -18.0, w, h)
        flag = _flag_pixels(env, (fx, fy))
        task.flag[0] = (fx, fy)
        f = env.render().astype(int)
        red = flag & (f[..., 0] > 120) & (f[..., 1] < 70) & (f[..., 2] < 70)
        corners = np.array([_pinhole((fx + dx, fy, z), *view) for dx in (0.0, 0.6) for z in (1.2, 1.6)])
        rows, cols = np.nonzero(red)
        assert rows.size > 10, bearing
        assert abs(rows.min() - corners[:, 0].min()) < 2 and abs(rows.max() - corners[:, 0].max()) < 2, bearing
        assert abs(cols.min() - corners[:, 1].min()) < 2 and abs(cols.max() - corners[:, 1].max()) < 2, bearing
        for z in (0.3, 0.8):  # the pole below the cloth, where the camera puts it
            row, col = _pinhole((fx, fy, z), *view)
            r = int(round(row))
            across = np.nonzero(flag[r] & (f[r].min(axis=1) > 90))[0]  # light grey (not its shadow)
            assert across.size and abs(across.mean() - col) < 1.5, (bearing, z, across, col)
    if harder:  # the cube (0.1 m) in front of the robot, 1 m up
        task.flag[0] = (500.0, 500.0)
        cube = task._cube_q
        b.q[0, cube:cube + 3] = (torso[0], torso[1], 1.9)  # above the head
        b.forward()
        f = env.render().astype(int)
        red = (f[..., 0] > 120) & (f[..., 1] < 70) & (f[..., 2] < 70)
        row, col = _pinhole((torso[0], torso[1], 1.9), (torso[0], torso[1], 0.9), 4.5,
                            task.render_scene(b.model).camera.heading(b, 0), -18.0, w, h)
        rows, cols = np.nonzero(red)
        assert rows.size > 5 and abs(rows.mean() - row) < 2 and abs(cols.mean() - col) < 2
    env.close()


def test_manta_camera_follows_the_body_above_a_seabed_of_half_metre_squares():
    """render_scene (the MantaSwim-v0 docstring's picture): the body's pixels, found against
    the same picture with the body shrunk to a point at its centre of mass (the camera,
    which follows the centre of mass, stays put), span the pinhole projection of its nodes
    seen from 2 m at azimuth 215 degrees, 18 degrees down, looking at the centre of mass;
    also turned, tilted and carried 3.6 m away. The body is blue-grey: its lit pixels keep
    the ratios of (0.62, 0.66, 0.74). The seabed on z = 0 has squares of 0.5 m: the centres
    of the squares (0.25 + 0.5 i, 0.25 + 0.5 j) in view, some 6 m out, are light or dark with
    the parity of i + j."""
    w, h = 160, 120
    env = gym.make("ncpgym/MantaSwim-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b = env.unwrapped.batch
    m = np.asarray(b.model.particle_mass)
    x0 = b.x[0].copy()
    c0 = (m[:, None] * x0).sum(0) / m.sum()
    yaw, tilt = np.radians(40.0), np.radians(15.0)
    Rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    for R, shift in ((np.eye(3), (0.0, 0.0, 0.0)), (Rz @ Rx, (3.0, -2.0, -0.5))):
        x = (x0 - c0) @ R.T + c0 + shift
        com = (m[:, None] * x).sum(0) / m.sum()
        b.x[0] = x
        f = env.render().astype(int)
        b.x[0] = com + 1e-4 * (x - com)
        bare = env.render().astype(int)
        body = np.abs(f - bare).max(axis=2) > 30
        proj = np.array([_pinhole(p, com, 2.0, 215.0, -18.0, w, h) for p in x])
        assert body.sum() > 100 and np.abs(extent_errors(body, proj)).max() < 2, (shift, extent_errors(body, proj))
        colour = f[body].mean(axis=0)
        np.testing.assert_allclose(colour / colour[2], [0.62 / 0.74, 0.66 / 0.74, 1.0], atol=0.01)
        agree = []
        for i in range(-14, 14):
            for j in range(-14, 14):
                p = (com[0] // 0.5 * 0.5 + 0.25 + 0.5 * i, com[1] // 0.5 * 0.5 + 0.25 + 0.5 * j, 0.0)
                row, col = np.round(_pinhole(p, com, 2.0, 215.0, -18.0, w, h)).astype(int)
                if 30 < row < h - 2 and 2 < col < w - 2:  # in view, clear of the horizon's haze
                    light = bare[row, col].mean() > 35
                    agree.append(light == (round((p[0] - 0.25) / 0.5 + (p[1] - 0.25) / 0.5) % 2 == 0))
        assert len(agree) > 80 and np.mean(agree) > 0.97, (len(agree), np.mean(agree))
    env.close()


def test_fetch_beam_camera_sees_the_fixture_where_each_world_placed_it():
    """render_scene: the camera looks at (1.25, 0.75, 0.55) from 0.9 m at azimuth 35 degrees,
    15 degrees down. The fixture (a mocap body each world places at reset: 8 cm square, 4 cm
    tall, on the table top at z = 0.4) is drawn where the world put it, not where the file
    has it: its pixels, found against the picture with the fixture sunk out of sight, span
    the pinhole projection of its box, at the reset placement and 2.5 cm further along -x
    and +y."""
    w, h = 160, 120
    env = gym.make("ncpgym/FetchBeamInsert-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b = env.unwrapped.batch
    placed = b.mocap_pos[0, 0].copy()
    for shift in ((0.0, 0.0, 0.0), (-0.025, 0.025, 0.0)):
        at = placed + shift
        _, fixture = mocap_pixels(env, at)
        box = np.array([_pinhole(at + [sx * 0.04, sy * 0.04, z], (1.25, 0.75, 0.55), 0.9, 35.0, -15.0, w, h)
                        for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, 0.04)])
        assert fixture.sum() > 50 and np.abs(extent_errors(fixture, box)).max() < 2, (shift, extent_errors(fixture, box))
    env.close()


def test_fetch_tomato_camera_sees_the_red_tomato_and_the_scale_where_they_are():
    """render_scene: the camera looks at (1.22, 0.74, 0.52) from 1.05 m at azimuth 35
    degrees, 22 degrees down; the tomato is drawn red (0.85, 0.12, 0.08; lit pixels keep
    the ratios of its channels): its red pixels span the pinhole projection of its particles, also moved 10 cm up and 18 cm away. The
    scale (a mocap body each world places) is drawn where the world put it: its pixels,
    against the picture with it sunk out of sight, move by the projected shift when it is
    moved 4 cm along -x and +y."""
    w, h = 160, 120
    view = ((1.22, 0.74, 0.52), 1.05, 35.0, -22.0, w, h)
    env = gym.make("ncpgym/FetchTomato-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b = env.unwrapped.batch
    x0 = b.x[0].copy()
    for shift in ((0.0, 0.0, 0.0), (0.1, 0.15, 0.1)):
        b.x[0] = x0 + shift
        f = env.render().astype(int)
        red = (f[..., 0] > 100) & (f[..., 1] < 60) & (f[..., 2] < 60)
        proj = np.array([_pinhole(p, *view) for p in b.x[0]])
        assert red.sum() > 20 and np.abs(extent_errors(red, proj)).max() < 2, (shift, extent_errors(red, proj))
        # lit pixels keep the colour's ratios: green / red = 0.12 / 0.85, blue / red = 0.08 / 0.85
        ratios = np.median(f[red][:, 1:] / f[red][:, :1], axis=0)
        assert np.abs(ratios - np.array([0.12, 0.08]) / 0.85).max() < 0.01, ratios
    b.x[0] = x0
    placed = b.mocap_pos[0, 0].copy()
    centres = []
    for at in (placed, placed + [-0.04, 0.04, 0.0]):
        rows, cols = np.nonzero(mocap_pixels(env, at)[1])
        assert rows.size > 50
        centres.append((rows.mean(), cols.mean()))
    moved = np.subtract(centres[1], centres[0])
    want = np.subtract(_pinhole(placed + [-0.04, 0.04, 0.05], *view), _pinhole(placed + [0, 0, 0.05], *view))
    assert np.abs(moved - want).max() < 2, (moved, want)
    env.close()


def test_allegro_squeeze_ball_is_coloured_by_its_volumetric_strain_where_the_camera_puts_it():
    """render_scene / render_frame (the seed's Fig. 3): the ball's elements coloured by their
    volumetric compression c, white (0.95, 0.95, 0.9) at 0, towards red (0.85, 0.1, 0.05) at
    c = 0.2 and blue (0.15, 0.3, 0.9) at c = -0.2 (strain_colours, checked at its stops and
    halfway); the whole ball shrunk to 90 % of its volume is drawn in the halfway red, grown
    to 110 % in the halfway blue (lit pixels keep the colour's ratios), and its pixels (against
    the picture with the ball moved 5 m up) start where the camera (0.42 m from (0, 0, 0.13),
    azimuth 150, 30 degrees down) puts its particles' top and left (the fingers may hide its
    bottom and right), and lifted clear of the fingers, on all four sides. Each element is
    coloured on its own: a ball half squashed is half red, half white."""
    from ncpgym.tasks.allegro_squeeze import strain_colours

    white, red, blue = np.array([0.95, 0.95, 0.9]), np.array([0.85, 0.1, 0.05]), np.array([0.15, 0.3, 0.9])
    got = strain_colours(np.array([0.0, 0.1, 0.2, 0.5, -0.1, -0.2, -1.0]))
    np.testing.assert_allclose(got[:, :3], [white, (white + red) / 2, red, red, (white + blue) / 2, blue, blue], atol=1e-12)
    np.testing.assert_array_equal(got[:, 3], 1.0)
    np.testing.assert_allclose(strain_colours(np.array([0.05]), scale=0.1)[0, :3], (white + red) / 2, atol=1e-12)
    w, h = 160, 120
    view = ((0.0, 0.0, 0.13), 0.42, 150.0, -30.0, w, h)
    env = gym.make("ncpgym/AllegroSqueeze-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b = env.unwrapped.batch
    x0 = b.x[0].copy()
    c = x0.mean(axis=0)
    b.x[0] = x0 + [0.0, 0.0, 5.0]
    bare = env.render().astype(int)
    for volume, rgb in ((1.0, white), (0.9, (white + red) / 2), (1.1, (white + blue) / 2)):
        b.x[0] = c + (x0 - c) * volume ** (1 / 3)
        f = env.render().astype(int)
        ball = np.abs(f - bare).max(axis=2) > 30
        top, bottom, left, right = extent_errors(ball, [_pinhole(p, *view) for p in b.x[0]])
        assert abs(top) < 1.5 and abs(left) < 1.5 and bottom <= 1.5 and right <= 1.5, volume
        colour = f[ball].mean(axis=0)
        np.testing.assert_allclose(colour / colour.max(), rgb / rgb.max(), atol=0.02, err_msg=str(volume))
    # each element its own colour: the -y half squashed to 60 % along y is drawn red, the
    # other half stays white (blue / red of lit pixels spans more than 0.4 between the 10th and
    # 90th percentile; one colour for the whole ball keeps that ratio within a few hundredths)
    half = (x0[:, 1] - c[1]) < 0
    b.x[0] = x0
    b.x[0, half, 1] = c[1] + (x0[half, 1] - c[1]) * 0.6
    f = env.render().astype(float)
    lit = f[np.abs(f - bare).max(axis=2) > 30]
    blue_over_red = lit[:, 2] / lit[:, 0]
    low, high = np.percentile(blue_over_red, [10, 90])
    assert low < 0.2 and high - low > 0.4, (low, high)
    # lifted 6 cm clear of the fingers and moved 6 cm along -y, away from the point the camera
    # orbits (where azimuth and elevation barely move a picture): every side where it projects
    b.x[0] = x0 + [0.0, -0.06, 0.06]
    ball = np.abs(env.render().astype(int) - bare).max(axis=2) > 30
    assert np.abs(extent_errors(ball, [_pinhole(p, *view) for p in b.x[0]])).max() < 1.5
    env.close()


def test_allegro_grasp_camera_sees_the_worlds_object_where_it_is():
    """render_scene: the camera looks at (0.03, 0, 0.17) from 0.6 m at azimuth 105 degrees,
    10 degrees down (from the side: thumb and fingers face each other). The world's current
    object, against the picture with it lifted 5 m out of sight, is drawn around where the
    camera puts its body origin (its silhouette's centroid within 1.5 pixels), on the table
    and moved by hand to three other places clear of the hand."""
    w, h = 160, 120
    view = ((0.03, 0.0, 0.17), 0.6, 105.0, -10.0, w, h)
    env = gym.make("ncpgym/AllegroGrasp-v0", render_mode="rgb_array", width=w, height=h)
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    qa = task.object_q[task.current[0]]
    q0 = b.q[0].copy()
    for shift in ((0.0, 0.0, 0.0), (0.03, 0.05, 0.0), (-0.05, -0.04, 0.03), (0.06, -0.05, 0.0)):
        b.q[0] = q0
        b.q[0, qa:qa + 3] += shift
        b.forward()
        f = env.render().astype(int)
        b.q[0, qa + 2] += 5.0
        b.forward()
        bare = env.render().astype(int)
        rows, cols = np.nonzero(np.abs(f - bare).max(axis=2) > 30)
        assert rows.size > 100, shift
        row, col = _pinhole(q0[qa:qa + 3] + shift, *view)
        assert abs(rows.mean() - row) < 1.5 and abs(cols.mean() - col) < 1.5, (shift, rows.mean(), cols.mean(), row, col)
    env.close()
