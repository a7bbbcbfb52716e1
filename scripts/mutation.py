"""Mutation testing of the Python layer with mutmut (issue 14): per module, how many of
mutmut's mutants the fast tests kill.

    python scripts/mutation.py                       # the modules with fast tests, ~30 min on 2 cores
    python scripts/mutation.py --modules wrappers    # one module (names as in MODULES)
    python scripts/mutation.py --report-only         # re-read the last run's results
    python scripts/mutation.py --modules train.ppo --work DIR --rerun-undecided
                                                     # after new tests: only what DIR's run left alive

Writes benchmarks/results/mutation.json: {"rows": [{"module", "mutants", "killed",
"survived", "timeout", "no_tests", "score"}], "survivors": {module: [mutant names]}}.
score = killed / (killed + survived + no_tests); a mutant no test reaches counts against
the module; survivors named in EQUIVALENT (with the reason) count as "equivalent", not
survived; timeouts are left out (undecided: a first pass at 3x the clean test time,
then a second pass at 15x for the timeouts only, `--recheck-minutes` long; a mutant that
only slows the tests, e.g. an episode that no longer terminates, times out at 3x and
survives at 15x). Not in CI (too slow): run it when a task or the env layer changes, and
kill survivors with tests or name them as equivalent (benchmarks/README.md, "mutation
testing").

Why a scratch copy: mutmut 3 names mutants by module path under the project root with
only a ``src.`` prefix stripped, and the repo keeps the package in ``python/ncpgym``; an
editable install also redirects ``import ncpgym`` to the repo through a meta-path finder
that outranks sys.path, so mutmut's mutated copy was never the one imported ("no test
covers any mutant", session 7). The scratch tree has the package at ``src/ncpgym`` (with
the compiled ``_core`` extension copied in) and a conftest that drops the editable
finder before anything imports ncpgym.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# module -> (file under python/ncpgym, the fast tests that exercise it)
MODULES = {
    # test_soft_inverse.py: SoftTaskSpaceObservation against finite differences of the step
    # test_video_wrapper.py: RecordVectorVideo at a small picture size
    "wrappers": ("wrappers.py", ["test_flagrun_and_wrappers.py", "test_task_definitions.py", "test_soft_inverse.py",
                                 "test_video_wrapper.py"]),
    "tasks.flagrun": ("tasks/flagrun.py", ["test_task_definitions.py", "test_flagrun_and_wrappers.py",
                                           "test_render_hooks.py"]),
    # test_batch_api.py: the observation (Humanoid-v5's layout) through the fused gather
    "tasks.humanoid": ("tasks/humanoid.py", ["test_task_definitions.py", "test_batch_api.py", "test_render_hooks.py"]),
    "tasks.inverted_pendulum": ("tasks/inverted_pendulum.py", ["test_task_definitions.py", "test_render_hooks.py"]),
    "models.export": ("models/export.py", ["test_loading.py", "test_public_api_behaviour.py"]),
    # render hooks: test_render_hooks.py (test_render.py is too slow here: with it most
    # mutants time out)
    "tasks.pneunet_grasp": ("tasks/pneunet_grasp.py", ["test_task_definitions.py", "test_render_hooks.py"]),
    # slow: their tests run 20+ s per mutant (hours for the thousands of mutants these
    # modules give); run them on their own, e.g. overnight
    # test_env_classes.py: the classes made at test time (the registered ones are made at
    # import, before mutmut switches a mutant on), the single env, state, pickling
    "vector": ("vector.py", ["test_vector_env.py", "test_env_classes.py", "test_task_definitions.py",
                             "test_video_wrapper.py"]),
    # the loader through the tests of what it loads (equality rows); with the decomposition,
    # cross-check and YuMi tests too, every mutant of mujoco_builder runs ~80 tests and a
    # run takes hours
    "models.loader": ("models/loader.py", ["test_loading.py", "test_equality.py"]),
    # test_ppo_math.py: the arithmetic (moments, GAE, reward scaling, one update's losses,
    # a rollout's bookkeeping, the learning rate) against hand computations
    "train.ppo": ("train/ppo.py", ["test_ppo_math.py", "test_training.py"]),
    # the training CLI (python -m ncpgym.train) and the Stable-Baselines3 adapter
    "train.cli": ("train/__main__.py", ["test_training.py"]),
    "train.sb3": ("train/sb3.py", ["test_training.py"]),
    # convex decomposition (CoACD in a child interpreter, the disk cache) and MuJoCo's hulls
    "models.decompose": ("models/decompose.py", ["test_decompose_units.py", "test_convex_decomposition.py",
                                                 "test_loading.py"]),
    "models.hull": ("models/hull.py", ["test_decompose_units.py", "test_convex_decomposition.py"]),
    # the robot and swimming tasks: their own test files and their render hooks' pinhole
    # tests (test_render_hooks.py); the first runs of manta, beam and drawer also had
    # test_render.py, whose EGL picture of every step made each mutant run seconds longer
    "tasks.manta_swim": ("tasks/manta_swim.py", ["test_manta_swim.py", "test_render_hooks.py", "test_render.py"]),
    "tasks.allegro_grasp": ("tasks/allegro_grasp.py", ["test_allegro_grasp.py", "test_render_hooks.py"]),
    "tasks.allegro_squeeze": ("tasks/allegro_squeeze.py", ["test_allegro.py", "test_render_hooks.py"]),
    "tasks.fetch_beam_insert": ("tasks/fetch_beam_insert.py", ["test_fetch_beam.py", "test_render_hooks.py", "test_render.py"]),
    "tasks.fetch_tomato": ("tasks/fetch_tomato.py", ["test_fetch_tomato.py", "test_scale.py", "test_render_hooks.py"]),
    "tasks.yumi_drawer": ("tasks/yumi_drawer.py", ["test_yumi.py", "test_render_hooks.py", "test_render.py"]),
    "tasks.shadow_hand_block": ("tasks/shadow_hand_block.py", ["test_shadow_hand.py", "test_render_hooks.py"]),
    # the start draw on its own, and through HumanoidFlagrunHarder's episodes
    "tasks.curriculum": ("tasks/curriculum.py", ["test_curriculum.py", "test_task_definitions.py"]),
    # the training aids' share check (the tasks' refusal tests only repeat what this one asserts)
    "tasks.options": ("tasks/options.py", ["test_task_options.py"]),
}
# tests left out of a module's runs (pytest -k): the parametrisations over every task take
# minutes per mutant; the module's score is then a lower bound
DESELECT = {# points_at_the_users_line: mutmut's trampoline frames sit between the test's line and
            # ncpgym's, so the warning is (rightly) attributed to them under mutation
            "vector": "not every_task and not same_seed_is_bitwise and not saved_state_continues"
                      " and not points_at_the_users_line",
            # the scripted pinch of five objects (100 s) and the integral controller's hold (20 s)
            "tasks.allegro_grasp": "not pinch_lifts_generated_objects",
            "tasks.allegro_squeeze": "not scripted_integral_controller",
            # 60,000 steps of learning (13 s) and a training run stopped by SIGINT in a
            # subprocess (10 s); test_ppo_math.py checks the arithmetic they rest on
            "train.ppo": "not learns_the_inverted_pendulum and not survives_ctrl_c",
            "train.cli": "not learns_the_inverted_pendulum",
            "train.sb3": "not learns_the_inverted_pendulum and not survives_ctrl_c"}
FAST = ["wrappers", "tasks.flagrun", "tasks.humanoid", "tasks.inverted_pendulum", "models.export",
        "tasks.pneunet_grasp"]
# Surviving mutants judged equivalent (no behaviour a test could see), with the reason; they
# are reported as "equivalent" and left out of the score. Names as mutmut gives them.
_PG = "ncpgym.tasks.pneunet_grasp.xǁPneuNetGraspTaskǁ"
_HT = "ncpgym.tasks.humanoid.xǁHumanoidTaskǁ"
_RT, _TS = "ncpgym.wrappers.xǁRewardTermsǁ", "ncpgym.wrappers.xǁTaskSpaceObservationǁ"
_SO = "ncpgym.wrappers.xǁSoftTaskSpaceObservationǁ"
_EX = "ncpgym.models.export.x_to_mjcf__mutmut_"
_FR = "ncpgym.tasks.flagrun."
_FB = "ncpgym.tasks.fetch_beam_insert.xǁFetchBeamInsertTaskǁ"
_MS = "ncpgym.tasks.manta_swim.xǁMantaSwimTaskǁ"
_YD = "ncpgym.tasks.yumi_drawer.xǁYuMiDrawerTaskǁ"
_FT = "ncpgym.tasks.fetch_tomato.xǁFetchTomatoTaskǁ"
_AS = "ncpgym.tasks.allegro_squeeze.xǁAllegroSqueezeTaskǁ"
_ASF = "ncpgym.tasks.allegro_squeeze.x_"
_AG = "ncpgym.tasks.allegro_grasp.xǁAllegroGraspTaskǁ"
_AGF = "ncpgym.tasks.allegro_grasp.x_"
_SO2 = "ncpgym.tasks.yumi_drawer.xǁScriptedOpenerǁ"
_DC = "ncpgym.models.decompose.x_"
_HU = "ncpgym.models.hull.x_"
_LD = "ncpgym.models.loader.x_"
_PP = "ncpgym.train.ppo.xǁPPOǁ"
_VE, _NE, _CO = "ncpgym.vector.xǁNcpVectorEnvǁ", "ncpgym.vector.xǁNcpEnvǁ", "ncpgym.vector.xǁ_Coreǁ"
_CU = "ncpgym.tasks.curriculum.xǁFailureWeightedDrawǁ"
EQUIVALENT = {
    "tasks.curriculum": {
        _CU + "draw__mutmut_1": "clip(None, k - 1): searchsorted never returns a negative index",
        _CU + "record__mutmut_4": "asarray(failed) without float: the mean of a bool array is the failure share either way",
        _CU + "record__mutmut_6": "asarray(failed) without float: the mean of a bool array is the failure share either way",
    },
    "wrappers": {
        _RT + "step__mutmut_24": "asarray without float64: np.clip with the float64 bounds returns float64 either way",
        _RT + "step__mutmut_26": "asarray without float64: np.clip with the float64 bounds returns float64 either way",
        _RT + "step__mutmut_51": "getattr without a default: every ncpgym vector env has reset_step",
        _RT + "step__mutmut_54": "'or': reward[mask] = 0 with an all-False mask changes nothing",
        _RT + "step__mutmut_66": "_with_masks' n is for nested dicts; reward terms have none",
        _RT + "step__mutmut_68": "_with_masks' n is for nested dicts; reward terms have none",
        _TS + "__init____mutmut_11": "XX around the message: every word kept (the test matches its phrase)",
        _TS + "__init____mutmut_12": "lower-cased class name: the test matches the message's phrase",
        _TS + "observations__mutmut_11": "the concatenation with the float64 blocks is float64 either way",
        _TS + "observations__mutmut_13": "the concatenation with the float64 blocks is float64 either way",
        _TS + "observations__mutmut_25": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        _TS + "observations__mutmut_35": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        _SO + "__init____mutmut_15": "XX around the message: every word kept (the test matches its phrase)",
        _SO + "observations__mutmut_12": "the concatenation with the float64 W is float64 either way",
        _SO + "observations__mutmut_14": "the concatenation with the float64 W is float64 either way",
        _SO + "observations__mutmut_20": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        _SO + "observations__mutmut_27": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        "ncpgym.wrappers.xǁDomainRandomizationǁ__init____mutmut_37": "gravity as given (ints): lo + u (hi - lo) is float either way",
        "ncpgym.wrappers.xǁDomainRandomizationǁ__init____mutmut_39": "gravity as given (ints): lo + u (hi - lo) is float either way",
        "ncpgym.wrappers.xǁDomainRandomizationǁ_draw__mutmut_40": "uniform's high defaults to the same 1.0",
    },
    "tasks.pneunet_grasp": {
        _PG + "__init____mutmut_104": "initial act shape (1, 3): _ensure resizes per batch, and a 1-world batch starts at 0 either way",
        _PG + "__init____mutmut_105": "initial target None: _ensure replaces it together with act",
        _PG + "__init____mutmut_107": "initial target zeros(1): _ensure replaces it together with act",
        _PG + "__init____mutmut_54": "RewardTerm weight dropped: its default is the same 1.0",
        _PG + "__init____mutmut_64": "RewardTerm weight dropped: its default is the same 1.0",
        _PG + "evaluate__mutmut_16": "astype(None) is astype(float64)",
        _PG + "evaluate__mutmut_19": "|z - 0.2| <= 0.03 vs < 0.03: equality needs z exactly 0.17 or 0.23 in floating point, never hit",
        _PG + "observe__mutmut_40": "reshape(-2, 9): NumPy takes any negative size as 'infer'",
        _PG + "observe__mutmut_47": "reshape(-2, 9): NumPy takes any negative size as 'infer'",
        _PG + "observe__mutmut_53": "q[:, 4:9] with nq = 8 is q[:, 4:8]",
        _PG + "observe__mutmut_55": "u[:, 1:8] with nv = 7 is u[:, 1:7]",
        _PG + "reset_states__mutmut_11": "qpos0 is float already",
        _PG + "reset_states__mutmut_9": "qpos0 is float already",
        _PG + "spaces__mutmut_20": "gymnasium's Box defaults to float32",
        _PG + "__init____mutmut_26": "XX around the message: every word kept (the test matches the message's phrases)",
        _PG + "__init____mutmut_28": "XX around the message: every word kept (the test matches the message's phrases)",
        _PG + "__init____mutmut_95": "XX around the message: every word kept (the test matches the message's phrases)",
        _PG + "__init____mutmut_97": "XX around the message: every word kept (the test matches the message's phrases)",
        _PG + "reset_states__mutmut_13": "the ball's qpos0 x, y are 0: adding the offset is setting it",
        _PG + "reset_states__mutmut_14": "the ball's qpos0 x, y are 0 and the offset symmetric: subtracting draws the same distribution",
    },
    "models.decompose": {
        _DC + "is_closed__mutmut_7": "edge code a n + b with n = max + 2: still one code per directed edge",
        **dict.fromkeys([_DC + f"is_closed__mutmut_{k}" for k in (11, 23)],
                        "reshape(-2): NumPy takes any negative size as 'infer'"),
        **dict.fromkeys([_DC + f"is_closed__mutmut_{k}" for k in (19, 20)],
                        "roll by +1 (= -2 of three columns) pairs each corner with the previous one: every edge "
                        "reversed, and 'closed' is symmetric in the two directions"),
        **dict.fromkeys([_DC + f"is_closed__mutmut_{k}" for k in (30, 34)],
                        "edge codes as float64: a n + b is exact below 2^53"),
        _DC + "is_concave__mutmut_22": "limit >= 0: a hull MuJoCo builds has volume (it refuses flat meshes)",
        _DC + "is_concave__mutmut_28": "volume <= limit vs <: equality needs the ratio exactly 0.9 in floating point",
        **dict.fromkeys([_DC + f"_decompose_in_child__mutmut_{k}" for k in (1, 2, 3)],
                        "the temporary directory's name"),
        _DC + "_is_solid__mutmut_6": "compute_uv=None is falsy like False",
        **dict.fromkeys([_DC + f"mesh_arrays__mutmut_{k}" for k in (9, 11)],
                        "dtype=np.int32 dropped: mesh_face is int32 already"),
        _DC + "_tetra_volumes__mutmut_13": "einsum subscripts in capitals: the same contraction",
        _DC + "_cache_key__mutmut_11": "a constant separator instead of each array's shape still tells the "
                                       "vertex/face split apart (the test's shifted split), unless the faces hold "
                                       "the separator's bytes (a vertex index of 1.7e9)",
        **dict.fromkeys([_DC + f"_write_cache__mutmut_{k}" for k in (9, 11, 12, 13)],
                        "the temporary file's suffix: the cache is read by exact name"),
        **dict.fromkeys([_DC + f"_write_cache__mutmut_{k}" for k in (39, 41)],
                        "missing_ok: the temporary file exists when it is removed"),
        **dict.fromkeys([_DC + f"_coacd_version__mutmut_{k}" for k in (4, 5)],
                        "the constant that stands for a coacd without metadata: any string does"),
        **dict.fromkeys([_DC + f"_decompose_in_child__mutmut_{k}" for k in (29, 33)],
                        "check=None / left out: subprocess.run's default is check=False"),
        **dict.fromkeys([_DC + f"convex_parts__mutmut_{k}" for k in (24, 26, 28, 30)],
                        "dtype left to NumPy: mesh_arrays hands over float64 vertices and int32 faces already"),
    },
    "models.hull": {
        **dict.fromkeys([_HU + f"convex_hull__mutmut_{k}" for k in (3, 5)],
                        "dtype=float dropped: numeric vertices reach MuJoCo's float uservert either way"),
        _HU + "convex_hull__mutmut_30": "reshape(-2): NumPy takes any negative size as 'infer'",
        **dict.fromkeys([_HU + f"convex_hull__mutmut_{k}" for k in (41, 42, 43, 44)],
                        "guard no MuJoCo 3 input reaches: it keeps duplicated vertices (the test of "
                        "hull_triangles shows it), so the vertex count never changes"),
        **dict.fromkeys([_HU + f"convex_hull__mutmut_{k}" for k in (52, 53, 54, 55)],
                        "guard no MuJoCo 3 input reaches: a colliding mesh geom always gets its hull, points "
                        "without one are refused by the compiler first (the coplanar case is tested)"),
        **dict.fromkeys([_HU + f"hull_triangles__mutmut_{k}" for k in (24, 26)],
                        "dtype=np.int32 dropped: mesh_graph is int32 already"),
    },
    "models.loader": {
        # numbers as of the session-22 loader (after its refusals of MuJoCo 4 terms and meshdir)
        _LD + "compile_urdf__mutmut_29": "every element searched for <visual>/<collision> children, not only links: "
                                         "MuJoCo's URDF parser reads them only in links (others are Gazebo extensions)",
        _LD + "compile_urdf__mutmut_59": "a mesh without a filename resolved as 'XXXX' instead of '': no .stl/.obj/.msh "
                                         "name either way, so it is dropped with the same log line",
        **dict.fromkeys([_LD + f"compile_urdf__mutmut_{k}" for k in (112, 114)],
                        "ET.tostring's default us-ascii bytes: non-ASCII text as character references, which MuJoCo's "
                        "XML parser decodes (tried with accented link, joint and mesh path names)"),
        _LD + "_resolve_mesh__mutmut_28": "a mesh found nowhere resolved as the string 'None' instead of None: no "
                                          ".stl/.obj/.msh name, so it is dropped with the same log line",
        **dict.fromkeys([_LD + f"_contact_frictions__mutmut_{k}" for k in (3, 5)],
                        "dtype=float dropped: geom_friction is float64 and np.array copies it either way"),
        **dict.fromkeys([_LD + f"mujoco_builder__mutmut_{k}" for k in (33, 35)],
                        "dtype=float dropped: opt.gravity is float64 already"),
        _LD + "mujoco_builder__mutmut_216": "a refused ball limit's flag None instead of False: only read as a truth value",
        _LD + "mujoco_builder__mutmut_313": "the motor's type left out: add_actuator's default type is 'motor'",
    },
    "train.ppo": {
        _PP + "learn__mutmut_3": "a log line every 31 s instead of 30 (no test waits half a minute)",
        **dict.fromkeys([_PP + f"learn__mutmut_{k}" for k in (33, 34, 40, 41, 47, 48)],
                        "tqdm's redraw settings (width following the terminal, redraw interval): the bar's "
                        "content is the same"),
        _PP + "learn__mutmut_82": "elapsed > seconds vs >=: equality needs the clock to read the budget exactly",
        _PP + "learn__mutmut_102": "_between_updates None is falsy like False",
        **dict.fromkeys([_PP + f"learn__mutmut_{k}" for k in (142, 151, 164)],
                        "the mean of no episodes is nan (with a RuntimeWarning), the value given"),
        **dict.fromkeys([_PP + f"learn__mutmut_{k}" for k in (147, 158, 171)], "float('NAN') is nan"),
        **dict.fromkeys([_PP + f"learn__mutmut_{k}" for k in (185, 188)] + [f"ncpgym.train.ppo.x__previous_rows__mutmut_{k}"
                                                                          for k in (6, 8)],
                        "newline='' vs the default: no line-ending translation on POSIX"),
        "ncpgym.train.ppo.x__previous_rows__mutmut_1": "upto 0 with a file: its rows are read and none has update <= 0",
        **dict.fromkeys([f"ncpgym.train.ppo.x_evaluate__mutmut_{k}" for k in (31, 37)],
                        "a finished world's running return is never read again"),
        **dict.fromkeys([f"ncpgym.train.ppo.x_evaluate__mutmut_{k}" for k in (48, 50)]
                        + [_PP + f"collect__mutmut_{k}" for k in (122, 124)],
                        "is_success as bools: stored into / averaged as floats the same"),
        **dict.fromkeys([f"ncpgym.train.ppo.x_latest_checkpoint__mutmut_{k}" for k in (16, 22, 33)],
                        "-2 vs -1 for 'not resumable': both below every count, never taken"),
        "ncpgym.train.ppo.x_latest_checkpoint__mutmut_47": "< vs <=: the same-numbered checkpoint is read, and its count is not above",
        **dict.fromkeys([f"ncpgym.train.ppo.x_plot_learning_curve__mutmut_{k}" for k in (3, 4)],
                        "matplotlib's backend names are case-blind"),
        **dict.fromkeys([f"ncpgym.train.ppo.x_plot_learning_curve__mutmut_{k}" for k in (12, 13, 14)],
                        "the figure's size in inches (the picture, not its data)"),
        **dict.fromkeys([_PP + f"__init____mutmut_{k}" for k in (14, 16)] + [_PP + "collect__mutmut_93"],
                        "float32 bounds / actions: np.clip of the float64 actions gives the same float64 values"),
        _PP + "_scale__mutmut_11": "G = gamma G - r is -G: the variance (about the prior's mean 0) is the same",
        **dict.fromkeys([_PP + f"advantages__mutmut_{k}" for k in (4, 6, 9, 11)],
                        "float64 work arrays instead of float32: the same advantages to float32 rounding"),
        **dict.fromkeys([_PP + f"update__mutmut_{k}" for k in (5, 9, 21, 31, 38, 43, 48, 182)],
                        "reshape(-2) / reshape(None): NumPy takes it as 'infer' / flattens"),
        **dict.fromkeys([_PP + f"update__mutmut_{k}" for k in (95, 135)] + [_PP + "collect__mutmut_70",
                                                                          "ncpgym.train.ppo.xǁActorCriticǁvalue__mutmut_3"],
                        "sum / squeeze over axis +1 of [N, act_dim] or [N, 1]: the last axis"),
        _PP + "update__mutmut_105": "std - 1e-8 vs + 1e-8: below float32 resolution of any spread",
        _PP + "collect__mutmut_28": "a spare last row in the value buffer: rows 0..T are written and read",
        _PP + "collect__mutmut_96": "the action's dtype: the env casts float64 actions itself",
    },
    "train.cli": {
        "ncpgym.train.__main__.xǁ_HelpFormatterǁ_get_help_string__mutmut_10":
            "the fallback for an option without help text: every option has one",
        "ncpgym.train.__main__.x__evaluate__mutmut_28":
            "the evaluation env's thread count: results are bitwise the same on any number of threads",
        **dict.fromkeys([f"ncpgym.train.__main__.x_parser__mutmut_{k}" for k in (60, 72, 145, 343)],
                        "default=None left out: argparse's default is None"),
        **dict.fromkeys([f"ncpgym.train.__main__.x_main__mutmut_{k}" for k in (96, 97)],
                        "config.json's out written from the arguments' own Path (json's default=str): the same string"),
        **dict.fromkeys([f"ncpgym.train.__main__.x__evaluate__mutmut_{k}" for k in (134, 136, 137)],
                        "summary.json's indentation: the same JSON"),
        **dict.fromkeys([f"ncpgym.train.__main__.x_main__mutmut_{k}" for k in (108, 111, 113, 251, 253, 254)],
                        "config.json's or summary.json's indentation: the same JSON"),
        **dict.fromkeys([f"ncpgym.train.__main__.x_main__mutmut_{k}" for k in (109, 112)],
                        "json's default=str: the arguments' paths (out, resume) are replaced by strings first"),
        "ncpgym.train.__main__.x_main__mutmut_120": "film's initial value: it is only called where it was defined",
        "ncpgym.train.__main__.x_main__mutmut_122": "--video-every 0 also defines the filming function, never called",
        **dict.fromkeys([f"ncpgym.train.__main__.x_main__mutmut_{k}" for k in (131, 135)],
                        "width 480 left out: the renderer's default width is 480"),
        **dict.fromkeys([f"ncpgym.train.__main__.x_main__mutmut_{k}" for k in (56, 149)],
                        "an env's thread count: trajectories are bitwise the same on any number of threads"),
    },
    "train.sb3": {
        "ncpgym.train.sb3.xǁSB3VecEnvǁ__init____mutmut_16": "the first actions' placeholder: SB3's VecEnv.step always calls step_async before step_wait",
    },
    "models.export": {
        _EX + "4": "range(nbody) for the children: body 0's parent is -1, so the world lists no extra child",
        _EX + "46": "the plane's size is only its drawing in MuJoCo (collision is infinite)",
        _EX + "47": "the plane's size is only its drawing in MuJoCo (collision is infinite)",
        _EX + "48": "the plane's size is only its drawing in MuJoCo (collision is infinite)",
    },
    "tasks.flagrun": {
        _FR + "x__rpy__mutmut_23": "clip's upper bound of sin(pitch) widened: 2 (wy - zx) <= 1 for the unit quaternion MuJoCo gives",
        _FR + "x__rpy__mutmut_34": "clip's upper bound of sin(pitch) widened: 2 (wy - zx) <= 1 for the unit quaternion MuJoCo gives",
        _FR + "x__feet_collision__mutmut_2": "an int count: the composition casts every term to float64",
        _FR + "x_default_terms__mutmut_6": "RewardTerm weight dropped: its default is the same 1.0",
        _FR + "x_default_terms__mutmut_27": "RewardTerm weight dropped: its default is the same 1.0",
        _FR + "x_default_terms__mutmut_72": "an int count: the composition casts every term to float64",
        _FR + "x_default_terms__mutmut_75": "|scaled| >= 0.99 vs > 0.99: equality needs a joint exactly at 0.99 in floating point",
        _FR + "xǁHumanoidFlagrunTaskǁbuild_model__mutmut_19": "reshape(-2, 2): NumPy takes any negative size as 'infer'",
        _FR + "xǁHumanoidFlagrunTaskǁspaces__mutmut_9": "gymnasium's Box defaults to float32",
        _FR + "xǁHumanoidFlagrunTaskǁspaces__mutmut_22": "gymnasium's Box defaults to float32",
        _FR + "xǁHumanoidFlagrunTaskǁ_ensure_state__mutmut_15": "a float timer: counts down by 1 from 150 exactly, compared with <= 0",
        _FR + "xǁHumanoidFlagrunTaskǁ_ensure_state__mutmut_17": "a float timer: counts down by 1 from 150 exactly, compared with <= 0",
        _FR + "xǁHumanoidFlagrunTaskǁ_ensure_state__mutmut_20": "z0's first value: every world's reset sets it before an observation reads it",
        _FR + "xǁHumanoidFlagrunTaskǁ_ensure_state__mutmut_23": "z0's first value: every world's reset sets it before an observation reads it",
        _FR + "xǁHumanoidFlagrunTaskǁ_new_flags__mutmut_9": "uniform's high defaults to the same 1.0",
        _FR + "xǁHumanoidFlagrunTaskǁ_new_flags__mutmut_10": "world ids as int64: the binding casts them to int32",
        _FR + "xǁHumanoidFlagrunTaskǁ_new_flags__mutmut_30": "r2 <= 0.5 vs < 0.5: equality needs a draw of exactly 0.5",
        _FR + "xǁHumanoidFlagrunTaskǁreset_states__mutmut_45": "0 / yaw is 0 unless the yaw draw is exactly 0",
        _FR + "xǁHumanoidFlagrunTaskǁreset_states__mutmut_47": "0 / yaw is 0 unless the yaw draw is exactly 0",
        _FR + "xǁHumanoidFlagrunTaskǁobserve__mutmut_19": "cos is even: cos(+yaw) = cos(-yaw)",
        _FR + "xǁHumanoidFlagrunTaskǁobserve__mutmut_69": "astype(None) is astype(float64)",
        _FR + "xǁHumanoidFlagrunTaskǁ_flag_step__mutmut_6": "distance <= 1 vs < 1: equality needs a distance of exactly 1.0",
        _FR + "xǁHumanoidFlagrunTaskǁ_flag_step__mutmut_12": "first=None is falsy like False",
        _FR + "xǁHumanoidFlagrunTaskǁ_flag_step__mutmut_30": "astype(None) is astype(float64)",
        _FR + "xǁHumanoidFlagrunTaskǁ_flag_step__mutmut_31": "distance <= 1 vs < 1: equality needs a distance of exactly 1.0",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ__init____mutmut_51": "z > 0.8 vs >= 0.8: equality needs a torso exactly at 0.8 m",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ__init____mutmut_53": "z > 0.8 vs >= 0.8: equality needs a torso exactly at 0.8 m",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_ensure_state__mutmut_12": "float counters: +-1 steps from 0 are exact, compared with integers",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_ensure_state__mutmut_14": "float counters: +-1 steps from 0 are exact, compared with integers",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_ensure_state__mutmut_17": "float counters: +-1 steps from 0 are exact, compared with integers",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_ensure_state__mutmut_19": "float counters: +-1 steps from 0 are exact, compared with integers",
        _FR + "xǁHumanoidFlagrunHarderTaskǁevaluate__mutmut_46": "z <= 0.8 vs < 0.8: equality needs a torso exactly at 0.8 m",
        _FR + "xǁHumanoidFlagrunHarderTaskǁevaluate__mutmut_65": "ended_by_fall = vs |=: a terminated world is reset before its next evaluate, which is where the flag is read",
        _FR + "xǁHumanoidFlagrunHarderTaskǁevaluate__mutmut_92": "astype(None) is astype(float64)",
        _FR + "xǁHumanoidFlagrunHarderTaskǁevaluate__mutmut_93": "astype(None) is astype(float64)",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_throw__mutmut_13": "uniform's high defaults to the same 1.0",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_throw__mutmut_14": "world ids as int64: the binding casts them to int32",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_throw__mutmut_20": "(2 r + 1) pi vs (2 r - 1) pi: the same bearing, 2 pi apart",
        _FR + "xǁHumanoidFlagrunTaskǁreset_states__mutmut_10": "the hinges' qpos0 are all 0: adding the offset is setting it",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_30": "uniform's high defaults to the same 1.0",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_31": "world ids as int64: the binding casts them to int32",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_40": "the clip guards rounding of the cumulative sum: searchsorted of r in [0, 1) gives 0..2",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_41": "the clip guards rounding of the cumulative sum: searchsorted of r in [0, 1) gives 0..2",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_43": "the clip guards rounding of the cumulative sum: searchsorted of r in [0, 1) gives 0..2",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_55": "the clip guards rounding of the cumulative sum: searchsorted of r in [0, 1) gives 0..2",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_49": "side left vs right: differs only for a draw exactly on a cumulative probability",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_123": "the cube's quaternion is the last 4 entries of q: a slice past the end is the same 4",
        _FR + "xǁHumanoidFlagrunHarderTaskǁreset_states__mutmut_133": "None stored in a bool array is False",
        _FR + "xǁHumanoidFlagrunHarderTaskǁ_throw__mutmut_77": "r[:, 2:6] of 5 columns is r[:, 2:5]",
        _FR + "xǁHumanoidFlagrunHarderTaskǁevaluate__mutmut_73": "frame >= 100 vs > 100: frame 100 is no multiple of 30, so no throw either way",
        _FR + "xǁHumanoidFlagrunHarderTaskǁevaluate__mutmut_74": "frame > 101 vs > 100: frames 101-119 are no multiple of 30 either",
    },
    "vector": {
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_14": "observe=None is falsy like False",
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_16": "observe=True: a second observation pass whose rows are replaced (time only)",
        "ncpgym.vector.xǁTaskǁaction_bounds__mutmut_3": "astype(None) is astype(float64)",
        "ncpgym.vector.xǁTaskǁaction_bounds__mutmut_4": "astype(None) is astype(float64)",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_3": "clip of float64 actions with float64 bounds is float64: astype(None) changes nothing",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_4": "copy=None / True / default: the clipped array is a fresh one either way",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_6": "copy=None / True / default: the clipped array is a fresh one either way",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_13": "copy=None / True / default: the clipped array is a fresh one either way",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_28": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        "ncpgym.vector.x__check_actions__mutmut_26": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        "ncpgym.vector.x__with_masks__mutmut_11": "a nested dict's mask size from its first array is n",
        "ncpgym.vector.x__with_masks__mutmut_12": "a nested dict's mask size from its first array is n",
        "ncpgym.vector.x__zero_rows__mutmut_13": "None stored in a bool array is False",
        "ncpgym.vector.xǁNcpVectorEnvǁreset__mutmut_32": "None stored in a bool array is False",
        "ncpgym.vector.xǁNcpVectorEnvǁreset__mutmut_34": "None is falsy like False",
        "ncpgym.vector.xǁNcpVectorEnvǁreset__mutmut_39": "_with_masks of an empty info is the empty dict",
        "ncpgym.vector.xǁNcpVectorEnvǁreset__mutmut_42": "the mask size from the arrays' length is num_envs",
        "ncpgym.vector.xǁNcpVectorEnvǁreset__mutmut_45": "the mask size from the arrays' length is num_envs",
        "ncpgym.vector.x_env_classes__mutmut_4": "autoreset_mode names are case-insensitive: 'NEXT_STEP' is 'next_step'",
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_17": "observe=True: a second observation pass whose rows are replaced (time only)",
        # session 22 (vector.py changed since the entries above were named; each checked with mutmut show)
        _VE + "step__mutmut_77": "the mask size of the nested reward_terms from its first array is num_envs",
        **dict.fromkeys([_VE + f"__init____mutmut_{k}" for k in (70, 72)],
                        "float episode clocks: exact counts, compared with the limit alike"),
        _VE + "__init____mutmut_20": "EnvRenderer's render_mode is checked, never read: the env's own render_mode decides",
        _NE + "__init____mutmut_15": "EnvRenderer's render_mode is checked, never read: the env's own render_mode decides",
        _NE + "__init____mutmut_16": "render_worlds None is EnvRenderer's default, world 0",
        _NE + "__init____mutmut_28": "EnvRenderer's num_worlds only bounds render_worlds, and world 0 is inside 1 or 2",
        _NE + "reset__mutmut_5": "a float mask of ones resets the same world (flatnonzero; batch.reset's uint8 cast)",
        _NE + "reset__mutmut_7": "a float mask of ones resets the same world (flatnonzero; batch.reset's uint8 cast)",
        _NE + "reset__mutmut_11": "record_obs(None, obs): obs[None] is every row, and a single env has one",
        _NE + "close__mutmut_6": "gym.Env has no __del__: close() never runs on a half-made NcpEnv (a made one has _c)",
        _NE + "close__mutmut_17": "gym.Env has no __del__: close() never runs on a half-made NcpEnv (a made one has _render)",
        _CO + "seed__mutmut_7": "a fresh seed from 32 random bits instead of 64: fresh either way, never shown",
        _CO + "seed__mutmut_8": "the first of two fresh 64-bit words is as fresh as one",
        _CO + "reset_worlds__mutmut_17": "batch.reset casts a float mask of 0s and 1s to the same uint8 mask",
        # session 23 (the fused observation's record, masks cached per size; each checked with mutmut show)
        "ncpgym.vector.x__with_masks__mutmut_6": "a nested dict's mask size from its first array is n",
        "ncpgym.vector.x__with_masks__mutmut_9": "a nested dict's mask size from its first array is n",
        "ncpgym.vector.x__with_masks__mutmut_13": "a nested dict's mask size from its first array is n",
        "ncpgym.vector.x__with_masks__mutmut_17": "no cached all-True mask: a new one per key, the same masks (time only)",
        "ncpgym.vector.x__with_masks__mutmut_18": "no cached all-True mask: a new one per key, the same masks (time only)",
        "ncpgym.vector.xǁNcpEnvǁreset__mutmut_20": "None is falsy like False",
        "ncpgym.vector.xǁNcpVectorEnvǁset_state__mutmut_18": "np.array copies by default",
        "ncpgym.vector.xǁNcpVectorEnvǁset_state__mutmut_26": "np.array copies by default",
        "ncpgym.vector.xǁNcpVectorEnvǁset_state__mutmut_34": "np.array copies by default",
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_59": "the mask size from the arrays' length is num_envs",
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_61": "the mask size from the arrays' length is num_envs",
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_80": "the mask size from the arrays' length is num_envs",
        "ncpgym.vector.xǁNcpVectorEnvǁstep__mutmut_87": "astype(None) is astype(float64)",
        "ncpgym.vector.xǁ_Coreǁ__init____mutmut_59": "stepped_obs is set by every step before observe() reads it",
        "ncpgym.vector.xǁ_Coreǁ__init____mutmut_61": "a fused env never reads self.obs: a zero record unused",
        "ncpgym.vector.xǁ_Coreǁ__init____mutmut_68": "None is falsy like False",
        "ncpgym.vector.xǁ_Coreǁ__init____mutmut_70": "None is falsy like False",
        "ncpgym.vector.xǁ_Coreǁobserve__mutmut_2": "a fused observation read whole from the batch: the same rows (the batch keeps stale and reset rows; time only)",
        "ncpgym.vector.xǁ_Coreǁobserve__mutmut_3": "unreachable: every step sets stepped_obs before its one observe()",
        "ncpgym.vector.xǁ_Coreǁrestore_obs__mutmut_3": "saved observations are float64 already",
        "ncpgym.vector.xǁ_Coreǁrestore_obs__mutmut_5": "saved observations are float64 already",
        "ncpgym.vector.xǁ_Coreǁrestore_obs__mutmut_10": "np.array copies by default",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_29": "no copy by the stepping threads: observe() copies the batch's rows, the same values (time only)",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_30": "no copy by the stepping threads: observe() copies the batch's rows, the same values (time only)",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_44": "the controls are float64 already",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_46": "the controls are float64 already",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_48": "reshape(n, -2): NumPy takes any negative size as 'infer'",
        "ncpgym.vector.xǁ_Coreǁstep__mutmut_76": "an extra observation pass whose result the vector env replaces (time only)",
    },
    "tasks.manta_swim": {
        "ncpgym.tasks.manta_swim.x_default_terms__mutmut_6": "RewardTerm weight dropped: its default is the same 1.0",
        _MS + "evaluate__mutmut_12": "the start's com y is 0 (the body starts centred on the origin, velocity-only reset noise): com - start = com + start",
        _MS + "evaluate__mutmut_33": "distance >= 1 vs > 1: equality needs a displacement of exactly 1.0 m",
        _MS + "__init____mutmut_21": "ngroup before build_model: build_model sets it from the model's groups before any use",
        **dict.fromkeys([_MS + f"__init____mutmut_{k}" for k in (25, 27, 28, 30, 32, 33, 34, 36, 37)],
                        "the per-world arrays before the first _ensure: targets (0, n) never matches a batch, so _ensure rebuilds them all"),
        _MS + "build_model__mutmut_15": "argmin(None) is 0, and diamond_mesh lists the back tip (least y) first for every mesh",
        _MS + "build_model__mutmut_16": "argmin of the equal start heights is 0, and diamond_mesh lists the back tip first for every mesh",
        _MS + "spaces__mutmut_24": "gymnasium's Box defaults to float32",
        _MS + "_ensure__mutmut_8": "float step counters: t = steps x 25 ms and the counting are exact either way",
        _MS + "_ensure__mutmut_10": "float step counters: t = steps x 25 ms and the counting are exact either way",
        _MS + "com__mutmut_9": "einsum subscripts upper-cased: the same contraction",
        _MS + "observe__mutmut_14": "einsum subscripts upper-cased: the same contraction",
        _MS + "observe__mutmut_45": "hinge_angles reads the model only when no hinges are given",
        _MS + "observe__mutmut_64": "com[:, 2:4] of a 3-column array is com[:, 2:3]",
        _MS + "reset_states__mutmut_4": "the reset's action row: apply_action replaces the whole array before anything reads it",
        _MS + "reset_states__mutmut_5": "the reset's action row: apply_action replaces the whole array before anything reads it",
        _MS + "render_scene__mutmut_7": "Camera's lookat defaults to the origin, and follow adds the centre of mass to it",
        **dict.fromkeys([_MS + f"render_scene__mutmut_{k}" for k in (21, 22, 25, 26, 30, 31)],
                        "the seabed's contact bits: it exists only in the renderer's MjModel, never stepped"),
        _MS + "render_scene__mutmut_29": "a plane's third size is MuJoCo's wireframe grid spacing, not drawn with a textured material",
        _MS + "render_scene__mutmut_39": "grid omitted: SceneSpec's default is the same 0.5 m",
        _MS + "render_scene__mutmut_45": "alpha 2 is drawn as alpha 1 (opaque either way)",
    },
    "tasks.fetch_beam_insert": {
        **dict.fromkeys([_FB + f"__init____mutmut_{k}" for k in (11, 12, 14, 15)],
                        "targets' and goal's shapes before the first _ensure: it rebuilds both for any batch"),
        _FB + "spaces__mutmut_20": "gymnasium's Box defaults to float32",
        _FB + "straight_tip__mutmut_9": "reshape(-2, 3, 3): NumPy takes any negative size as 'infer'",
        _FB + "depth__mutmut_13": "|t - c| <= 7 mm vs < 7 mm: near 0.74 m the differences step by 1.1e-16 and skip 0.007 (tried)",
        _FB + "_tip_velocity__mutmut_16": "einsum subscripts upper-cased: the same contraction",
        "ncpgym.tasks.fetch_beam_insert.x_quat_angle__mutmut_13": "clip's lower bound: the dot is an absolute value, never below 0",
        "ncpgym.tasks.fetch_beam_insert.x_default_terms__mutmut_48": "astype(None) is astype(float64)",
        "ncpgym.tasks.fetch_beam_insert.x_scripted_actions__mutmut_15": "within 3 mm: <= vs < at a distance computed from float positions, equality not reachable on purpose",
    },
    "tasks.fetch_tomato": {
        _FT + "evaluate__mutmut_13": "einsum subscripts upper-cased: the same contraction",
        **dict.fromkeys([_FT + f"evaluate__mutmut_{k}" for k in (17, 81, 113)],
                        "astype(None) is astype(float64): the same zeros and ones"),
        **dict.fromkeys([_FT + f"evaluate__mutmut_{k}" for k in (38, 47, 61, 65, 85)],
                        "<= vs < against a threshold: equality needs a distance computed from float "
                        "positions to hit the constant exactly"),
        **dict.fromkeys([_FT + f"render_scene__mutmut_{k}" for k in (20, 24, 27, 29)],
                        "tet_class of zeros is SceneSpec's default (None: every tetrahedron in class 0)"),
        _FT + "render_scene__mutmut_33": "alpha 2 renders as alpha 1 (opaque)",
        **dict.fromkeys([f"ncpgym.tasks.fetch_tomato.x_scripted_actions__mutmut_{k}" for k in (62, 63)],
                        "the last phase's end, 'never': 11**9 or 10**10 control steps are never reached either"),
    },
    "tasks.allegro_squeeze": {
        **dict.fromkeys([_AS + f"__init____mutmut_{k}" for k in (23, 24, 26, 27, 29, 31, 32)],
                        "targets', goal's and hold counts' shapes before the first _ensure: it rebuilds all "
                        "three for any batch"),
        **dict.fromkeys([_AS + f"_ensure__mutmut_{k}" for k in (17, 19)],
                        "hold counts as float64: exact integers, compared with 30 alike"),
        **dict.fromkeys([_AS + f"build_model__mutmut_{k}" for k in (9, 11)],
                        "tet_particles are int32 indices already; NumPy indexes with either"),
        _AS + "spaces__mutmut_20": "gymnasium's Box defaults to float32",
        **dict.fromkeys([_ASF + f"default_terms__mutmut_{k}" for k in (29, 71)], "astype(None) is astype(float64)"),
        **dict.fromkeys([_ASF + f"default_terms__mutmut_{k}" for k in (6, 25)],
                        "weight 1.0 left out: RewardTerm's default weight is 1.0"),
        **dict.fromkeys([_ASF + "default_terms__mutmut_31"] + [_AS + f"evaluate__mutmut_{k}" for k in (13, 26, 28)],
                        "<= vs < against a threshold: equality needs a strain or a distance computed from float "
                        "positions to hit the constant exactly"),
        **dict.fromkeys([_AS + f"render_scene__mutmut_{k}" for k in (30, 31, 32, 33)],
                        "the scene's first colours: render_frame sets every class's colour before each frame"),
        **dict.fromkeys([_AS + f"render_frame__mutmut_{k}" for k in (39, 43, 45)],
                        "the guard of vertices without volume: every particle of the ball is a tetrahedron's"),
        _ASF + "strain_colours__mutmut_33": "s >= 0 vs > 0: at s = 0 both branches give white",
    },
    "tasks.allegro_grasp": {
        **dict.fromkeys([_AG + f"__init____mutmut_{k}" for k in (16, 18, 19, 23, 25, 27, 28, 29, 31, 32, 33, 35, 36,
                                                                  37, 39, 41, 42)],
                        "per-world arrays' shapes before the first _ensure: it rebuilds them all for any batch"),
        **dict.fromkeys([_AG + f"_ensure__mutmut_{k}" for k in (21, 23)],
                        "hold counts as float64: exact integers, compared with 60 alike"),
        **dict.fromkeys([_AGF + f"default_terms__mutmut_{k}" for k in (59, 89)] + [_AG + "evaluate__mutmut_32"],
                        "astype(None) is astype(float64)"),
        **dict.fromkeys([_AGF + "default_terms__mutmut_60"] + [_AG + f"evaluate__mutmut_{k}" for k in (14, 28, 30)],
                        "<= vs < against a threshold: equality needs a height or a distance computed from float "
                        "positions to hit the constant exactly"),
        **dict.fromkeys([_AGF + f"_park__mutmut_{k}" for k in (3, 5)],
                        "another parking place 1 m up, clear of the table and of the other parked objects (the "
                        "test's conditions): where a welded object waits changes nothing"),
        _AG + "spaces__mutmut_20": "gymnasium's Box defaults to float32",
        _AGF + "scripted_actions__mutmut_14": "+ ORIGIN[:2] instead of -: the palm's origin is at x = y = 0",
        _AG + "reset_states__mutmut_17": "uniform's high left out: its default is 1.0",
        _AG + "reset_states__mutmut_22": "min(floor(u k), k + 1) instead of k - 1: u < 1, so floor(u k) <= k - 1 already",
        **dict.fromkeys([_AG + f"reset_states__mutmut_{k}" for k in (70, 71)],
                        "the clip of the open hand (closure 0): the synergy at 0 is inside every joint range"),
        _AG + "reset_states__mutmut_83": "every equality instead of the parking welds: the world has no others (neq = 8)",
    },
    "tasks.yumi_drawer": {
        _YD + "render_scene__mutmut_10": "elevation dropped: Camera's default is the same -20 degrees",
        "ncpgym.tasks.yumi_drawer.x__rotation_vector__mutmut_36": "n <= 1e-12 vs < 1e-12: a norm of exactly 1e-12",
        _SO2 + "__call____mutmut_14": "half-ranges scaled by a constant: the weights (min half / half)^2 do not change",
        _SO2 + "__call____mutmut_16": "half-ranges scaled by a constant: the weights (min half / half)^2 do not change",
        _SO2 + "__call____mutmut_36": "<= vs < on a distance from float positions: equality not reachable on purpose",
        _SO2 + "__call____mutmut_39": "<= vs < on a rotation angle from float matrices: equality not reachable on purpose",
        _SO2 + "__call____mutmut_52": "<= vs < on a distance from float positions: equality not reachable on purpose",
        _SO2 + "__call____mutmut_82": ">= vs > on a distance from float positions: equality not reachable on purpose",
    },
    "tasks.humanoid": {
        _HT + "__init____mutmut_42": "astype(None) is astype(float64)",
        _HT + "spaces__mutmut_7": "ctrlrange is float64: the float32 Box casts its bounds either way",
        _HT + "spaces__mutmut_9": "ctrlrange is float64: the float32 Box casts its bounds either way",
        _HT + "spaces__mutmut_11": "reshape(-2, 2): NumPy takes any negative size as 'infer'",
        _HT + "spaces__mutmut_19": "gymnasium's Box defaults to float32",
        _HT + "action_bounds__mutmut_7": "ctrlrange is float64 already",
        _HT + "action_bounds__mutmut_9": "ctrlrange is float64 already",
        _HT + "action_bounds__mutmut_11": "reshape(-2, 2): NumPy takes any negative size as 'infer'",
        # session 23
        _HT + "__init____mutmut_59": "einsum subscripts may be upper-case letters: 'IJ,IJ->I' is 'ij,ij->i'",
        _HT + "evaluate__mutmut_30": "einsum subscripts may be upper-case letters: 'IJ,IJ->I' is 'ij,ij->i'",
        _HT + "evaluate__mutmut_19": "reshape(n, -2): NumPy takes any negative size as 'infer'",
    },
}

CONFTEST_HEAD = '''# scripts/mutation.py: import ncpgym from this tree (src/), not through the editable
# install's redirecting finder, which outranks sys.path
import sys as _sys
_sys.meta_path[:] = [f for f in _sys.meta_path if "Redirecting" not in type(f).__name__]
'''


HELPERS = ["golden_trajectories.py", "forking.py", "pinhole.py", "rotations.py", "concave_meshes.py"]


def copy_tests(dest: Path, modules: list[str]) -> None:
    """The modules' test files and the helper modules they import, into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    for t in sorted({t for m in modules for t in MODULES[m][1]}) + HELPERS:
        if (ROOT / "tests" / "python" / t).exists():
            shutil.copy2(ROOT / "tests" / "python" / t, dest / t)


def build_tree(work: Path, modules: list[str]) -> None:
    if work.exists():
        shutil.rmtree(work)
    (work / "src").mkdir(parents=True)
    shutil.copytree(ROOT / "python" / "ncpgym", work / "src" / "ncpgym",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    import ncpgym._core as core  # the compiled extension of this checkout's build

    shutil.copy2(core.__file__, work / "src" / "ncpgym" / Path(core.__file__).name)
    copy_tests(work / "tests", modules)
    if (ROOT / "tests" / "python" / "data").exists():
        shutil.copytree(ROOT / "tests" / "python" / "data", work / "tests" / "data")
    conftest = (ROOT / "tests" / "python" / "conftest.py").read_text()
    (work / "tests" / "conftest.py").write_text(CONFTEST_HEAD + conftest)
    only = "".join(f"\n    src/ncpgym/{MODULES[m][0]}" for m in modules)
    (work / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths=\n    src/\n"
        f"only_mutate={only}\n"
        "pytest_add_cli_args_test_selection=\n    tests/\n"
        + "".join(f"    -k\n    {DESELECT[m]}\n" for m in modules if m in DESELECT)
        + "pytest_add_cli_args=\n    -p\n    no:cacheprovider\n    -x\n"
        # first pass: a mutant that makes a test loop or stall is cut off at 3x the clean run
        # (mutmut's default 15x spent most of the run waiting on those); main() rechecks
        # the timeouts at 15x
        "timeout_multiplier=3.0\n")


def report(work: Path, modules: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=work,
                         capture_output=True, text=True)
    status: dict[str, str] = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s*([\w.]+__mutmut_\d+):\s*(\w[\w ]*)", line)
        if m:
            status[m.group(1)] = m.group(2).strip()
    rows, survivors = [], {}
    for mod in modules:
        prefix = "ncpgym." + MODULES[mod][0][:-3].replace("/", ".") + "."  # train.cli is train/__main__.py
        mine = {k: v for k, v in status.items() if k.startswith(prefix)}
        count = lambda *names: sum(v in names for v in mine.values())  # noqa: E731
        killed, survived = count("killed"), count("survived")
        # undecided: timeouts, and the timeouts a cut-off recheck left "not checked" (mutmut
        # marks them so when it starts rerunning them)
        timeout, no_tests = count("timeout", "not checked"), count("no tests")
        equivalent = sum(v == "survived" and k in EQUIVALENT.get(mod, {}) for k, v in mine.items())
        survived -= equivalent
        judged = killed + survived + no_tests
        rows.append(dict(module=mod, mutants=len(mine), killed=killed, survived=survived, equivalent=equivalent,
                         timeout=timeout, no_tests=no_tests, score=round(killed / judged, 3) if judged else None))
        survivors[mod] = sorted(k for k, v in mine.items()
                                if v in ("survived", "no tests") and k not in EQUIVALENT.get(mod, {}))
    return {"rows": rows, "survivors": survivors, "status": status,
            "command": "python scripts/mutation.py --modules " + " ".join(modules)}


def rerun_undecided(work: Path, modules: list[str], env: dict, max_children: int) -> None:
    """Run again, against this checkout's tests, the mutants of an earlier run in ``work``
    that no test killed (survivors, timeouts, no tests): after tests were written for
    them, in minutes instead of a whole run. The module's source must be unchanged since
    (mutants are numbered per function)."""
    for m in modules:
        if (work / "src" / "ncpgym" / MODULES[m][0]).read_bytes() != (ROOT / "python" / "ncpgym" / MODULES[m][0]).read_bytes():
            sys.exit(f"{MODULES[m][0]} changed since the run in {work}: run the module whole")
    for dest in (work / "tests", work / "mutants" / "tests"):
        copy_tests(dest, modules)
    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)  # which tests reach what, again
    res = report(work, modules)
    names = [k for k, v in res["status"].items() if v in ("survived", "timeout", "not checked", "no tests")
             and not any(k in EQUIVALENT.get(m, {}) for m in modules)]
    print(f"rerunning {len(names)} mutants in {work} ...", flush=True)
    if names:
        with open(work / "mutmut.log", "a") as log:
            subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children), *names],
                           cwd=work, env=env, check=False, stdout=log, stderr=subprocess.STDOUT)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", nargs="+", default=FAST, choices=list(MODULES),
                    help="default: the modules with fast tests (%(default)s)")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("NCPGYM_MUTATION_DIR", "/tmp/ncpgym-mutation")))
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "mutation.json")
    ap.add_argument("--max-children", type=int, default=2)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--recheck-minutes", type=float, default=20.0, help="time for the second pass over timeouts")
    ap.add_argument("--rerun-undecided", action="store_true",
                    help="rerun only the mutants the last run in --work did not kill, with this checkout's tests")
    args = ap.parse_args()
    if not args.report_only:
        import importlib.util

        if importlib.util.find_spec("mutmut") is None:  # else every module reads "0 mutants" into the JSON
            raise SystemExit("scripts/mutation.py: mutmut is not installed (pip install mutmut)")
    # mutmut forks a child per mutant from a process that ran every test: batches there
    # run on one thread (ncpgym/batch/threads.hpp), and Mesa's llvmpipe must draw on the
    # calling thread (its drawing threads do not survive fork; render.py refuses otherwise)
    # (OMP_NUM_THREADS is left alone: tests of the default thread count need the real one)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", LP_NUM_THREADS="0")
    env.pop("OMP_NUM_THREADS", None)
    if args.rerun_undecided:
        rerun_undecided(args.work, args.modules, env, args.max_children)
    elif not args.report_only:
        build_tree(args.work, args.modules)
        with open(args.work / "mutmut.log", "w") as log:  # its spinner rewrites one line many times
            print(f"mutmut running in {args.work} (log: {args.work / 'mutmut.log'}) ...", flush=True)
            run = [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)]
            subprocess.run(run, cwd=args.work, env=env, check=False, stdout=log, stderr=subprocess.STDOUT)
            # second pass: mutmut re-runs only the timeouts when the timeout setting changes
            cfg = args.work / "setup.cfg"
            cfg.write_text(cfg.read_text().replace("timeout_multiplier=3.0", "timeout_multiplier=15.0"))
            try:
                subprocess.run(run, cwd=args.work, env=env, check=False, stdout=log, stderr=subprocess.STDOUT,
                               timeout=60 * args.recheck_minutes)
            except subprocess.TimeoutExpired:
                print("timeouts not all rechecked within --recheck-minutes; the rest stay undecided", flush=True)
    res = report(args.work, args.modules)
    for r in res["rows"]:
        print(f"{r['module']:26s} {r['mutants']:5d} mutants  killed {r['killed']:5d}  survived {r['survived']:4d}  "
              f"no tests {r['no_tests']:4d}  timeout {r['timeout']:3d}  score {r['score']}")
    old = json.loads(args.json.read_text()) if args.json.exists() else {"rows": [], "survivors": {}}
    rows = [r for r in old["rows"] if r["module"] not in args.modules] + res["rows"]
    survivors = {**{k: v for k, v in old["survivors"].items() if k not in args.modules}, **res["survivors"]}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"rows": sorted(rows, key=lambda r: r["module"]), "survivors": survivors,
                                     "command": "python scripts/mutation.py"}, indent=1))


if __name__ == "__main__":
    main()
