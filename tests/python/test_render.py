"""Rendering (issue 15): rgb_array frames for every task, checked against what a camera
must see (pinhole geometry, background subtraction), bitwise-unchanged physics, videos
that decode to the recorded number of frames, and errors for bad input."""

import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordVideo

import ncpgym
from ncpgym import _gl
from ncpgym.render import Camera, tile
from ncpgym.video import read_frame_count
from ncpgym.wrappers import RecordVectorVideo

W, H = 96, 72


@pytest.mark.parametrize("env_id", ncpgym.TASK_IDS)
def test_every_task_renders_uint8_frames_that_follow_the_state(env_id):
    env = gym.make(env_id, render_mode="rgb_array", width=W, height=H)
    assert "rgb_array" in env.metadata["render_modes"]
    assert env.metadata["render_fps"] == pytest.approx(1.0 / env.unwrapped.dt)
    env.reset(seed=1)
    a = env.render()
    assert a.shape == (H, W, 3) and a.dtype == np.uint8
    assert a.min() != a.max()  # not a constant picture
    env.action_space.seed(0)
    for _ in range(15):
        env.step(env.action_space.sample())
    b = env.render()
    assert np.abs(a.astype(int) - b.astype(int)).max() > 40  # another state, another frame
    env.close()
    check_env(gym.make(env_id, render_mode="rgb_array", width=W, height=H).unwrapped)

    envs = gym.make_vec(
        env_id, num_envs=3, render_mode="rgb_array", render_worlds=[0, 2], width=W, height=H
    )
    assert envs.metadata["render_fps"] == pytest.approx(1.0 / envs.unwrapped.dt)
    envs.reset(seed=1)
    f = envs.render()
    assert f.shape == (2, H, W, 3) and f.dtype == np.uint8
    assert f[0].min() != f[0].max()
    envs.close()


def _pixels_of_robot(env, q):
    """Frame of state q and the mask of pixels where the robot is (background: the same
    view with the robot lifted 1 km out of sight)."""
    b = env.unwrapped.batch
    u = np.zeros((1, b.model.nv))
    b.reset(np.ones(1, np.uint8), q[None], u)
    frame = env.render().astype(int)
    away = q.copy()
    away[2] += 1000.0
    b.reset(np.ones(1, np.uint8), away[None], u)
    background = env.render().astype(int)
    return np.abs(frame - background).max(axis=2) > 30


def test_humanoid_moved_sideways_moves_its_pixels_as_a_pinhole_camera_predicts():
    # camera 5 m away at the robot's height looking along +y (azimuth 90): +x is image right
    h = 120
    cam = Camera(lookat=(0.0, 0.0, 1.0), distance=5.0, azimuth=90.0, elevation=0.0)
    env = gym.make("ncpgym/Humanoid-v0", render_mode="rgb_array", width=160, height=h, camera=cam)
    env.reset(seed=0)
    q0 = env.unwrapped.batch.q[0].copy()
    cols = []
    for dx in (-1.0, 0.0, 1.0):
        q = q0.copy()
        q[0] += dx
        mask = _pixels_of_robot(env, q)
        assert mask.sum() > 50
        cols.append(np.nonzero(mask)[1].mean())
    env.close()
    # 1 m at 5 m with MuJoCo's default 45 degree vertical field of view
    px_per_m = (h / 2) / (5.0 * np.tan(np.radians(22.5)))
    assert cols[0] < cols[1] < cols[2]
    assert cols[2] - cols[1] == pytest.approx(px_per_m, rel=0.25)
    assert cols[1] - cols[0] == pytest.approx(px_per_m, rel=0.25)


def test_inflating_pneunet_chambers_changes_the_gripper_pixels():
    env = gym.make("ncpgym/PneuNetGrasp-v0", render_mode="rgb_array", width=160, height=120)
    env.reset(seed=0)
    rest = env.render().astype(int)
    for _ in range(25):  # chambers at full pressure, mount still
        env.step(np.array([1.0, 1.0, 1.0, 0.0], np.float32))
    inflated = env.render().astype(int)
    env.close()
    changed = (np.abs(inflated - rest).max(axis=2) > 40).mean()
    assert changed > 0.02

    def red(img):  # inflated chambers are drawn red
        return ((img[..., 0] > 150) & (img[..., 1] < 90) & (img[..., 2] < 90)).sum()

    assert red(inflated) > red(rest) + 100


def _soft_ball(load_mass):
    """A soft ball (r = 5 cm) on the ground after 0.75 s, under a box of load_mass on a
    vertical slide (none when 0)."""
    from ncpgym.soft import sphere_mesh

    b = ncpgym.Builder()
    b.set_timestep(0.005)
    b.add_geom(0, "plane", size=[1, 1, 0.1])
    v, t = sphere_mesh(0.05, 4, center=(0, 0, 0.05))
    b.add_soft_body(v, t, 100.0, 3e4, 0.3, 0.001, 0.8)
    if load_mass:
        box = b.add_body(0, pos=[0, 0, 0.13], mass=load_mass, inertia=np.eye(3) * load_mass * 0.02)
        b.add_joint(box, "slide", axis=[0, 0, 1])
        b.add_geom(box, "box", size=[0.1, 0.1, 0.02])
    model = b.build()
    batch = ncpgym.Batch(model, 1)
    for _ in range(150):
        batch.step()
    assert not batch.status[0]
    return model, batch


def test_soft_ball_silhouette_flattens_when_squeezed():
    from ncpgym.render import SceneSpec, WorldRenderer

    h, dist, z = 120, 0.5, 0.05
    cam = Camera(lookat=(0.0, 0.0, z), distance=dist, azimuth=90.0, elevation=0.0)
    floor_row = h / 2 + (h / 2) / np.tan(np.radians(22.5)) * z / dist  # image row of z = 0
    aspects = []
    for mass in (0.0, 5.0):
        model, batch = _soft_ball(mass)
        spec = SceneSpec(camera=cam, class_rgba=[(0.1, 0.8, 0.1, 1.0)])
        r = WorldRenderer(model, spec, width=160, height=h)
        img = r.render(batch, 0).astype(int)
        r.close()
        green = (img[..., 1] > img[..., 0] + 50) & (img[..., 1] > img[..., 2] + 50)
        green[int(np.ceil(floor_row)) :] = False  # its mirror image in the floor
        rows, cols = np.nonzero(green)
        aspect = (rows.max() - rows.min() + 1) / (cols.max() - cols.min() + 1)
        x = batch.x[0]
        truth = np.ptp(x[:, 2]) / np.ptp(x[:, 0])  # the particles seen from the side
        assert aspect == pytest.approx(truth, rel=0.15)
        aspects.append(aspect)
    assert aspects[1] < 0.9 * aspects[0]


def test_rods_and_shells_are_drawn_where_their_particles_are():
    # a rod along x at z = 0.3 (orange capsules) and a flat shell at z = 0.1 (green flex), seen
    # from the side: the rod's pixels sit on the image row of z = 0.3, the shell's on z = 0.1
    from ncpgym import rods, shells
    from ncpgym.render import SceneSpec, WorldRenderer

    b = ncpgym.Builder()
    b.set_gravity([0, 0, 0])
    rods.add_rod(b, rods.straight([-0.2, 0, 0.3], [0.2, 0, 0.3], 8), radius=0.01, young=1e7, poisson=0.5,
                 density=1000.0)
    v, t = shells.rectangle_mesh(0.4, 0.2, 4)
    shells.add_shell(b, v + [-0.2, 0, 0.1], t, thickness=1e-3, young=1e8, poisson=0.3, density=1000.0)
    model = b.build()
    batch = ncpgym.Batch(model, 1)
    h, dist, z0 = 200, 1.0, 0.2
    cam = Camera(lookat=(0.0, 0.0, z0), distance=dist, azimuth=90.0, elevation=-10.0)
    r = WorldRenderer(model, SceneSpec(camera=cam, class_rgba=[(0.1, 0.8, 0.1, 1.0)]), width=200, height=h)
    img = r.render(batch, 0).astype(int)
    r.close()
    orange = (img[..., 0] > img[..., 2] + 60) & (img[..., 0] > 120)
    green = (img[..., 1] > img[..., 0] + 50) & (img[..., 1] > img[..., 2] + 50)
    assert orange.sum() > 50 and green.sum() > 50
    assert np.nonzero(orange)[0].mean() < np.nonzero(green)[0].mean() - 20  # the rod is above the shell


@pytest.mark.parametrize(
    "env_id, steps", [("ncpgym/Humanoid-v0", 200), ("ncpgym/PneuNetGrasp-v0", 30)]
)
def test_rendering_every_step_leaves_the_trajectory_bitwise_equal(env_id, steps):
    def run(render):
        kw = dict(render_mode="rgb_array", render_worlds=1, width=32, height=24) if render else {}
        envs = gym.make_vec(env_id, num_envs=2, **kw)
        rng = np.random.default_rng(3)
        obs, _ = envs.reset(seed=7)
        out = [obs]
        for _ in range(steps):
            obs, rew, term, trunc, _ = envs.step(rng.uniform(-1, 1, envs.action_space.shape))
            if render:
                envs.render()
            out += [obs, rew, term, trunc]
        out.append(envs.unwrapped.batch.q.copy())
        envs.close()
        return out

    for a, b in zip(run(False), run(True)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("env_id", ncpgym.TASK_IDS)
def test_gymnasium_record_video_writes_every_recorded_step(env_id, tmp_path):
    env = RecordVideo(
        gym.make(env_id, render_mode="rgb_array", width=W, height=H),
        str(tmp_path),
        episode_trigger=lambda e: e == 0,
    )
    env.reset(seed=0)
    for _ in range(5):
        env.step(np.zeros(env.action_space.shape, np.float32))
    env.close()
    (video,) = list(tmp_path.glob("*.mp4"))
    assert read_frame_count(video) == 6  # the reset and 5 steps


def test_vector_video_wrapper_tiles_the_render_worlds(tmp_path):
    envs = gym.make_vec(
        "ncpgym/InvertedPendulum-v0",
        num_envs=4,
        render_mode="rgb_array",
        render_worlds=[0, 1, 3],
        width=W,
        height=H,
    )
    envs = RecordVectorVideo(envs, tmp_path, video_length=8)
    envs.reset(seed=0)
    for _ in range(10):
        envs.step(np.zeros(envs.action_space.shape, np.float32))
    envs.close()
    assert read_frame_count(envs.videos[0]) == 8
    import imageio.v2 as iio

    frame = iio.get_reader(str(envs.videos[0])).get_data(0)
    assert frame.shape == (2 * H + 2, 2 * W + 2, 3)  # 3 worlds in a 2 x 2 grid


def test_tile_places_frames_in_a_grid():
    f = np.stack([np.full((2, 3, 3), k, np.uint8) for k in (1, 2, 3)])
    t = tile(f, cols=2, pad=1)
    assert t.shape == (5, 7, 3)
    assert (t[:2, :3] == 1).all() and (t[:2, 4:] == 2).all() and (t[3:, :3] == 3).all()
    assert (t[3:, 4:] == 0).all() and (t[2] == 0).all()


def test_train_video_and_play_write_decodable_files(tmp_path, capsys):
    pytest.importorskip("torch")
    from ncpgym.play import main as play
    from ncpgym.train.__main__ import main as train

    train(
        [
            "--env",
            "ncpgym/InvertedPendulum-v0",
            "--num-envs",
            "4",
            "--steps",
            "64",
            "--rollout-steps",
            "16",
            "--eval-episodes",
            "2",
            "--video",
            "--video-every",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path),
        ]
    )
    assert read_frame_count(tmp_path / "videos" / "final.mp4") > 1
    assert read_frame_count(tmp_path / "videos" / "update_00001.mp4") > 1
    out = tmp_path / "play.mp4"
    play(
        [
            "--env",
            "ncpgym/InvertedPendulum-v0",
            "--policy",
            str(tmp_path / "final.pt"),
            "--episodes",
            "2",
            "--video",
            str(out),
            "--width",
            "64",
            "--height",
            "48",
        ]
    )
    assert "return" in capsys.readouterr().out
    assert read_frame_count(out) > 1


def test_bad_render_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="rgb_array"):
        gym.make("ncpgym/InvertedPendulum-v0", render_mode="rgb")
    with pytest.raises(ValueError, match="rgb_array"):
        gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, render_mode="human")
    with pytest.raises(ValueError, match=r"render_worlds: \[5\] out of range \[0, 2\)"):
        gym.make_vec(
            "ncpgym/InvertedPendulum-v0", num_envs=2, render_mode="rgb_array", render_worlds=[0, 5]
        )
    with pytest.raises(ValueError, match="width"):
        gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, render_mode="rgb_array", width=0)
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="reset"):
        envs.render()
    with pytest.raises(ValueError, match="out of range"):
        envs.unwrapped.render_worlds = [-1]
    envs.close()
    env = gym.make("ncpgym/InvertedPendulum-v0", render_mode="rgb_array").unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        env.render()
    env.close()
    env = gym.make("ncpgym/InvertedPendulum-v0", render_mode="rgb_array", camera="no_such_camera")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no_such_camera"):
        env.render()
    env.close()


def test_headless_backend_choice_and_the_error_without_a_gl_context():
    assert _gl.choose_backend({"DISPLAY": ":0"}) is None
    assert _gl.choose_backend({"MUJOCO_GL": "osmesa"}) is None
    if sys.platform.startswith("linux"):
        environ = {}
        assert _gl.choose_backend(environ) in ("egl", "osmesa") and environ["MUJOCO_GL"] in (
            "egl",
            "osmesa",
        )
    # GLFW needs a display: without one, rendering fails naming MUJOCO_GL and the packages
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["MUJOCO_GL"] = "glfw"
    code = (
        "import gymnasium as gym, ncpgym\n"
        "e = gym.make('ncpgym/InvertedPendulum-v0', render_mode='rgb_array'); e.reset(seed=0)\n"
        "try:\n    e.render()\nexcept RuntimeError as x:\n    print(x)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert "MUJOCO_GL" in res.stdout and "libegl1" in res.stdout, res.stdout + res.stderr
    # mujoco imported before ncpgym (it then picked GLFW): rendering still works headless
    env.pop("MUJOCO_GL")
    env.pop("PYOPENGL_PLATFORM", None)
    code = (
        "import mujoco\nimport gymnasium as gym, ncpgym\n"
        "e = gym.make('ncpgym/InvertedPendulum-v0', render_mode='rgb_array', width=32, height=24)\n"
        "e.reset(seed=0)\nprint(e.render().shape)\ne.close()\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert "(24, 32, 3)" in res.stdout, res.stdout + res.stderr


def test_rendering_in_a_process_forked_after_llvmpipe_drew_is_refused_not_hung(tmp_path):
    """Mesa's llvmpipe draws on threads that do not survive fork(): a child forked after
    its parent rendered used to wait forever for its first frame. It gets a RuntimeError
    naming the ways out instead, and with one of them (LP_NUM_THREADS=0 before the first
    render, in a fresh interpreter) a forked child renders the parent's picture."""
    from pathlib import Path

    from forking import in_forked_child
    from OpenGL import GL

    env = gym.make("ncpgym/InvertedPendulum-v0", render_mode="rgb_array", width=W, height=H)
    env.reset(seed=0)
    env.render()
    if b"llvmpipe" not in (GL.glGetString(GL.GL_RENDERER) or b""):
        pytest.skip("the GL driver is not Mesa's llvmpipe")
    if os.environ.get("LP_NUM_THREADS") != "0":  # (scripts/mutation.py sets it: nothing to refuse then)

        def child():
            return env.render()

        err = in_forked_child(child, timeout=60)
        assert isinstance(err, RuntimeError) and "LP_NUM_THREADS=0" in str(err) and "'spawn'" in str(err)
    env.close()
    script = tmp_path / "fork_render.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import gymnasium as gym, numpy as np, ncpgym\n"
        "from forking import in_forked_child\n"
        f"env = gym.make('ncpgym/InvertedPendulum-v0', render_mode='rgb_array', width={W}, height={H})\n"
        "env.reset(seed=0)\n"
        "parent = env.render()\n"
        "out = in_forked_child(env.render, timeout=60)\n"
        "assert isinstance(out, np.ndarray), out\n"
        "np.testing.assert_array_equal(out, parent)\n"
        "print('forked child rendered the same picture')\n"
    )
    run = subprocess.run([sys.executable, str(script)], env=dict(os.environ, LP_NUM_THREADS="0"),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "same picture" in run.stdout, run.stderr[-2000:]
