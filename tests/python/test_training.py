"""Evidence of learning: ncpgym's PPO trains the inverted pendulum to clearly beat a random
policy within the CI budget, and Stable-Baselines3 runs on the same vector env."""

import csv
import math
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import ncpgym  # noqa: F401  (registers the tasks)

torch = pytest.importorskip("torch")

from ncpgym.train import PPO, PPOConfig, evaluate  # noqa: E402


def progress_rows(out) -> list[dict]:
    """OUT/progress.csv as written: one dict of strings per update."""
    with open(Path(out) / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


def assert_summary_times_are_the_last_rows(summary: dict, last: dict) -> None:
    """summary.json's minutes and steps/s are the last progress row's (rounded there)."""
    assert summary["minutes"] == pytest.approx(float(last["time_s"]) / 60, rel=1e-3, abs=1e-4)
    assert summary["steps_per_s"] == pytest.approx(float(last["steps_per_s"]), rel=1e-3)


def test_ppo_learns_the_inverted_pendulum(tmp_path):
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=16, num_threads=2)
    agent = PPO(envs, PPOConfig(rollout_steps=64, hidden=(64, 64), seed=0, torch_threads=1))
    rows = agent.learn(total_steps=60_000, out=tmp_path, progress=False, checkpoint_every=10)
    assert (tmp_path / "progress.csv").exists() and (tmp_path / "learning_curve.png").exists()
    assert (tmp_path / "final.pt").exists() and any(tmp_path.glob("checkpoint_*.pt"))
    assert rows[-1]["env_steps"] >= 60_000
    ev = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=8)
    trained = evaluate(ev, lambda o: agent.act(o, deterministic=True), 8)
    rng = np.random.default_rng(0)
    random = evaluate(ev, lambda o: rng.uniform(-3, 3, (8, 1)), 8)
    # random actions topple the pole in ~5 steps; the trained policy balances far longer
    assert trained.mean() > 100 and trained.mean() > 10 * random.mean(), (trained, random)
    # a checkpoint restores the same policy
    other = PPO(ev, PPOConfig(rollout_steps=64, hidden=(64, 64)))
    other.load(tmp_path / "final.pt")
    obs = np.random.default_rng(1).normal(size=(8, 4))
    np.testing.assert_allclose(other.act(obs, deterministic=True), agent.act(obs, deterministic=True))


def test_stable_baselines3_trains_on_an_ncpgym_vector_env(tmp_path, monkeypatch):
    sb3 = pytest.importorskip("stable_baselines3")
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's logger makes a folder per learn() (else in /tmp)
    from ncpgym.train.sb3 import SB3VecEnv

    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=4, autoreset_mode="same_step", max_episode_steps=20)
    venv = SB3VecEnv(envs)
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    # terminal observations are handed over the way SB3 expects, for every finished world
    seen = 0
    for _ in range(40):
        venv.step_async(np.zeros((4, 1)))
        obs, rew, done, infos = venv.step_wait()
        for i in np.flatnonzero(done):
            assert infos[i]["terminal_observation"].shape == (4,)
            assert isinstance(infos[i]["TimeLimit.truncated"], bool)
            seen += 1
        assert all("terminal_observation" not in infos[i] for i in np.flatnonzero(~done))
    assert seen >= 4  # every world finished at least once (20-step limit)
    model = sb3.PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    with pytest.raises(ValueError, match=r"^SB3VecEnv needs a vector env made with autoreset_mode='same_step'$"):
        SB3VecEnv(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2))


def test_learn_stops_on_its_time_budget_and_writes_progress_csv(tmp_path, monkeypatch):
    """learn(seconds=...) against a fake clock that each update advances by 10 s: updates
    start at 0, 10, 20 s of a 25 s budget, so exactly 3 run; the annealed learning rate is
    lr * (1 - elapsed / seconds); progress.csv holds the returned rows. On the inverted
    pendulum (reward 1 per step, 0 on the terminating one; no episode reaches the 1000-step
    truncation here) every episode's return is its length - 1."""
    import ncpgym.train.ppo as ppo_mod

    now = [1000.0]
    monkeypatch.setattr(ppo_mod.time, "perf_counter", lambda: now[0])
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=4, num_threads=1)
    agent = PPO(envs, PPOConfig(rollout_steps=16, hidden=(8,), seed=0, torch_threads=1))
    lrs = []

    def tick(row):
        lrs.append(agent.opt.param_groups[0]["lr"])
        now[0] += 10.0

    rows = agent.learn(seconds=25.0, out=tmp_path, progress=False, callback=tick)
    assert [r["update"] for r in rows] == [1, 2, 3]
    assert [r["env_steps"] for r in rows] == [64, 128, 192]
    assert [r["time_s"] for r in rows] == [0.0, 10.0, 20.0]
    np.testing.assert_allclose(lrs, [3e-4, 3e-4 * 0.6, 3e-4 * 0.2], rtol=1e-12)
    table = progress_rows(tmp_path)
    assert len(table) == 3 and set(table[0]) >= {"update", "env_steps", "time_s", "episode_return", "episode_length",
                                                 "episodes"}
    for row, line in zip(rows, table):
        for k, v in row.items():
            assert float(line[k]) == pytest.approx(v, nan_ok=True), k
    for row in rows:
        if row["episodes"]:
            assert row["episode_return"] == pytest.approx(row["episode_length"] - 1, abs=1e-9)
    assert rows[-1]["episodes"] > 4  # random actions topple the pole within ~10 steps
    assert (tmp_path / "final.pt").exists() and (tmp_path / "learning_curve.png").exists()
    with pytest.raises(ValueError, match="total_steps or seconds"):
        agent.learn()


def test_training_cli_without_ray_writes_its_outputs(tmp_path, capsys):
    """The README's main path at tiny scale: the step budget ends the run (never the wall
    clock), and config.json, progress.csv, final.pt, learning_curve.png and summary.json
    hold what was asked for."""
    import json

    from ncpgym.train.__main__ import main

    main(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "4", "--steps", "256", "--minutes", "600",
          "--threads", "1", "--rollout-steps", "32", "--hidden", "16", "--eval-episodes", "2", "--no-progress",
          "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["env"] == "ncpgym/InvertedPendulum-v0" and summary["env_steps"] == 256  # 2 updates of 4 x 32
    table = progress_rows(tmp_path)
    assert [int(r["env_steps"]) for r in table] == [128, 256]
    assert_summary_times_are_the_last_rows(summary, table[-1])
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["num_envs"] == 4 and config["ppo"]["rollout_steps"] == 32 and list(config["ppo"]["hidden"]) == [16]
    assert (tmp_path / "final.pt").exists() and (tmp_path / "learning_curve.png").exists()
    # evaluation: two episodes each, returns >= 0 (1 per upright step); random ones topple fast
    assert 0.0 <= summary["eval_return_random"] < 100.0 and summary["eval_return_trained"] >= 0.0
    assert summary["eval_return_trained_sampled"] >= 0.0  # the policy's sampled actions, also evaluated
    # the closing lines (no success rates: the pendulum defines no success)
    assert capsys.readouterr().out.endswith(
        f"256 env steps in {summary['minutes']:.1f} min ({summary['steps_per_s']} steps/s incl. learning)\n"
        f"evaluation over 2 episodes: trained {summary['eval_return_trained']:.1f} "
        f"± {summary['eval_return_trained_sem']:.1f} (mean action; sampled actions "
        f"{summary['eval_return_trained_sampled']:.1f} ± {summary['eval_return_trained_sampled_sem']:.1f}), "
        f"random {summary['eval_return_random']:.1f} (± one standard error)\n"
        f"learning curve: {tmp_path / 'learning_curve.png'}; CSV: {tmp_path / 'progress.csv'}\n")


def test_progress_reports_the_success_rate_of_tasks_that_define_it():
    """success_rate = mean info["is_success"] at the last 100 episode ends: YuMiDrawer
    episodes cut after 4 steps end with the drawer shut (0.0, or 1.0 when every world's
    drawer starts out open by 0.35 m); a task without is_success reports nan."""
    for opened, expect in ((False, 0.0), (True, 1.0)):
        envs = gym.make_vec("ncpgym/YuMiDrawer-v0", num_envs=4, max_episode_steps=4)
        if opened:  # the reset puts every drawer 0.35 m out
            task = envs.unwrapped.task
            reset = task.reset_states

            def reset_open(batch, worlds, reset=reset, task=task):
                q, u = reset(batch, worlds)
                q[:, task.slide_q] = 0.35
                return q, u

            task.reset_states = reset_open
        agent = PPO(envs, PPOConfig(rollout_steps=16, minibatches=2, hidden=(16,), seed=0, torch_threads=1))
        rows = agent.learn(total_steps=64, progress=False)
        assert rows[-1]["success_rate"] == expect and len(agent.finished_success) >= 4
        envs.close()
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=4)
    rows = PPO(envs, PPOConfig(rollout_steps=16, minibatches=2, hidden=(16,), seed=0, torch_threads=1)).learn(
        total_steps=64, progress=False)
    assert np.isnan(rows[-1]["success_rate"])


def test_training_cli_validates_its_arguments(capsys, tmp_path):
    from ncpgym.train.__main__ import main

    # each would-be run is tiny (--steps 8 in a temporary folder): a check that stopped refusing
    # fails at once instead of training for the default 10 minutes
    tiny = ["--steps", "8", "--rollout-steps", "4", "--num-envs", "2", "--threads", "1", "--eval-episodes", "1",
            "--no-progress", "--out", str(tmp_path)]
    for argv, message in (([], "error: the following arguments are required: --env (or --resume DIR)\n"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "0"],
                                                    "--num-envs: must be > 0"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--minutes", "soon"], "expected a float"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--threads", "-1"], "--threads: must be >= 0, got -1"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--ray-workers", "-1"],
                           "--ray-workers: must be >= 0, got -1"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--video-every", "x"],
                           "--video-every: expected an int, got 'x'"),
                          (["--env", "ncpgym/Nope-v0"], "error: unknown --env 'ncpgym/Nope-v0'; registered: "
                                                        "ncpgym/Humanoid-v0, ncpgym/HumanoidFlagrun-v0, "),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--gamma", "1.5"], "--gamma must be in"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--demo-bc", "-1"], "--demo-bc must be >= 0"),
                          (["--env", "ncpgym/InvertedPendulum-v0", "--demo-bc", "1", "--demo-bc-decay", "1.5"],
                           "--demo-bc-decay in (0, 1], got 1.0 and 1.5")):
        with pytest.raises(SystemExit) as e:
            main(tiny + argv if argv else argv)
        assert e.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # a task without a scripted demonstration: refused before training
        main(tiny + ["--env", "ncpgym/InvertedPendulum-v0", "--demo-bc", "0.5"])
    assert str(e.value.code) == "--demo-bc: InvertedPendulumTask has no scripted demonstration (--demo-bc needs one)"
    assert not (tmp_path / "progress.csv").exists() and not (tmp_path / "config.json").exists()
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "(default: 256)" in capsys.readouterr().out  # every option shows its default
    import re

    from ncpgym.train.__main__ import parser

    out = parser().parse_args([]).out  # no --out: runs/<start time>
    assert out.parent == Path("runs") and re.fullmatch(r"20\d{6}-\d{6}", out.name), out


def test_training_cli_help_states_what_each_option_does(capsys):
    """`--help` as a user reads it: every option has an entry that says what it sets and
    its default (PPO's where the option is a PPO setting), the task list is the registry's,
    and no entry shows a meaningless "(default: None)" or "(default: False)"."""
    import re

    import gymnasium as gym

    from ncpgym.train.__main__ import main
    from ncpgym.train.ppo import PPOConfig

    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "python -m ncpgym.train --env ncpgym/HumanoidFlagrun-v0" in " ".join(text.split())
    body = text.split("options:", 1)[1]
    entries = {m.group(1): " ".join(m.group(2).split())
               for m in re.finditer(r"^  (?:-h, )?(--[a-z-]+)(.*?)(?=^  -|\Z)", body, flags=re.MULTILINE | re.DOTALL)}
    c = PPOConfig()
    facts = {
        "--help": ["show this help"],
        "--env": ["task id", "required unless --resume"] + [k for k in gym.registry if k.startswith("ncpgym/")],
        "--env-kwargs": ["task keyword arguments", "(default: {})"],
        "--num-envs": ["worlds stepped in parallel", "(default: 256)"],
        "--minutes": ["wall-clock budget", "in minutes", "default 10", "with --resume, the run's own"],
        "--steps": ["env-step budget", "whichever comes first"],
        "--seed": ["seed of the worlds and the network", "(default: 0)"],
        "--out": ["output folder", "progress.csv", "checkpoints", "final.pt", "learning_curve.png", "summary.json",
                  "runs/YYYYmmdd-HHMMSS"],
        "--threads": ["physics threads", "0: all cores", "per worker, default 1", "(default: 0)"],
        "--ray-workers": ["shard the worlds", "Ray actors", "(ncpgym.cluster)", "(default: 0)"],
        "--ray-address": ["Ray cluster address", "start a local instance"],
        "--rollout-steps": ["env steps per world between updates", f"(default: {c.rollout_steps})"],
        "--epochs": ["passes over each rollout", f"(default: {c.epochs})"],
        "--minibatches": ["minibatches per epoch", f"(default: {c.minibatches})"],
        "--lr": ["Adam learning rate", "annealed to 5 %", f"(default: {c.lr})"],
        "--gamma": ["discount", f"(default: {c.gamma})"],
        "--hidden": ["hidden layer widths", f"(default: {list(c.hidden)})"],
        "--init-log-std": ["initial log standard deviation", "Gaussian policy", f"(default: {c.init_log_std})"],
        "--demo-bc": ["behaviour-cloning term", "scripted demonstrations", "Task.demonstrations", "DAPG-style",
                      "0: none", "(default: 0.0)"],
        "--demo-bc-decay": ["COEF * F**update", "(default: 1.0)"],
        "--demo-bc-pretrain": ["Adam steps of behaviour cloning alone", "before the first rollout", "PPO.pretrain_bc",
                               "not when resuming", "(default: 0)"],
        "--demo-episodes": ["scripted episodes recorded for --demo-bc", "successful ones are kept", "(default: 64)"],
        "--eval-episodes": ["episodes of the final evaluation", "at most --num-envs", "(default: --num-envs, at most 256"],
        "--no-progress": ["no progress bar", "every 30 s"],
        "--video": ["film the final evaluation", "DIR/videos/final.mp4"],
        "--video-every": ["also film an episode per filmed world", "every K updates", "0: never)", "(default: 0)"],
        "--video-worlds": ["worlds filmed side by side", "(default: 2)"],
        "--checkpoint-every": ["write DIR/checkpoint_NNNNN.pt every K updates", "0: only final.pt)", "(default: 25)"],
        "--resume": ["continue the run in DIR", "newest checkpoint", "config.json", "outputs go to DIR)"],
    }
    assert set(entries) == set(facts)
    assert text.startswith("usage: python -m ncpgym.train [-h] [--env ID] [--env-kwargs JSON]")
    assert "Trains PPO" not in text  # the description is the docstring's first paragraph only
    for option, metavar in (("--env", "ID"), ("--env-kwargs", "JSON"), ("--video-every", "K"),
                            ("--checkpoint-every", "K"), ("--resume", "DIR")):
        assert entries[option].startswith(metavar + " "), (option, entries[option])
    assert entries["--out"].endswith("(default runs/YYYYmmdd-HHMMSS, the start time)")
    for option, says in facts.items():
        for fact in says:  # as whole words
            assert re.search(r"(?<!\w)" + re.escape(fact) + r"(?!\w)", entries[option]), (option, fact, entries[option])
    assert "(default: None)" not in text and "(default: False)" not in text
    assert entries["--out"].count("default") == 1  # its own text states it; no second "(default: runs/...)"


def test_training_cli_films_the_evaluation_side_by_side(tmp_path, capsys):
    """--video films the final evaluation into DIR/videos/final.mp4: --video-worlds worlds
    side by side (480 x 360 each, 2 px apart), at most the --eval-episodes worlds evaluated;
    --video-every K alone films the current policy every K updates. (--gamma 1, undiscounted,
    is accepted; --out is made with its parents.)"""
    import imageio.v3 as iio

    from ncpgym.train.__main__ import main

    common = ["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "4", "--steps", "32", "--rollout-steps", "8",
              "--hidden", "8", "--threads", "1", "--eval-episodes", "2"]
    out = tmp_path / "a" / "b"  # made with its parents
    main([*common, "--no-progress", "--video", "--video-worlds", "3", "--gamma", "1", "--out", str(out)])
    assert "PPO:" not in capsys.readouterr().err  # no progress bar
    frames = iio.imread(out / "videos" / "final.mp4")
    assert frames.shape[0] > 1 and frames.shape[1:] == (360, 2 * 480 + 2, 3)
    assert not (out / "videos" / "update_00001.mp4").exists()  # no --video-every
    # --video-every 1 alone: the first update filmed (2 worlds by default), no final video;
    # without --no-progress, tqdm's bar
    main([*common, "--video-every", "1", "--out", str(tmp_path / "c")])
    assert "PPO:" in capsys.readouterr().err
    frames = iio.imread(tmp_path / "c" / "videos" / "update_00001.mp4")
    assert frames.shape[0] > 1 and frames.shape[1:] == (360, 2 * 480 + 2, 3)
    assert not (tmp_path / "c" / "videos" / "final.mp4").exists()


def test_training_cli_interrupted_in_process_marks_its_summary(tmp_path, capsys):
    """Ctrl-C (SIGINT to this process) once training has written its first progress row, with
    SIGINT ignored at the start as a shell's background job has it: the CLI takes SIGINT back,
    returns normally with an evaluated summary marked interrupted (in-process, where the
    trainer and the CLI are the code under test; the subprocess test below runs the real
    `cmd &`)."""
    import json
    import os
    import signal
    import threading
    import time

    from ncpgym.train.__main__ import main

    def interrupt():
        deadline = time.time() + 120
        while time.time() < deadline and not (tmp_path / "progress.csv").exists():
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt, daemon=True)
    t.start()
    # started as `cmd &` starts it: SIGINT ignored (main takes it back); the 30 s budget only
    # ends a run that missed the interrupt
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        main(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "2", "--minutes", "0.5", "--threads", "1",
              "--rollout-steps", "16", "--hidden", "8", "--eval-episodes", "2", "--no-progress", "--out", str(tmp_path)])
    finally:
        signal.signal(signal.SIGINT, before)
    t.join()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["eval_episodes"] == 2 and summary["env_steps"] >= 32
    out = capsys.readouterr().out
    assert f"2 worlds, budget 0.5 min, output in {tmp_path}\n" in out  # no step budget
    assert (f"interrupted after {summary['env_steps']} env steps: {tmp_path / 'final.pt'} and the curve are written; "
            "evaluating (Ctrl-C again to skip)\n") in out


def test_training_cli_ctrl_c_during_the_evaluation_skips_it(tmp_path, capsys, monkeypatch):
    """A second Ctrl-C, during the evaluation (injected: the evaluation raises
    KeyboardInterrupt as SIGINT would): the CLI prints "evaluation skipped" and writes a
    summary of the training alone, from the last progress row, marked interrupted."""
    import json

    from ncpgym.train import __main__ as cli

    def ctrl_c(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_evaluate", ctrl_c)
    cli.main(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "2", "--steps", "64", "--threads", "1",
              "--rollout-steps", "16", "--hidden", "8", "--no-progress", "--out", str(tmp_path)])
    assert capsys.readouterr().out.endswith("evaluation skipped\n")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary) == {"env", "env_steps", "minutes", "steps_per_s", "interrupted"}
    assert summary["env"] == "ncpgym/InvertedPendulum-v0" and summary["env_steps"] == 64 and summary["interrupted"]
    assert_summary_times_are_the_last_rows(summary, progress_rows(tmp_path)[-1])


def test_training_cli_survives_ctrl_c_and_reports_success(tmp_path):
    """SIGINT in the middle of training: the CLI stops, writes final.pt, the curve and a
    summary marked interrupted, evaluates and exits normally, also when it was started
    with SIGINT ignored, as `cmd &` in a script starts it. The summary of a task that
    defines success (YuMiDrawer) carries the trained and random success rates."""
    import json
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "ncpgym.train", "--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "2",
           "--minutes", "30", "--threads", "1", "--rollout-steps", "16", "--hidden", "8", "--eval-episodes", "2",
           "--no-progress", "--out", str(out)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as `cmd &`
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not (out / "progress.csv").exists():
            time.sleep(0.2)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        text, _ = p.communicate(timeout=120)
    finally:  # never outlive the test (a 30-minute run)
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, text
    assert "interrupted after" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["env_steps"] >= 32
    assert (out / "final.pt").exists() and (out / "learning_curve.png").exists()
    assert "eval_success_trained" not in summary  # the pendulum defines no success

    from ncpgym.train.__main__ import main

    main(["--env", "ncpgym/YuMiDrawer-v0", "--num-envs", "2", "--steps", "16", "--threads", "1",
          "--rollout-steps", "8", "--hidden", "8", "--eval-episodes", "2", "--no-progress", "--out", str(tmp_path / "y")])
    summary = json.loads((tmp_path / "y" / "summary.json").read_text())
    assert summary["eval_success_trained"] == 0.0 and summary["eval_success_random"] == 0.0
    assert summary["eval_success_trained_sampled"] == 0.0


def test_learning_without_a_progress_bar_prints_log_lines(capsys):
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, num_threads=1)
    agent = PPO(envs, PPOConfig(rollout_steps=8, hidden=(8,)))
    agent.learn(total_steps=32, progress=False, log_every=0.0)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("update ")]
    assert len(lines) == 2 and "env steps" in lines[-1] and "32 env steps" in lines[-1]


def _tiny_agent(seed=0):
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3, num_threads=1)
    return PPO(envs, PPOConfig(rollout_steps=16, hidden=(8,), seed=seed, torch_threads=1, epochs=2, minibatches=2))


def _rows_without_clock(out):
    return [{k: v for k, v in r.items() if k not in ("time_s", "steps_per_s")} for r in progress_rows(out)]


def test_a_resumed_run_is_bitwise_the_uninterrupted_one(tmp_path):
    """Stopped by Ctrl-C between updates 2 and 3 and resumed from final.pt, a run with a
    step budget ends with the same weights, optimiser, normalisers and progress rows as the
    run that never stopped (worlds mid-episode, torch's random stream and the learning-rate
    schedule all carry over)."""
    budget = 5 * 3 * 16
    straight = _tiny_agent()
    straight.learn(total_steps=budget, out=tmp_path / "a", progress=False, checkpoint_every=0)

    def ctrl_c(row):
        if row["update"] == 2:
            raise KeyboardInterrupt

    first = _tiny_agent()
    first.learn(total_steps=budget, out=tmp_path / "b", progress=False, checkpoint_every=0, callback=ctrl_c)
    assert first.interrupted and first.updates == 2
    second = _tiny_agent(seed=7)  # another seed: everything must come from the checkpoint
    second.resume(tmp_path / "b" / "final.pt")
    assert (second.updates, second.env_steps) == (2, 2 * 3 * 16)
    rows = second.learn(total_steps=budget, out=tmp_path / "b", progress=False, checkpoint_every=0)
    assert [r["update"] for r in rows] == [1, 2, 3, 4, 5]  # the earlier leg's rows included
    for k, v in straight.policy.state_dict().items():
        assert torch.equal(v, second.policy.state_dict()[k]), k
    np.testing.assert_array_equal(straight.obs_rms.mean, second.obs_rms.mean)
    assert straight.ret_rms.var == second.ret_rms.var
    assert straight.finished_returns == second.finished_returns
    assert _rows_without_clock(tmp_path / "a") == _rows_without_clock(tmp_path / "b")


def test_a_checkpoint_written_inside_a_rollout_is_not_resumable(tmp_path):
    """Ctrl-C inside a rollout leaves half a rollout behind: final.pt keeps the policy (for
    play) but refuses to resume, and latest_checkpoint picks the last checkpoint saved
    between updates instead."""
    from ncpgym.train import latest_checkpoint

    agent = _tiny_agent()
    step, calls = agent.envs.step, []

    def step_then_ctrl_c(a):
        calls.append(1)
        if len(calls) == 16 * 2 + 5:  # inside the third rollout
            raise KeyboardInterrupt
        return step(a)

    agent.envs.step = step_then_ctrl_c
    agent.learn(total_steps=10**6, out=tmp_path, progress=False, checkpoint_every=1)
    assert agent.interrupted and agent.updates == 2
    other = _tiny_agent()
    with pytest.raises(ValueError, match="during a rollout or an update"):
        other.resume(tmp_path / "final.pt")
    other.load(tmp_path / "final.pt")  # still a policy
    assert latest_checkpoint(tmp_path).name == "checkpoint_00002.pt"
    with pytest.raises(FileNotFoundError, match="no resumable checkpoint"):
        latest_checkpoint(tmp_path / "nowhere")


def test_training_cli_resumes_a_run_and_keeps_checkpoints_as_asked(tmp_path, capsys):
    """--checkpoint-every 1 writes a checkpoint per update; --resume DIR --steps N continues
    that run (its task, worlds and settings from DIR/config.json) to N env steps in all,
    appending to its progress.csv; --resume of a folder that holds no run is an argparse error."""
    import json
    import re

    from ncpgym.train.__main__ import main

    common = ["--threads", "1", "--eval-episodes", "2", "--no-progress"]
    main(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "2", "--steps", "64", "--rollout-steps", "16",
          "--hidden", "8", "--checkpoint-every", "1", "--out", str(tmp_path), *common])
    assert sorted(p.name for p in tmp_path.glob("checkpoint_*.pt")) == ["checkpoint_00001.pt", "checkpoint_00002.pt"]
    main(["--resume", str(tmp_path), "--steps", "128", *common])
    trained = re.search(r"resuming .*: update 2, 64 env steps, (\d+\.\d) min trained", capsys.readouterr().out)
    assert trained and float(trained.group(1)) < 1.0  # seconds of training, in minutes
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["out"] == str(tmp_path) and config["resume"] is None and config["steps"] == 128
    table = progress_rows(tmp_path)
    assert [int(r["update"]) for r in table] == [1, 2, 3, 4]
    assert [int(r["env_steps"]) for r in table] == [32, 64, 96, 128]
    assert len(list(tmp_path.glob("checkpoint_*.pt"))) == 4  # the run's own --checkpoint-every carries over
    # no budget given: the run's own (128 steps now, 10 minutes by default), already spent;
    # a budget given replaces both (the minutes then default to 10 in main)
    from ncpgym.train.__main__ import _resumed_args, parser

    ap = parser()
    args = _resumed_args(ap, ap.parse_args(["--resume", str(tmp_path)]))
    assert (args.minutes, args.steps, args.out) == (10.0, 128, tmp_path)
    args = _resumed_args(ap, ap.parse_args(["--resume", str(tmp_path), "--steps", "200"]))
    assert (args.minutes, args.steps) == (None, 200)
    main(["--resume", str(tmp_path), *common])
    assert "budget 10.0 min / 128 steps" in capsys.readouterr().out
    assert [int(r["env_steps"]) for r in progress_rows(tmp_path)] == [32, 64, 96, 128]
    for argv, message in ((["--resume", str(tmp_path / "empty")], "no config.json"),
                          (["--resume", str(tmp_path), "--env", "ncpgym/Humanoid-v0"], "that run trains"),
                          ([], "--env (or --resume DIR)")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert message in capsys.readouterr().err


def test_training_cli_trains_with_demonstrations_and_resumes_with_the_options_it_was_made_with(
        tmp_path, capsys, monkeypatch):
    """--demo-bc on a task whose Task.demonstrations is given here (the pendulum's, 5 pairs):
    the hook is asked for --demo-episodes episodes with the run's seed, threads and env
    kwargs; pretraining runs once (not on --resume); progress.csv carries bc_weight =
    COEF * F**(update - 1) and summary.json the recording's minutes. A resumed run takes the
    demonstration options from config.json, and an option its config.json predates takes
    its default (not the command line's), the CSV keeping every leg's columns."""
    import json

    from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask
    from ncpgym.train.__main__ import main
    from ncpgym.train.ppo import PPO

    asked, pretrained = [], []

    def demonstrations(cls, episodes, *, seed, num_threads, **kwargs):
        asked.append((cls.__name__, episodes, seed, num_threads, kwargs))
        return np.zeros((5, 4)), np.full((5, 1), 0.5)

    real_pretrain = PPO.pretrain_bc
    monkeypatch.setattr(InvertedPendulumTask, "demonstrations", classmethod(demonstrations), raising=False)
    monkeypatch.setattr(PPO, "pretrain_bc", lambda self, steps, **kw: pretrained.append(steps) or
                        real_pretrain(self, steps, **kw))
    common = ["--threads", "1", "--eval-episodes", "2", "--no-progress"]
    main(["--env", "ncpgym/InvertedPendulum-v0", "--env-kwargs", '{"max_episode_steps": 50}', "--num-envs", "2",
          "--steps", "64", "--rollout-steps", "16", "--hidden", "8", "--seed", "3", "--demo-bc", "0.5",
          "--demo-bc-decay", "0.8", "--demo-bc-pretrain", "7", "--demo-episodes", "4", "--out", str(tmp_path), *common])
    assert asked == [("InvertedPendulumTask", 4, 3, 1, {"max_episode_steps": 50})] and pretrained == [7]
    assert "demonstrations: 5 steps" in capsys.readouterr().out
    config = json.loads((tmp_path / "config.json").read_text())
    assert (config["demo_bc"], config["demo_bc_decay"], config["ppo"]["bc_coef"]) == (0.5, 0.8, 0.5)
    rows = progress_rows(tmp_path)
    assert [float(r["bc_weight"]) for r in rows] == pytest.approx([0.5, 0.4])
    assert all(float(r["bc_loss"]) > 0 for r in rows)
    assert json.loads((tmp_path / "summary.json").read_text())["demonstration_minutes"] >= 0
    main(["--resume", str(tmp_path), "--steps", "96", "--demo-bc", "9", *common])  # the run's 0.5 stays
    assert len(asked) == 2 and pretrained == [7]  # recorded again, not pretrained again
    assert [float(r["bc_weight"]) for r in progress_rows(tmp_path)] == pytest.approx([0.5, 0.4, 0.32])
    # a run made before --demo-bc existed: its default (0, no demonstrations), not the 9 given
    del config["demo_bc"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    main(["--resume", str(tmp_path), "--steps", "128", "--demo-bc", "9", *common])
    assert len(asked) == 2
    rows = progress_rows(tmp_path)
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4]
    assert [r["bc_weight"] for r in rows] == ["0.5", "0.4", "0.32", ""]  # the last leg has no such column
    assert json.loads((tmp_path / "config.json").read_text())["demo_bc"] == 0.0


def test_play_takes_the_task_from_the_run_and_reports_returns_and_success(tmp_path, capsys):
    """python -m ncpgym.play --policy DIR/final.pt: the task and its kwargs come from the
    run's config.json; the returns it prints and writes are the sums of rewards of a rollout
    done here with the same policy and seed; YuMiDrawer defines success (a drawer left shut
    after 4 steps: 0 of 2), the pendulum does not (no success reported)."""
    import json

    from ncpgym.play import load_policy, main as play
    from ncpgym.train.__main__ import main as train

    run = tmp_path / "y"
    train(["--env", "ncpgym/YuMiDrawer-v0", "--env-kwargs", '{"max_episode_steps": 4}', "--num-envs", "2",
           "--steps", "16", "--threads", "1", "--rollout-steps", "8", "--hidden", "8", "--eval-episodes", "2",
           "--no-progress", "--out", str(run)])
    trained = json.loads((run / "summary.json").read_text())  # the CLI's closing line names the success rates
    assert (f"random {trained['eval_return_random']:.1f} (± one standard error); success rate trained "
            f"{trained['eval_success_trained']:.2f} (sampled {trained['eval_success_trained_sampled']:.2f}), "
            f"random {trained['eval_success_random']:.2f}\n") in capsys.readouterr().out
    play(["--policy", str(run / "final.pt"), "--episodes", "2", "--seed", "5", "--json", str(tmp_path / "p.json")])
    printed = capsys.readouterr().out
    assert "ncpgym/YuMiDrawer-v0: 2 episode(s)" in printed and "success 0/2 (0 %)" in printed
    report = json.loads((tmp_path / "p.json").read_text())
    assert report["success"] == [False, False] and report["success_rate"] == 0.0
    envs = gym.make_vec("ncpgym/YuMiDrawer-v0", num_envs=2, max_episode_steps=4)
    act = load_policy(run / "final.pt", envs)
    obs, _ = envs.reset(seed=5)
    total = np.zeros(2)
    for _ in range(4):
        obs, r, term, trunc, _ = envs.step(act(obs))
        total += r
    assert trunc.all()
    np.testing.assert_array_equal(report["returns"], total)
    envs.close()

    ip = tmp_path / "ip"
    train(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "2", "--steps", "16", "--threads", "1",
           "--rollout-steps", "8", "--hidden", "8", "--eval-episodes", "2", "--no-progress", "--out", str(ip)])
    capsys.readouterr()
    play(["--policy", str(ip / "final.pt"), "--episodes", "2", "--json", str(tmp_path / "q.json")])
    assert "success" not in capsys.readouterr().out
    assert "success" not in json.loads((tmp_path / "q.json").read_text())
    (tmp_path / "lone.pt").write_bytes((ip / "final.pt").read_bytes())
    with pytest.raises(SystemExit) as e:
        play(["--policy", str(tmp_path / "lone.pt")])
    assert e.value.code == 2 and "--env is needed" in capsys.readouterr().err


def test_sb3_adapter_hands_over_what_the_env_returned():
    """SB3VecEnv against a twin env stepped alike: a seed given to seed() is used by the next
    reset only (a first reset without one is unseeded); rewards as float32; terminal
    observations are the env's final_obs and TimeLimit.truncated is set for truncated, not
    terminated, worlds (world 2 topples on the step its time runs out: terminated, so not
    truncated for SB3); the VecEnv queries answer per world (get_attr, env_is_wrapped,
    get_images) and env_method is refused."""
    pytest.importorskip("stable_baselines3")
    from ncpgym.train.sb3 import SB3VecEnv

    def make():
        return gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3, num_threads=1, autoreset_mode="same_step",
                            max_episode_steps=2)

    assert SB3VecEnv(make()).reset().shape == (3, 4)  # never seeded: reset(seed=None)
    venv, twin = SB3VecEnv(make()), make()
    assert venv.seed(5) == [5, 5, 5]
    want, _ = twin.reset(seed=5)
    np.testing.assert_array_equal(venv.reset(), want.astype(np.float32))
    assert not np.array_equal(venv.reset(), want.astype(np.float32))  # the seed is used once
    venv.seed(5)
    venv.reset()
    a = np.array([[0.0], [0.0], [3.0]])  # world 2 topples on its second step, the others are truncated
    ends, both = {}, False
    for _ in range(4):
        venv.step_async(a)
        obs, rew, done, infos = venv.step_wait()
        tobs, trew, term, trunc, tinfo = twin.step(a)
        np.testing.assert_array_equal(obs, tobs.astype(np.float32))
        assert rew.dtype == np.float32 and np.array_equal(rew, trew.astype(np.float32))
        assert np.array_equal(done, term | trunc)
        for i in np.flatnonzero(done):
            np.testing.assert_array_equal(infos[i]["terminal_observation"], tinfo["final_obs"][i].astype(np.float32))
            ends[i] = infos[i]["TimeLimit.truncated"]
            assert ends[i] == bool(trunc[i] and not term[i])
            both |= bool(term[i] and trunc[i])
    assert both
    assert ends == {0: True, 1: True, 2: False}
    assert venv.get_attr("num_envs") == [3, 3, 3] and venv.get_attr("num_envs", indices=[0, 2]) == [3, 3]
    venv.set_attr("spare", 7)
    assert venv.envs.spare == 7
    assert venv.env_is_wrapped(object) == [False] * 3 and venv.env_is_wrapped(object, indices=[1]) == [False]
    assert venv.get_images() == [None, None, None]
    with pytest.raises(NotImplementedError, match=r"^ncpgym worlds share one C\+\+ batch; call methods on SB3VecEnv.envs$"):
        venv.env_method("reset")
    venv.close()
    twin.close()


def test_training_cli_passes_every_ppo_option_and_its_summary_is_reproducible(tmp_path):
    """Every PPO option given on the command line reaches the trainer (config.json's "ppo",
    and the network's shape and exploration noise in final.pt); the evaluation runs
    min(--eval-episodes, --num-envs) episodes, and its trained and random returns are
    evaluate() by hand: final.pt's mean action, and uniform actions from a generator seeded
    with --seed, both on a fresh env at evaluate's seed, made with --env-kwargs too."""
    import json

    from ncpgym.train.__main__ import main

    main(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "3", "--steps", "96", "--threads", "1",
          "--rollout-steps", "16", "--hidden", "16", "8", "--epochs", "2", "--minibatches", "3", "--lr", "0.001",
          "--gamma", "0.95", "--init-log-std", "-1.5", "--seed", "4", "--eval-episodes", "5", "--no-progress",
          "--checkpoint-every", "0", "--env-kwargs", '{"reward_weights": {"survive": 2.0}}', "--out", str(tmp_path)])
    ppo = json.loads((tmp_path / "config.json").read_text())["ppo"]
    assert {k: ppo[k] for k in ("rollout_steps", "epochs", "minibatches", "lr", "gamma", "seed", "init_log_std")} == {
        "rollout_steps": 16, "epochs": 2, "minibatches": 3, "lr": 0.001, "gamma": 0.95, "seed": 4, "init_log_std": -1.5}
    assert list(ppo["hidden"]) == [16, 8] and not list(tmp_path.glob("checkpoint_*.pt"))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["eval_episodes"] == 3 and summary["env_steps"] == 96
    ev = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3, num_threads=1, reward_weights={"survive": 2.0})
    agent = PPO(ev, PPOConfig(hidden=(16, 8)))
    agent.load(tmp_path / "final.pt")
    assert agent.policy.actor[0].out_features == 16 and agent.policy.actor[2].out_features == 8
    trained = evaluate(ev, lambda o: agent.act(o, deterministic=True), 3)
    rng = np.random.default_rng(4)
    random = evaluate(ev, lambda o: rng.uniform(ev.action_space.low, ev.action_space.high), 3)
    assert summary["eval_return_trained"] == pytest.approx(float(np.mean(trained)), rel=1e-12)
    assert summary["eval_return_random"] == pytest.approx(float(np.mean(random)), rel=1e-12)
    # the standard error by hand: the sample standard deviation (n - 1) over sqrt(n)
    assert summary["eval_return_trained_sem"] == pytest.approx(
        math.sqrt(sum((r - np.mean(trained)) ** 2 for r in trained) / 2) / math.sqrt(3), rel=1e-9)
    ev.close()
