"""RecordVectorVideo against its docstring, at a small picture size so that it runs in
seconds (and so that scripts/mutation.py can run it for wrappers.py): which steps start a
clip, how many frames a clip holds, the file names, the frame rate, the tiled picture and
the refusals. test_render.py films the tasks at full size."""

import gymnasium as gym
import numpy as np
import pytest

import ncpgym  # noqa: F401  (registers the tasks)
from ncpgym.render import tile
from ncpgym.video import read_frame_count
from ncpgym.wrappers import RecordVectorVideo

W, H = 32, 24
ENV = "ncpgym/InvertedPendulum-v0"


def _envs(**kw):
    kw.setdefault("render_mode", "rgb_array")
    return gym.make_vec(ENV, num_envs=4, render_worlds=[0, 1, 3], width=W, height=H, **kw)


def _meta(path):
    import imageio.v2 as iio

    reader = iio.get_reader(str(path))
    try:
        return reader.get_meta_data(), reader.get_data(0)
    finally:
        reader.close()


def test_clips_start_where_the_trigger_says_and_hold_video_length_frames(tmp_path):
    """step_trigger(step) = step % 4 == 0 and video_length 3 over the reset (index 0) and
    10 steps: clips at 0 (frames 0-2), 4 (4-6) and 8 (8-10), named
    <prefix>-step-<index>.mp4 in the (new) folder; recording only inside a clip; no clip
    starts while one is running (index 4 is not reached during 0-2, but a trigger that
    fires every step would not restart one)."""
    folder = tmp_path / "clips" / "a"
    envs = RecordVectorVideo(_envs(), folder, step_trigger=lambda s: s % 4 == 0, video_length=3,
                             name_prefix="pend")
    zero = np.zeros(envs.action_space.shape, np.float32)
    envs.reset(seed=0)
    recording = [envs.recording]
    for _ in range(10):
        envs.step(zero)
        recording.append(envs.recording)
    envs.close()
    # after index k: recording while the clip holds fewer than 3 frames
    assert recording == [True, True, False, False, True, True, False, False, True, True, False]
    assert envs.videos == [folder / f"pend-step-{k}.mp4" for k in (0, 4, 8)]
    assert [read_frame_count(v) for v in envs.videos] == [3, 3, 3]
    assert sorted(folder.iterdir()) == sorted(envs.videos)

    envs = RecordVectorVideo(_envs(), tmp_path / "b", step_trigger=lambda s: True, video_length=4)
    envs.reset(seed=0)
    for _ in range(5):
        envs.step(zero)
    envs.close()
    # a clip at 0 (frames 0-3), the next at 4 (frames 4, 5: cut by close)
    assert [v.name for v in envs.videos] == ["ncpgym-video-step-0.mp4", "ncpgym-video-step-4.mp4"]
    assert [read_frame_count(v) for v in envs.videos] == [4, 2]


def test_default_clip_runs_from_the_first_reset_until_close_at_the_env_rate(tmp_path):
    """Defaults: one clip from the first reset (index 0) to close() (video_length 0), at
    metadata["render_fps"] = 1 / dt frames per second; stop_recording() ends it early;
    a later reset (index still 5) starts none."""
    inner = _envs()
    fps = 1.0 / inner.unwrapped._c.dt
    envs = RecordVectorVideo(inner, tmp_path)
    zero = np.zeros(envs.action_space.shape, np.float32)
    envs.reset(seed=0)
    for _ in range(5):
        envs.step(zero)
    assert envs.recording
    envs.close()
    assert not envs.recording
    (video,) = envs.videos
    assert video == tmp_path / "ncpgym-video-step-0.mp4"
    assert read_frame_count(video) == 6  # the reset and 5 steps
    assert _meta(video)[0]["fps"] == pytest.approx(fps, rel=1e-3)

    envs = RecordVectorVideo(_envs(), tmp_path / "c", fps=7.0)
    envs.reset(seed=0)
    envs.step(zero)
    envs.stop_recording()
    envs.step(zero)
    envs.reset(seed=1)
    envs.close()
    (video,) = envs.videos
    assert read_frame_count(video) == 2 and _meta(video)[0]["fps"] == pytest.approx(7.0)


def test_frames_are_the_render_worlds_tiled_in_cols_columns(tmp_path):
    """A clip's frame is ncpgym.render.tile of env.render() (the 3 render worlds) with
    ``cols`` columns: one row of three here, (H, 3 W + 2 pads); its pixels are the tiled
    render's up to the video codec's loss (a small error against the picture's own
    contrast, i.e. the picture, not a blank or another layout)."""
    envs = RecordVectorVideo(_envs(), tmp_path, cols=3)
    envs.reset(seed=0)
    expect = tile(envs.render(), cols=3).astype(int)
    envs.close()
    assert expect.shape == (H, 3 * W + 4, 3)
    _, first = _meta(envs.videos[0])
    assert first.shape == expect.shape
    err = np.abs(first.astype(int) - expect).mean()
    assert err < 0.2 * np.abs(expect - expect.mean(axis=(0, 1))).mean()


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_refuses_envs_without_rgb_array_and_negative_lengths(tmp_path):
    """Clear refusals; a refused wrapper is collected without an error (its close() runs
    from VectorEnv.__del__ on a half-built wrapper)."""
    import gc

    with pytest.raises(ValueError, match="render_mode='rgb_array'.*render_mode=None"):
        RecordVectorVideo(gym.make_vec(ENV, num_envs=2), tmp_path)
    with pytest.raises(ValueError, match="video_length must be >= 0, got -1"):
        RecordVectorVideo(_envs(), tmp_path, video_length=-1)
    gc.collect()


def test_the_wrapper_passes_seed_options_and_steps_through_and_falls_back_to_30_fps(tmp_path):
    """Filming changes nothing the env returns: reset(seed=...) and a masked reset
    (options) give the unwrapped env's observations, step its 5-tuple. Without
    metadata["render_fps"] clips run at 30 frames per second (the docstring)."""
    plain, filmed = _envs(), RecordVectorVideo(_envs(), tmp_path)
    a = np.linspace(-1, 1, 4, dtype=np.float32)[:, None]
    for env in (plain, filmed):
        env.obs0 = env.reset(seed=11)[0]
        env.out = env.step(a)
        env.masked = env.reset(options={"reset_mask": np.array([False, True, False, False])})[0]
    np.testing.assert_array_equal(filmed.obs0, plain.obs0)
    assert len(filmed.out) == 5
    for x, y in zip(filmed.out[:4], plain.out[:4]):  # obs, reward, terminated, truncated
        np.testing.assert_array_equal(x, y)
    assert filmed.out[4].keys() == plain.out[4].keys()
    np.testing.assert_array_equal(filmed.masked, plain.masked)
    assert not np.array_equal(filmed.masked[0], filmed.obs0[0])  # world 0 kept its stepped state
    filmed.close()

    inner = _envs()
    inner.metadata = {k: v for k, v in inner.metadata.items() if k != "render_fps"}
    envs = RecordVectorVideo(inner, tmp_path / "d")
    envs.reset(seed=0)
    envs.step(a)
    envs.close()
    assert _meta(envs.videos[0])[0]["fps"] == pytest.approx(30.0)
