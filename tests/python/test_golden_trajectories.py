"""The solver's arithmetic is pinned: each scene of golden_trajectories.py (humanoid with
random torques, heavy stack, arch, PneuNet grasp, springs as rows, particle chain, dual and
Neo-Hookean fingers) replayed from the set-up its reference stored (Model bytes, options,
initial state, every step's inputs) ends bitwise where the reference says. The references
depend on the C++ build only, not on NumPy or MuJoCo: a build without one fails, naming the
command that writes it. A restructuring that changes no physics passes; one that changes a
bit fails and names the scene and the size of the difference."""

import numpy as np
import pytest

import golden_trajectories as gt


@pytest.fixture(scope="module")
def reference():
    build = gt.build()
    path = gt.reference_path(build)
    if not path.exists():
        pytest.fail(f"no golden reference for this build ({build}): write one with `{gt.WRITE}` and commit "
                    f"{path.name} (a new compiler, C library or Eigen changes the last bits)")
    with np.load(path) as f:
        assert str(f["build"]) == build
    return gt.load(path)


@pytest.mark.parametrize("scene", list(gt.SCENES))
def test_trajectory_is_bitwise_unchanged(scene, reference):
    setup, final = reference[scene]
    out = gt.replay(setup)
    assert set(out) == set(final)
    for key, val in out.items():
        ref = final[key]
        assert val.shape == ref.shape, (scene, key)
        diff = np.max(np.abs(val - ref)) if val.size else 0.0
        assert np.array_equal(val, ref), f"{scene}/{key}: max |diff| {diff:.3e}"


def test_the_stored_set_ups_are_what_the_scenes_build_today():
    """Each scene's stored initial state and inputs equal what its set-up computes now, and
    its stored Model steps as today's does (one step) -- the references replay the scenes the
    code defines, not stale ones. Within 1e-9, not bitwise: today's set-up may differ from the
    stored one in its last bits (another NumPy, MuJoCo or BLAS), which the replays above do not
    depend on."""
    build = gt.build()
    path = gt.reference_path(build)
    if not path.exists():
        pytest.skip("no reference for this build (the test above fails)")
    ref = gt.load(path)
    for name, setup in gt.SCENES.items():
        now, (stored, _) = setup(), ref[name]
        assert now.steps == stored.steps and now.options == stored.options, name
        assert set(now.inputs) == set(stored.inputs) and set(now.state) == set(stored.state), name
        for key in now.inputs:
            np.testing.assert_allclose(now.inputs[key], stored.inputs[key], rtol=0, atol=1e-12, err_msg=name)
        for key in now.state:
            np.testing.assert_allclose(now.state[key], stored.state[key], rtol=0, atol=1e-9, err_msg=name)
        one = lambda s: gt.replay(gt.Scene(s.model, s.options, 1, s.state, {k: v[:1] for k, v in s.inputs.items()}))  # noqa: E731
        a, b = one(now), one(stored)
        for key in a:
            np.testing.assert_allclose(a[key], b[key], rtol=0, atol=1e-9, err_msg=f"{name}/{key}")
