"""ncpgym.train.ppo's arithmetic against hand computations (issue 14): the running moments
against the pooled moments of every batch seen, GAE(lambda) against its definition as a
discounted sum of TD errors within an episode, the reward scaling against the discounted
returns written out, one update's losses and statistics against the PPO paper's formulas
evaluated in NumPy on the policy before the step, a rollout's bookkeeping against the raw
rewards the env returned, and the learning rate's linear decay."""

import math

import gymnasium as gym
import numpy as np
import pytest

import ncpgym  # noqa: F401  (registers the tasks)

torch = pytest.importorskip("torch")

from ncpgym.train.ppo import PPO, PPOConfig, RunningMeanStd, evaluate  # noqa: E402

PRIOR = 1e-4  # RunningMeanStd's starting count, at mean 0 and variance 1


def pendulum(n=3, **kw):
    return gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=n, num_threads=1, **kw)


def recorded(n):
    """A pendulum vector env whose step() also appends (action, reward, terminated,
    truncated) to the list returned with it."""
    envs, seen = pendulum(n), []
    step = envs.step

    def recording(a):
        out = step(a)
        seen.append((np.array(a, float), *(np.copy(x) for x in out[1:4])))
        return out

    envs.step = recording
    return envs, seen


def agent(n=3, **cfg):
    return PPO(pendulum(n), PPOConfig(hidden=(8,), seed=0, torch_threads=1, **cfg))


def pooled(batches, shape=()):
    """Mean and variance of every sample seen plus the prior pseudo-sample set."""
    x = np.concatenate(batches)
    total = PRIOR + len(x)
    mean = x.sum(axis=0) / total
    var = (PRIOR * (np.ones(shape) + mean**2) + ((x - mean) ** 2).sum(axis=0)) / total
    return mean, var, total


def test_running_moments_are_the_pooled_moments_of_every_batch():
    rng = np.random.default_rng(0)
    batches = [rng.normal(3.0, 2.0, (5, 2)), rng.normal(-1.0, 0.5, (1, 2)), rng.normal(0.0, 4.0, (7, 2))]
    rms = RunningMeanStd((2,))
    for k in range(3):
        rms.update(batches[k])
        mean, var, total = pooled(batches[:k + 1], (2,))
        np.testing.assert_allclose(rms.mean, mean, rtol=1e-12)
        np.testing.assert_allclose(rms.var, var, rtol=1e-12)
        assert rms.count == pytest.approx(total, rel=1e-15)
    other = RunningMeanStd((2,))
    other.load_state_dict(rms.state_dict())
    assert np.array_equal(other.mean, rms.mean) and np.array_equal(other.var, rms.var) and other.count == rms.count


def gae_by_definition(rew, val, term, done, valid, gamma, lam):
    """A_t = sum_l (gamma lam)^l delta_{t+l} over the steps of t's episode inside the rollout,
    delta_s = r_s + gamma V_{s+1} [s not terminal] - V_s; 0 at reset steps."""
    T, N = rew.shape
    adv = np.zeros((T, N))
    for i in range(N):
        for t in range(T):
            if not valid[t, i]:
                continue
            total, s = 0.0, t
            while s < T:
                delta = rew[s, i] + gamma * val[s + 1, i] * (not term[s, i]) - val[s, i]
                total += (gamma * lam) ** (s - t) * delta
                if done[s, i]:
                    break
                s += 1
            adv[t, i] = total
    return adv


def hand_buffer(T=6, N=3, seed=1):
    """World 0 runs through; world 1 terminates at step 2 (step 3 resets); world 2 is
    truncated at step 3 (step 4 resets) and terminates at step 5."""
    rng = np.random.default_rng(seed)
    term, done, valid = np.zeros((T, N), bool), np.zeros((T, N), bool), np.ones((T, N), bool)
    term[2, 1] = done[2, 1] = True
    valid[3, 1] = False
    done[3, 2] = True
    valid[4, 2] = False
    term[5, 2] = done[5, 2] = True
    return {"rew": rng.normal(size=(T, N)).astype(np.float32), "val": rng.normal(size=(T + 1, N)).astype(np.float32),
            "term": term, "done": done, "valid": valid}


def test_advantages_are_gae_by_its_definition_with_autoreset_masks():
    ppo = agent(rollout_steps=6, gamma=0.9, gae_lambda=0.8)
    buf = hand_buffer()
    adv, ret = ppo.advantages(buf)
    want = gae_by_definition(buf["rew"].astype(float), buf["val"].astype(float), buf["term"], buf["done"],
                             buf["valid"], 0.9, 0.8)
    np.testing.assert_allclose(adv, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ret, want + buf["val"][:6], rtol=1e-5, atol=1e-6)
    assert adv[3, 1] == 0.0 and adv[4, 2] == 0.0
    # the terminal step bootstraps nothing, the truncated one the final observation's value
    assert adv[2, 1] == pytest.approx(buf["rew"][2, 1] - buf["val"][2, 1], rel=1e-6)
    assert adv[3, 2] == pytest.approx(buf["rew"][3, 2] + 0.9 * buf["val"][4, 2] - buf["val"][3, 2], rel=1e-6)


def test_rewards_are_divided_by_the_running_std_of_the_discounted_return():
    """_scale: G <- gamma G + r in worlds whose step is not a reset step, the running
    moments take those G, the reward is divided by sqrt(var + 1e-8), and G restarts at 0
    after an episode ends."""
    ppo = agent(gamma=0.9)
    rng = np.random.default_rng(2)
    rews = rng.normal(size=(4, 3))
    dones = np.array([[False, True, False], [False, False, False], [True, False, False], [False, False, False]])
    G, seen, after = np.zeros(3), [], np.zeros(3, bool)
    for r, d in zip(rews, dones):
        ppo._after_done = after.copy()
        out = ppo._scale(r, d)
        live = ~after
        G = np.where(live, 0.9 * G + r, G)
        seen.append(G[live].copy())
        _, var, _ = pooled(seen)
        np.testing.assert_allclose(out, r / math.sqrt(var + 1e-8), rtol=1e-12)
        G[d] = 0.0
        after = d
    plain = agent(normalize_reward=False)
    assert np.array_equal(plain._scale(rews[0], dones[0]), rews[0])


def test_observations_are_normalised_by_the_running_moments_and_clipped():
    ppo = agent(obs_clip=2.0)
    ppo.obs_rms.mean = np.array([1.0, -1.0, 0.0, 0.5])
    ppo.obs_rms.var = np.array([4.0, 1.0, 0.25, 1e-8])
    obs = np.array([[3.0, -1.0, 0.25, 0.5 + 1e-3], [-30.0, 0.0, 0.0, 0.5 - 1e-3]])
    z = (obs - ppo.obs_rms.mean) / np.sqrt(ppo.obs_rms.var + 1e-8)
    np.testing.assert_allclose(ppo.normalize(obs), np.clip(z, -2.0, 2.0), rtol=1e-12)
    assert ppo.normalize(obs)[0, 3] == 2.0 and 0.0 < z[0, 3] - 2.0
    assert ppo.normalize(obs)[1, 0] == ppo.normalize(obs)[1, 3] == -2.0
    assert np.array_equal(agent(normalize_obs=False).normalize(obs), obs)


def numpy_policy(ppo):
    """The actor's mean, log std and the critic as NumPy functions of the policy's weights."""
    def mlp(seq, x):
        for layer in seq:
            if isinstance(layer, torch.nn.Linear):
                x = x @ layer.weight.detach().double().numpy().T + layer.bias.detach().double().numpy()
            else:
                x = np.tanh(x)
        return x
    log_std = ppo.policy.log_std.detach().double().numpy().copy()
    return (lambda o: mlp(ppo.policy.actor, o)), log_std, (lambda o: mlp(ppo.policy.critic, o)[:, 0])


def gaussian_logp(a, mu, log_std):
    return np.sum(-0.5 * ((a - mu) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi), axis=-1)


def test_one_update_minimises_the_papers_losses_evaluated_before_the_step():
    """epochs = minibatches = 1: the statistics of the single step are the clipped surrogate
    -mean(min(rho A, clip(rho, 0.8, 1.2) A)) with A normalised (unbiased std), 0.5 mean((V -
    R)^2), the Gaussian entropy, mean((rho - 1) - log rho), the share |rho - 1| > 0.2, and
    1 - var(R - V) / var(R), all over the valid samples only; the weights then move."""
    T, N = 6, 3
    ppo = agent(rollout_steps=T, epochs=1, minibatches=1, gamma=0.9, gae_lambda=0.8)
    buf = hand_buffer(T, N)
    rng = np.random.default_rng(4)
    buf["obs"] = rng.normal(size=(T, N, 4)).astype(np.float32)
    buf["act"] = rng.normal(size=(T, N, 1)).astype(np.float32)
    mu, log_std, value = numpy_policy(ppo)
    obs, act = buf["obs"].astype(float), buf["act"].astype(float)
    logp_now = gaussian_logp(act, mu(obs.reshape(-1, 4)).reshape(T, N, 1), log_std)
    buf["logp"] = (logp_now + rng.uniform(-0.4, 0.4, (T, N))).astype(np.float32)  # ratios 0.67-1.5
    buf["rew"][~buf["valid"]] = 1e6  # reset steps: nothing of them may reach the loss
    V = value(obs.reshape(-1, 4))  # the critic before the step (value reads the live weights)
    before = [p.detach().clone() for p in ppo.policy.parameters()]
    stats = ppo.update(buf)
    v = buf["valid"].reshape(-1)
    A = gae_by_definition(buf["rew"].astype(float), buf["val"].astype(float), buf["term"], buf["done"],
                          buf["valid"], 0.9, 0.8)
    R = (A + buf["val"][:T]).reshape(-1)[v]
    A = A.reshape(-1)[v]
    An = (A - A.mean()) / (A.std(ddof=1) + 1e-8)
    rho = np.exp(logp_now.reshape(-1)[v] - buf["logp"].astype(float).reshape(-1)[v])
    assert (np.abs(rho - 1) > 0.2).any() and (np.abs(rho - 1) < 0.2).any()
    pg = -np.mean(np.minimum(rho * An, np.clip(rho, 0.8, 1.2) * An))
    V = V[v]
    entropy = np.sum(0.5 + 0.5 * np.log(2 * np.pi) + log_std)
    want = {"policy_loss": pg, "value_loss": 0.5 * np.mean((V - R) ** 2), "entropy": entropy,
            "approx_kl": np.mean((rho - 1) - np.log(rho)), "clip_frac": np.mean(np.abs(rho - 1) > 0.2)}
    for k, w in want.items():
        assert stats[k] == pytest.approx(w, rel=2e-4, abs=1e-6), k
    val_old = buf["val"][:-1].reshape(-1)[v].astype(float)
    assert stats["explained_var"] == pytest.approx(1 - np.var(R - val_old) / np.var(R), rel=1e-4)
    assert ppo.updates == 1
    assert all(not torch.equal(b, p) for b, p in zip(before, ppo.policy.parameters()))


def test_a_rollout_records_what_the_env_returned():
    """collect(): rewards are the env's (scaled), episode returns and lengths sum the raw
    rewards of each finished episode without its reset step, reset steps are invalid, logp
    and values are the policy's on the normalised observation, env_steps counts T x N."""
    T, N = 40, 3
    envs, seen = recorded(N)
    ppo = PPO(envs, PPOConfig(hidden=(8,), seed=0, torch_threads=1, rollout_steps=T, normalize_reward=False))
    buf = ppo.collect()
    acts = np.array([s[0] for s in seen])
    rew, term, trunc = (np.array([s[k] for s in seen]) for k in (1, 2, 3))
    done = term | trunc
    assert done[:-1].any()  # random actions topple the pole within the rollout
    np.testing.assert_allclose(buf["rew"], rew, rtol=1e-6)
    assert np.array_equal(buf["term"], term) and np.array_equal(buf["done"], done)
    assert np.array_equal(buf["valid"][1:], ~done[:-1]) and buf["valid"][0].all()
    np.testing.assert_allclose(acts, np.clip(buf["act"].astype(float), -3.0, 3.0), rtol=1e-6)
    returns, lengths = [], []
    for i in range(N):
        r, k = 0.0, 0
        for t in range(T):
            if not buf["valid"][t, i]:
                continue
            r, k = r + rew[t, i], k + 1
            if done[t, i]:
                returns.append((t, i, r))
                lengths.append((t, i, k))
                r, k = 0.0, 0
    order = sorted(range(len(returns)), key=lambda j: (returns[j][0], returns[j][1]))
    np.testing.assert_allclose(ppo.finished_returns, [returns[j][2] for j in order], rtol=1e-12)
    assert ppo.finished_lengths == [lengths[j][2] for j in order]
    assert ppo.env_steps == T * N and ppo.finished_success == []
    mu, log_std, value = numpy_policy(ppo)
    obs = buf["obs"].astype(float).reshape(-1, 4)
    np.testing.assert_allclose(buf["logp"].reshape(-1), gaussian_logp(buf["act"].reshape(-1, 1), mu(obs), log_std),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(buf["val"][:T].reshape(-1), value(obs), rtol=1e-4, atol=1e-5)


def test_the_learning_rate_decays_linearly_to_a_floor_of_5_percent():
    """lr x max(1 - steps / total, 0.05) before each update: with 4 updates of 30 steps
    in a budget of 100, 1, 0.7, 0.4, 0.1; past the budget's 95 % it stays at 0.05."""
    lrs = []
    ppo = agent(n=3, rollout_steps=10, epochs=1, minibatches=1, lr=1e-3)
    ppo.learn(total_steps=100, progress=False, log_every=None,
              callback=lambda row: lrs.append(ppo.opt.param_groups[0]["lr"]))
    np.testing.assert_allclose(lrs, [1e-3, 7e-4, 4e-4, 1e-4], rtol=1e-12)
    ppo = agent(n=3, rollout_steps=10, epochs=1, minibatches=1, lr=1e-3)
    ppo.env_steps = 98
    ppo.learn(total_steps=100, progress=False, log_every=None,
              callback=lambda row: lrs.append(ppo.opt.param_groups[0]["lr"]))
    assert lrs[-1] == pytest.approx(5e-5, rel=1e-12)
    fixed = agent(n=3, rollout_steps=10, epochs=1, minibatches=1, lr=1e-3, lr_anneal=False)
    fixed.learn(total_steps=60, progress=False, log_every=None)
    assert fixed.opt.param_groups[0]["lr"] == 1e-3


def test_evaluate_counts_each_worlds_first_episode_only():
    """evaluate: the return of each of the first `episodes` worlds' first episode (the sum
    of its rewards up to its end), success nan where a task defines none."""
    envs, seen = recorded(4)
    rng = np.random.default_rng(5)
    first = []
    returns, success = evaluate(envs, lambda o: first.append(o.copy()) or rng.uniform(-3, 3, (4, 1)), 3,
                                with_success=True)
    np.testing.assert_array_equal(first[0], pendulum(4).reset(seed=12345)[0])  # evaluate's default seed
    rew, done = np.array([s[1] for s in seen]), np.array([s[2] | s[3] for s in seen])
    want = [rew[:np.argmax(done[:, i]) + 1, i].sum() for i in range(3)]
    np.testing.assert_allclose(returns, want, rtol=1e-12)
    assert len(returns) == 3 and np.isnan(success).all()
    assert done[-1, :3].any() and not done[:-1, :3].all(axis=0).any()  # stops at the last first end
    with pytest.raises(ValueError, match=r"episodes \(5\) must be <= num_envs \(4\)"):
        evaluate(envs, lambda o: np.zeros((4, 1)), 5)
    # a task that defines success: each episode's is_success at its end (YuMiDrawer cut
    # after 3 steps: the drawer still shut, 0.0)
    yumi = gym.make_vec("ncpgym/YuMiDrawer-v0", num_envs=2, num_threads=1, max_episode_steps=3)
    _, ok = evaluate(yumi, lambda o: np.zeros((2, yumi.single_action_space.shape[0])), 2, with_success=True)
    assert ok.tolist() == [0.0, 0.0]


def test_actions_are_the_policys_mean_or_samples_clipped_to_the_box_as_float64():
    ppo = agent()
    obs = np.random.default_rng(6).normal(size=(3, 4))
    mean = ppo.act(obs, deterministic=True)
    assert mean.dtype == np.float64 and np.array_equal(mean, ppo.act(obs, deterministic=True))
    assert not np.array_equal(ppo.act(obs), ppo.act(obs))  # sampled by default
    last = ppo.policy.actor[-1]
    with torch.no_grad():
        last.bias.fill_(10.0)
    assert np.all(ppo.act(obs, deterministic=True) == 3.0)  # the pendulum's force box: [-3, 3]
    with torch.no_grad():
        last.bias.fill_(-10.0)
    assert np.all(ppo.act(obs, deterministic=True) == -3.0)


def save_fake(path, updates, resumable=True):
    """A checkpoint file as PPO.save writes it, only the keys latest_checkpoint reads."""
    ck = {"resume": {} if resumable else None}
    if updates is not None:
        ck["updates"] = updates
    torch.save(ck, path)


def test_latest_checkpoint_takes_the_newest_resumable_file(tmp_path):
    """final.pt or checkpoint_NNNNN.pt, whichever resumable one has the most updates (its
    own count, not its name, decides; a name at or below final.pt's count is not read);
    a file without a count, or not resumable, is never taken."""
    from ncpgym.train import latest_checkpoint

    def case(files):
        d = tmp_path / str(len(list(tmp_path.iterdir())))
        d.mkdir()
        for name, updates, resumable in files:
            save_fake(d / name, updates, resumable)
        try:
            return latest_checkpoint(d).name
        except FileNotFoundError:
            return None

    assert case([("final.pt", 0, True)]) == "final.pt"
    assert case([("final.pt", 4, False)]) is None
    assert case([("final.pt", None, True)]) is None
    assert case([("checkpoint_00001.pt", 1, True)]) == "checkpoint_00001.pt"
    assert case([("checkpoint_00003.pt", 3, True), ("checkpoint_00006.pt", 6, False)]) == "checkpoint_00003.pt"
    assert case([("final.pt", 6, True), ("checkpoint_00003.pt", 3, True), ("checkpoint_00006.pt", 6, True)]) == "final.pt"
    assert case([("final.pt", 6, True), ("checkpoint_00007.pt", 6, True)]) == "final.pt"
    assert case([("final.pt", 6, False), ("checkpoint_00005.pt", 5, True)]) == "checkpoint_00005.pt"
    assert case([("final.pt", 2, True), ("checkpoint_00005.pt", 5, True)]) == "checkpoint_00005.pt"


def test_resuming_into_envs_without_state_starts_new_episodes_seeded_by_the_update_count(tmp_path):
    """Envs without get_state/set_state (Ray shards; here a plain gymnasium wrapper): the
    checkpoint holds no worlds, and resume starts new episodes with seed = seed + updates and
    the episode counters at 0; a checkpoint of such envs resumed by an ncpgym env (which has
    set_state) resets too. Refusals name the file and both shapes."""
    from gymnasium.vector import VectorWrapper

    def wrapped():
        return PPO(VectorWrapper(pendulum(3)), PPOConfig(hidden=(8,), seed=2, torch_threads=1, rollout_steps=8))

    first = wrapped()
    first.learn(total_steps=48, out=tmp_path, progress=False, checkpoint_every=0, log_every=None)
    ck = torch.load(tmp_path / "final.pt", weights_only=False)
    assert ck["resume"]["envs"] is None and ck["updates"] == 2
    for target in (wrapped(), PPO(pendulum(3), PPOConfig(hidden=(8,), seed=2, torch_threads=1, rollout_steps=8))):
        target._ep_return[:] = 5.0
        target._ep_length[:] = 7
        target._disc_return[:] = 3.0
        target._after_done[:] = True
        target.resume(tmp_path / "final.pt")
        want, _ = pendulum(3).reset(seed=2 + 2)
        np.testing.assert_array_equal(target._obs, want)
        assert not target._ep_return.any() and not target._ep_length.any() and not target._disc_return.any()
        assert not target._after_done.any() and target.updates == 2 and target.env_steps == 48
    other = PPO(pendulum(3), PPOConfig(hidden=(16,), torch_threads=1))
    with pytest.raises(ValueError) as e:
        other.resume(tmp_path / "final.pt")
    assert str(e.value) == (f"{tmp_path / 'final.pt'}: a policy for 4 observations, 1 actions and hidden [8]; "
                            "this trainer has 4, 1, [16]")
    save_fake(tmp_path / "half.pt", 3, resumable=False)
    with pytest.raises(ValueError) as e:
        other.resume(tmp_path / "half.pt")
    assert str(e.value) == (f"{tmp_path / 'half.pt'}: saved during a rollout or an update (Ctrl-C) or by an older "
                            "ncpgym; resume from a checkpoint_*.pt instead")


def test_a_resumed_leg_reads_the_earlier_rows_up_to_its_update(tmp_path):
    from ncpgym.train.ppo import _previous_rows

    path = tmp_path / "progress.csv"
    path.write_text("update,env_steps,episodes,episode_return\n1,16,0,nan\n2,32,3,4.5\n3,48,5,6.0\n")
    assert _previous_rows(path, 0) == []
    assert _previous_rows(tmp_path / "none.csv", 2) == []
    rows = _previous_rows(path, 1)
    assert len(rows) == 1 and rows[0]["update"] == 1 and rows[0]["env_steps"] == 16
    rows = _previous_rows(path, 2)
    assert [r["update"] for r in rows] == [1, 2] and rows[1] == {"update": 2, "env_steps": 32, "episodes": 3,
                                                                  "episode_return": 4.5}
    assert all(type(r["env_steps"]) is int and type(r["episodes"]) is int for r in rows)


def test_progress_rows_summarise_the_last_100_episodes_and_the_clock(tmp_path):
    """Each row: episode return, length and success rate as means over the last 100 finished
    episodes (nan before any), the run's clock going on from a resumed leg's elapsed time
    (time_s to the millisecond), steps/s = env steps / time_s (to 0.1), the update's losses
    to 6 decimals; learn() makes nested output folders, clears `interrupted`, and without a
    budget refuses by name."""
    ppo = agent(n=2, rollout_steps=2)
    rows = ppo.learn(total_steps=4, progress=False, log_every=None)
    assert math.isnan(rows[0]["episode_return"]) and math.isnan(rows[0]["episode_length"])
    assert math.isnan(rows[0]["success_rate"]) and rows[0]["episodes"] == 0
    ppo = agent(n=3, rollout_steps=30)
    ppo.finished_returns = [float(k) for k in range(150)]
    ppo.finished_lengths = list(range(1000, 1150))
    ppo.finished_success = [float(k % 3 == 0) for k in range(150)]
    ppo.elapsed_before = 100.1234
    ppo.interrupted = True
    rows = ppo.learn(total_steps=90, out=tmp_path / "a" / "b", progress=False, log_every=None, checkpoint_every=0)
    row = rows[-1]
    assert (tmp_path / "a" / "b" / "progress.csv").exists() and not ppo.interrupted
    assert len(ppo.finished_returns) > 150  # the rollout ended episodes of its own
    assert row["episode_return"] == pytest.approx(np.mean(ppo.finished_returns[-100:]), rel=1e-12)
    assert row["episode_length"] == pytest.approx(np.mean(ppo.finished_lengths[-100:]), rel=1e-12)
    assert row["success_rate"] == pytest.approx(np.mean(ppo.finished_success[-100:]), rel=1e-12)
    assert row["episodes"] == len(ppo.finished_returns)
    assert 100.1234 <= row["time_s"] < 160 and row["time_s"] == round(row["time_s"], 3)
    assert row["steps_per_s"] == pytest.approx(90 / row["time_s"], abs=0.051)
    for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac", "explained_var"):
        assert row[k] == round(row[k], 6), k
    with pytest.raises(ValueError) as e:
        ppo.learn()
    assert str(e.value) == "give total_steps or seconds"


def test_the_progress_bar_counts_env_steps_and_shows_return_and_rate(capsys):
    """By default learn() draws a tqdm bar "PPO" in env steps (1.02k of 1.02k for a budget of
    1,024; k for thousands) with the mean return and steps/s; with only a time budget it
    counts steps without a total."""
    ppo = agent(n=8, rollout_steps=64)
    ppo.learn(total_steps=1024)
    err = capsys.readouterr().err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("PPO: 100%") and "1.02k/1.02k" in last and "step/s" in last
    ret, sps = last.split("ret=")[1].split(", sps=")
    assert float(ret) == pytest.approx(np.mean(ppo.finished_returns[-100:]), abs=0.051)
    assert float(sps.rstrip("]")) > 0
    ppo = agent(n=2, rollout_steps=4)
    ppo.learn(seconds=0.3)
    last = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("PPO: ") and last.split()[2] == "steps" and "%" not in last
    assert float(last.split()[1]) == ppo.env_steps


def test_the_learning_curve_plots_the_rows_return_against_env_steps(tmp_path, monkeypatch):
    """learning_curve.png: one line, mean episode return (last 100) against environment
    steps, the axes labelled so and the task id as title, a light grid, 720 x 480 pixels
    (the real figure, caught as it is saved)."""
    import imageio.v3 as iio
    import matplotlib.figure

    from ncpgym.train.ppo import plot_learning_curve

    saved = []
    real = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: saved.append(fig) or real(fig, *a, **k))
    rows = [{"env_steps": 100, "episode_return": 1.5}, {"env_steps": 200, "episode_return": 4.0}]
    plot_learning_curve(rows, tmp_path / "c.png", title="ncpgym/Task-v0")
    (ax,) = saved[0].axes
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [100, 200] and list(line.get_ydata()) == [1.5, 4.0]
    assert ax.get_xlabel() == "environment steps" and ax.get_ylabel() == "mean episode return (last 100)"
    assert ax.get_title() == "ncpgym/Task-v0" and (tmp_path / "c.png").stat().st_size > 1000
    assert iio.imread(tmp_path / "c.png").shape[:2] == (480, 720)  # 6 x 4 inches at 120 dpi
    assert all(g.get_visible() and g.get_alpha() == 0.3 for g in ax.get_xgridlines() + ax.get_ygridlines())
    plot_learning_curve(rows, tmp_path / "d.png")
    assert saved[1].axes[0].get_title() == ""


def test_learn_writes_a_checkpoint_every_25_updates_by_default(tmp_path):
    ppo = agent(n=2, rollout_steps=2, epochs=1, minibatches=1)
    ppo.learn(total_steps=4 * 26, out=tmp_path, progress=False, log_every=None)
    assert sorted(p.name for p in tmp_path.glob("checkpoint_*.pt")) == ["checkpoint_00025.pt"]


def test_networks_start_orthogonal_with_the_papers_gains_and_adam_as_configured(tmp_path):
    """Orthogonal initial weights (W W^T = g^2 I for a wide layer, W^T W = g^2 I for a tall
    one): sqrt(2) on hidden layers, 0.01 on the policy's output, 1 on the value's; biases 0;
    Adam with the configured learning rate and eps 1e-5; a fresh trainer saves a resumable
    checkpoint and is not interrupted; the action box as float64."""
    ppo = PPO(pendulum(2), PPOConfig(hidden=(16, 8), lr=7e-4, torch_threads=1))

    def gram(layer):
        w = layer.weight.detach().double().numpy()
        return w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w

    for net, out_gain in ((ppo.policy.actor, 0.01), (ppo.policy.critic, 1.0)):
        linear = [m for m in net if isinstance(m, torch.nn.Linear)]
        assert [m.out_features for m in linear][:2] == [16, 8]
        for layer, gain in zip(linear, (math.sqrt(2), math.sqrt(2), out_gain)):
            g = gram(layer)
            np.testing.assert_allclose(g, gain**2 * np.eye(len(g)), atol=1e-6 * max(gain**2, 1))
            assert not layer.bias.detach().numpy().any()
    assert ppo.opt.defaults["lr"] == 7e-4 and ppo.opt.defaults["eps"] == 1e-5
    assert ppo.interrupted is False
    ppo.save(tmp_path / "fresh.pt")
    assert torch.load(tmp_path / "fresh.pt", weights_only=False)["resume"] is not None
    assert ppo.low.dtype == ppo.high.dtype == np.float64 and ppo.low.tolist() == [-3.0] and ppo.high.tolist() == [3.0]
    assert ppo._ep_length.dtype == np.int64


def test_one_update_steps_adam_along_the_gradient_of_the_papers_loss():
    """One minibatch, one epoch, a fresh Adam: the first Adam step moves each weight by
    -lr g / (|g| + eps) with g the gradient of pg + 0.5 v_loss - c_ent entropy (the norm
    of g clipped to 0.5 first); g computed here by autograd on a copy of the policy."""
    import copy

    T, N = 6, 3
    ppo = agent(rollout_steps=T, epochs=1, minibatches=1, gamma=0.9, gae_lambda=0.8, ent_coef=0.05, lr=1e-3)
    buf = hand_buffer(T, N)
    rng = np.random.default_rng(8)
    buf["obs"] = rng.normal(size=(T, N, 4)).astype(np.float32)
    buf["act"] = rng.normal(size=(T, N, 1)).astype(np.float32)
    with torch.no_grad():
        logp_now = ppo.policy.dist(torch.as_tensor(buf["obs"])).log_prob(torch.as_tensor(buf["act"])).sum(-1).numpy()
    buf["logp"] = (logp_now + rng.uniform(-0.4, 0.4, (T, N))).astype(np.float32)
    ref = copy.deepcopy(ppo.policy)
    v = buf["valid"].reshape(-1)
    A = gae_by_definition(buf["rew"].astype(float), buf["val"].astype(float), buf["term"], buf["done"],
                          buf["valid"], 0.9, 0.8)
    R = torch.as_tensor((A + buf["val"][:T]).reshape(-1)[v], dtype=torch.float32)
    A = torch.as_tensor(A.reshape(-1)[v], dtype=torch.float32)
    A = (A - A.mean()) / (A.std() + 1e-8)
    obs = torch.as_tensor(buf["obs"].reshape(-1, 4)[v])
    act = torch.as_tensor(buf["act"].reshape(-1, 1)[v])
    d = ref.dist(obs)
    rho = (d.log_prob(act).sum(-1) - torch.as_tensor(buf["logp"].reshape(-1)[v])).exp()
    pg = -torch.min(rho * A, rho.clamp(0.8, 1.2) * A).mean()
    loss = pg + 0.5 * 0.5 * (ref.value(obs) - R).pow(2).mean() - 0.05 * d.entropy().sum(-1).mean()
    loss.backward()
    grads = [p.grad.clone() for p in ref.parameters()]
    norm = torch.sqrt(sum((g**2).sum() for g in grads))
    scale = min(1.0, 0.5 / (float(norm) + 1e-6))
    before = [p.detach().clone() for p in ppo.policy.parameters()]
    ppo.update(buf)
    for b, p, g in zip(before, ppo.policy.parameters(), grads):
        want = b - 1e-3 * (scale * g) / ((scale * g).abs() + 1e-5)
        torch.testing.assert_close(p.detach(), want, rtol=0, atol=2e-6)


def test_demonstrations_add_a_weighted_behaviour_cloning_term_to_the_update():
    """set_demonstrations with one pair (so every minibatch draws it): the update's bc_loss is
    |mu(normalised s_d) - clip(a_d)|^2 by hand (the observation standardised by the running
    moments, the action clipped to the box), its weight bc_coef * bc_decay**updates, and the
    first Adam step follows the gradient of PPO's loss plus that weight times the term."""
    import copy

    T, N = 6, 3
    ppo = agent(rollout_steps=T, epochs=1, minibatches=1, gamma=0.9, gae_lambda=0.8, lr=1e-3, bc_coef=0.8,
                bc_decay=0.5)
    ppo.updates = 2  # weight 0.8 * 0.5^2
    ppo.obs_rms.mean, ppo.obs_rms.var = np.array([0.1, -0.2, 0.3, 0.0]), np.array([4.0, 0.25, 1.0, 9.0])
    s_d, a_d = np.array([[0.5, 0.1, -0.4, 2.0]]), np.array([[50.0]])  # beyond the box: clipped
    ppo.set_demonstrations(s_d, a_d)
    buf = hand_buffer(T, N)
    rng = np.random.default_rng(9)
    buf["obs"] = rng.normal(size=(T, N, 4)).astype(np.float32)
    buf["act"] = rng.normal(size=(T, N, 1)).astype(np.float32)
    with torch.no_grad():
        logp_now = ppo.policy.dist(torch.as_tensor(buf["obs"])).log_prob(torch.as_tensor(buf["act"])).sum(-1).numpy()
    buf["logp"] = (logp_now + rng.uniform(-0.4, 0.4, (T, N))).astype(np.float32)
    ref = copy.deepcopy(ppo.policy)
    mu, _, _ = numpy_policy(ppo)
    z = (s_d - ppo.obs_rms.mean) / np.sqrt(ppo.obs_rms.var + 1e-8)
    bc_hand = float(np.sum((mu(z) - ppo.high) ** 2))
    v = buf["valid"].reshape(-1)
    A = gae_by_definition(buf["rew"].astype(float), buf["val"].astype(float), buf["term"], buf["done"],
                          buf["valid"], 0.9, 0.8)
    R = torch.as_tensor((A + buf["val"][:T]).reshape(-1)[v], dtype=torch.float32)
    A = torch.as_tensor(A.reshape(-1)[v], dtype=torch.float32)
    A = (A - A.mean()) / (A.std() + 1e-8)
    obs = torch.as_tensor(buf["obs"].reshape(-1, 4)[v])
    act = torch.as_tensor(buf["act"].reshape(-1, 1)[v])
    d = ref.dist(obs)
    rho = (d.log_prob(act).sum(-1) - torch.as_tensor(buf["logp"].reshape(-1)[v])).exp()
    pg = -torch.min(rho * A, rho.clamp(0.8, 1.2) * A).mean()
    bc = (ref.actor(torch.as_tensor(z, dtype=torch.float32)) - float(ppo.high[0])).pow(2).sum()
    loss = pg + 0.5 * 0.5 * (ref.value(obs) - R).pow(2).mean() + 0.2 * bc
    loss.backward()
    grads = [p.grad.clone() for p in ref.parameters()]
    norm = torch.sqrt(sum((g**2).sum() for g in grads))
    scale = min(1.0, 0.5 / (float(norm) + 1e-6))
    before = [p.detach().clone() for p in ppo.policy.parameters()]
    stats = ppo.update(buf)
    assert stats["bc_weight"] == pytest.approx(0.2, rel=1e-12) and ppo.bc_weight() == pytest.approx(0.1)
    assert stats["bc_loss"] == pytest.approx(bc_hand, rel=1e-5)
    for b, p, g in zip(before, ppo.policy.parameters(), grads):
        want = b - 1e-3 * (scale * g) / ((scale * g).abs() + 1e-5)
        torch.testing.assert_close(p.detach(), want, rtol=0, atol=2e-6)


class _Plane(gym.Env):
    """A point in the plane pushed by a 2-D action in [-1, 2] x [-0.5, 0.5] (actions of more
    than one dimension with asymmetric bounds, which the pendulum's cannot show)."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (3,), np.float64)
    action_space = gym.spaces.Box(np.array([-1.0, -0.5], np.float32), np.array([2.0, 0.5], np.float32))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.x = self.np_random.normal(size=3)
        return self.x.copy(), {}

    def step(self, a):
        self.x[:2] += 0.1 * np.asarray(a, float)
        return self.x.copy(), -float(np.sum(self.x**2)), False, False, {}


def test_the_cloning_term_sums_over_action_dimensions_and_clips_each_to_its_bounds():
    """A 2-D action box [-1, 2] x [-0.5, 0.5], one demonstration pair repeated (every draw
    is the same pair), its action beyond the lower bound in one dimension and the upper in
    the other: bc_loss is the sum over dimensions (not the mean) of the squared distance
    from the policy's mean to the clipped action (-1, 0.5), the same for pretrain_bc."""
    envs = gym.vector.SyncVectorEnv([_Plane for _ in range(2)])
    ppo = PPO(envs, PPOConfig(hidden=(8,), seed=0, torch_threads=1, rollout_steps=4, epochs=1, minibatches=2,
                              bc_coef=1.0, lr=1e-9))
    s_d = np.array([[0.6, 0.0, -0.3]] * 3)
    ppo.set_demonstrations(s_d, np.array([[-7.0, 3.0]] * 3))
    buf = ppo.collect()  # (its observations move the running moments the term standardises by)
    mu, _, _ = numpy_policy(ppo)
    z = np.clip((s_d[:1] - ppo.obs_rms.mean) / np.sqrt(ppo.obs_rms.var + 1e-8), -10, 10)
    bc_hand = float(np.sum((mu(z) - [-1.0, 0.5]) ** 2))
    stats = ppo.update(buf)
    # lr 1e-9: the two minibatches see the same policy to ~1e-9; the stat is their mean
    assert stats["bc_loss"] == pytest.approx(bc_hand, rel=1e-5)
    envs.close()


def test_pretraining_clones_the_demonstrations_under_statistics_that_took_them_in():
    """pretrain_bc: the running moments become the pooled moments of the prior and the
    demonstration observations, and the policy's mean then fits a demonstrated linear map of
    the observation (squared error down 20-fold from the untrained policy's); only the
    actor moves: the critic's weights and the exploration noise (log std) stay."""
    ppo = agent(bc_coef=1.0, lr=3e-3)
    rng = np.random.default_rng(5)
    s_d = rng.normal([1.0, -2.0, 0.5, 3.0], [0.5, 2.0, 1.0, 0.1], size=(400, 4))
    a_d = np.tanh(s_d @ [0.3, 0.2, -0.5, 1.0] - 3.0)[:, None]
    ppo.set_demonstrations(s_d, a_d)
    mu, _, _ = numpy_policy(ppo)
    z0 = (s_d - s_d.mean(axis=0)) / s_d.std(axis=0)
    before = float(np.mean(np.sum((mu(z0) - a_d) ** 2, axis=1)))
    critic = [p.detach().clone() for p in ppo.policy.critic.parameters()] + [ppo.policy.log_std.detach().clone()]
    loss = ppo.pretrain_bc(600, batch=64)
    mean, var, count = pooled([s_d], (4,))
    np.testing.assert_allclose(ppo.obs_rms.mean, mean, rtol=1e-9)
    np.testing.assert_allclose(ppo.obs_rms.var, var, rtol=1e-6)
    mu, _, _ = numpy_policy(ppo)
    after = float(np.mean(np.sum((mu(ppo.normalize(s_d)) - a_d) ** 2, axis=1)))
    assert after < before / 20 and loss == pytest.approx(after, rel=0.5), (before, after, loss)
    assert all(torch.equal(b, p) for b, p in zip(critic, [*ppo.policy.critic.parameters(), ppo.policy.log_std]))
    ppo.update(ppo.collect())
    with pytest.raises(ValueError, match="only before the first update"):
        ppo.pretrain_bc(1)
    with pytest.raises(ValueError, match="set_demonstrations first"):
        agent().pretrain_bc(1)


def test_demonstrations_are_checked_and_absent_by_default():
    for bad in ({"bc_coef": -0.1}, {"bc_coef": float("nan")}, {"bc_decay": 0.0}, {"bc_decay": 1.01}):
        with pytest.raises(ValueError, match=f"PPOConfig.{next(iter(bad))}"):
            PPOConfig(**bad)
    PPOConfig(bc_coef=0.0, bc_decay=1.0)  # the edges themselves are allowed
    ppo = agent(bc_coef=1.0)
    assert ppo.bc_weight() == 0.0  # no demonstrations: no term, no column
    assert "bc_loss" not in ppo.update(ppo.collect())
    for obs, act in ((np.zeros((2, 3)), np.zeros((2, 1))), (np.zeros((2, 4)), np.zeros((3, 1))),
                     (np.zeros((0, 4)), np.zeros((0, 1))), (np.full((1, 4), np.nan), np.zeros((1, 1))),
                     (np.zeros((1, 4)), np.full((1, 1), np.inf)), (np.zeros(4), np.zeros(1)),
                     (np.zeros((2, 4)), np.zeros((2, 2)))):
        with pytest.raises(ValueError, match="set_demonstrations"):
            ppo.set_demonstrations(obs, act)


def test_actions_beyond_the_box_reach_the_env_clipped():
    T, N = 4, 2
    envs, seen = recorded(N)
    ppo = PPO(envs, PPOConfig(hidden=(8,), seed=0, torch_threads=1, rollout_steps=T))
    for bias in (10.0, -10.0):
        with torch.no_grad():
            ppo.policy.actor[-1].bias.fill_(bias)
        buf = ppo.collect()
        assert np.all(np.array([s[0] for s in seen[-T:]]) == np.sign(bias) * 3.0) and np.all(np.abs(buf["act"]) > 5)
    assert buf["obs"].dtype == buf["act"].dtype == buf["logp"].dtype == buf["rew"].dtype == np.float32
    assert buf["val"].dtype == np.float32 and buf["val"].shape == (T + 1, N) and buf["valid"].dtype == bool


def test_update_statistics_are_means_over_every_minibatch_of_every_epoch():
    """Two epochs of two minibatches each at a learning rate too small to move the policy:
    value loss, entropy, approx. KL and clip share averaged over the four minibatch steps
    equal their means over all valid samples."""
    T, N = 6, 3
    ppo = agent(rollout_steps=T, epochs=2, minibatches=2, gamma=0.9, gae_lambda=0.8, lr=1e-12)
    buf = hand_buffer(T, N)
    rng = np.random.default_rng(9)
    buf["obs"] = rng.normal(size=(T, N, 4)).astype(np.float32)
    buf["act"] = rng.normal(size=(T, N, 1)).astype(np.float32)
    mu, log_std, value = numpy_policy(ppo)
    obs, act = buf["obs"].astype(float).reshape(-1, 4), buf["act"].astype(float).reshape(-1, 1)
    logp_now = gaussian_logp(act, mu(obs), log_std).reshape(T, N)
    buf["logp"] = (logp_now + rng.uniform(-0.4, 0.4, (T, N))).astype(np.float32)
    V = value(obs)
    stats = ppo.update(buf)
    v = buf["valid"].reshape(-1)
    assert v.sum() == 16  # two minibatches of 8
    A = gae_by_definition(buf["rew"].astype(float), buf["val"].astype(float), buf["term"], buf["done"],
                          buf["valid"], 0.9, 0.8)
    R = (A + buf["val"][:T]).reshape(-1)[v]
    rho = np.exp(logp_now.reshape(-1)[v] - buf["logp"].astype(float).reshape(-1)[v])
    assert stats["value_loss"] == pytest.approx(0.5 * np.mean((V[v] - R) ** 2), rel=2e-4)
    assert stats["entropy"] == pytest.approx(np.sum(0.5 + 0.5 * np.log(2 * np.pi) + log_std), rel=1e-5)
    assert stats["approx_kl"] == pytest.approx(np.mean((rho - 1) - np.log(rho)), rel=2e-4)
    assert stats["clip_frac"] == pytest.approx(np.mean(np.abs(rho - 1) > 0.2), abs=1e-6)


def test_a_rollouts_rewards_are_scaled_by_the_discounted_returns_of_its_episodes():
    """collect() with reward scaling: each step's reward divided by sqrt(var + 1e-8) of the
    discounted returns G seen so far, G restarting after each episode's end and frozen
    on reset steps (written out here from the rewards the env returned)."""
    T, N = 40, 3
    envs, seen = recorded(N)
    ppo = PPO(envs, PPOConfig(hidden=(8,), seed=1, torch_threads=1, rollout_steps=T, gamma=0.9))
    buf = ppo.collect()
    G, pool, after = np.zeros(N), [], np.zeros(N, bool)
    for t, (_, r, term, trunc) in enumerate(seen):
        d = term | trunc
        live = ~after
        G = np.where(live, 0.9 * G + r, G)
        pool.append(G[live].copy())
        _, var, _ = pooled(pool)
        np.testing.assert_allclose(buf["rew"][t], r / math.sqrt(var + 1e-8), rtol=1e-5)
        G[d] = 0.0
        after = d
    assert len(seen) == T and any((s[2] | s[3]).any() for s in seen)  # episodes ended inside the rollout
