"""`tabletop calibrate` (tabletop/app/calibrate.py) and its method (tabletop/sim/calibrate.py).

The method is checked on synthetic models whose answer is known (no physics): the surrogate
recovers a known p(label | theta); the sampled posterior matches one computed on a grid; and
simulation-based calibration gives uniform ranks. The physics check (long) is the issue's
must-hold recovery for the knock-over device: tallies simulated at a known friction calibrate to
an interval holding it, with the band of "knocked" at least 3 times narrower than the prior's.
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from tabletop.sim import calibrate as cal
from tabletop.sim.errors import InputError

LABELS = ("standing", "knocked", "pushed")
LOW, HIGH = 0.30, 0.55


def true_p(theta) -> np.ndarray:
    """A made-up p(label | friction) shaped like the knock-over's: a plateau where knocked has a
    small bump (a local mode of the likelihood), then a steep rise of knocked past 0.50 while
    pushed falls away."""
    x = np.atleast_2d(np.asarray(theta, dtype=float))[:, 0]
    rise = 1 / (1 + np.exp(-(x - 0.51) / 0.02))
    eta = np.column_stack([np.zeros_like(x), -1.0 + 0.3 * np.exp(-((x - 0.37) / 0.03) ** 2) + 3.5 * rise,
                           -0.1 - 4.0 * rise])
    e = np.exp(eta - eta.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def true_p2(theta) -> np.ndarray:
    """A made-up two-parameter model (the second parameter matters less)."""
    t = np.atleast_2d(np.asarray(theta, dtype=float))
    u, v = (t[:, 0] - LOW) / (HIGH - LOW), t[:, 1]
    eta = np.column_stack([np.zeros(len(t)), -1 + 2.5 * u ** 2 + 0.8 * v, 1 - 2 * u - 0.5 * v])
    e = np.exp(eta - eta.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def draw_labels(proba, theta, rng) -> np.ndarray:
    p = proba(theta)
    return (rng.random(len(theta))[:, None] > p.cumsum(axis=1)).sum(axis=1)


# -- tallies and requests: one line, before any work ----------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("label,count\nstanding,3\nwobbly,2\n", "unknown label 'wobbly'"),
    ("standing,3\nknocked,-1\n", "negative count"),
    ("standing,3\nknocked,two\n", "whole number"),
    ("standing,3,4\n", "expected label,count"),
    ("standing,3\nstanding,4\n", "twice"),
    ("standing,0\nknocked,0\n", "every count is 0"),
    ('{"counts": {"standing": 2, "flying": 1}}', "unknown label 'flying'"),
    ("{not json", "not valid JSON"),
])
def test_bad_tallies_are_one_input_error(tmp_path, text, message):
    path = tmp_path / "tallies.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        cal.read_tallies(path, LABELS)


def test_tallies_from_csv_and_from_an_estimate(tmp_path):
    (tmp_path / "a.csv").write_text("label,count\n# my copy, evening of 3 May\nstanding,12\nknocked,5\n")
    assert cal.read_tallies(tmp_path / "a.csv", LABELS) == {"standing": 12, "knocked": 5, "pushed": 0}
    (tmp_path / "b.json").write_text(json.dumps({"device": "x", "counts": {"standing": 1, "knocked": 2, "pushed": 3}}))
    assert cal.read_tallies(tmp_path / "b.json", LABELS) == {"standing": 1, "knocked": 2, "pushed": 3}
    (tmp_path / "c.json").write_text(json.dumps({"device": "die", "counts": {"standing": 1}}))
    with pytest.raises(InputError, match="an estimate of die, not spinner"):
        cal.read_tallies(tmp_path / "c.json", LABELS, "spinner")
    with pytest.raises(InputError, match="no such file"):
        cal.read_tallies(tmp_path / "missing.csv", LABELS)


@pytest.mark.parametrize("text", ["friction=0.4", "a.friction=0.4+-0", "a.friction=x+-0.1", "a.friction=0.4+--0.1"])
def test_a_bad_measurement_is_one_input_error(text):
    with pytest.raises(InputError, match="--measured"):
        cal.parse_measured(text)


def test_a_measurement_parses():
    assert cal.parse_measured("materials.pairs.a/b.friction=0.42+-0.03") == ("materials.pairs.a/b.friction", 0.42, 0.03)


def test_the_request_checks_its_fields():
    from tabletop.app.requests import CalibrateRequest

    with pytest.raises(InputError, match="--observed"):
        CalibrateRequest(device="die")
    with pytest.raises(InputError, match="--trials"):
        CalibrateRequest(device="die", observed="x.csv", trials=10)
    with pytest.raises(InputError, match="--resume needs --out"):
        CalibrateRequest(device="die", observed="x.csv", resume=True)


@pytest.mark.parametrize("text, message", [
    ("standing,3\nwobbly,2\n", "unknown label 'wobbly'"),
    ("standing,3\nknocked,-1\n", "negative count"),
    ("", "empty"),
])
def test_the_command_says_bad_tallies_in_one_line(tmp_path, capsys, text, message):
    from tabletop.cli import main

    path = tmp_path / "tallies.csv"
    path.write_text(text)
    out = tmp_path / "calib.json"
    assert main(["calibrate", "kong-knockover", "--observed", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert not out.exists() and not list(tmp_path.glob("*.checkpoint.jsonl"))


def test_the_api_takes_every_field_of_the_request():
    import inspect

    from tabletop import api
    from tabletop.app.requests import CalibrateRequest, request_fields

    params, fields = set(inspect.signature(api.calibrate).parameters), set(request_fields(CalibrateRequest))
    assert fields <= params and params - fields == {"set", "progress"}


def test_the_command_wants_its_tallies(capsys):
    from tabletop.cli import main

    assert main(["calibrate", "kong-knockover"]) == 2
    assert "--observed" in capsys.readouterr().err


def test_a_measured_name_the_device_lacks_is_one_line(tmp_path, capsys):
    from tabletop.cli import main

    path = tmp_path / "t.csv"
    path.write_text("standing,3\n")
    assert main(["calibrate", "kong-knockover", "--observed", str(path), "--quiet",
                 "--measured", "materials.pairs.glass/felt.friction=0.3+-0.01"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not an uncertain value" in err


def test_a_label_the_model_never_reaches_is_one_line(tmp_path, capsys, monkeypatch):
    """The training trials (here stood in for: every one "standing") never reach a tallied label."""
    from tabletop.cli import main
    from tabletop.sim import batch

    def standing_only(ref, trials, seed, workers=1, *, skip=(), on_chunk=None, progress=None, perturb=None, **kw):
        rng = np.random.default_rng(seed)
        records = [{"index": i, "label": "standing", "status": "ok", "group": None, "sim_time": 1.0, "steps": 1,
                    "drawn": {f"materials.pairs.{p}.{f}": float(rng.random()) for p in perturb.pairs
                              for f in ("friction", "restitution", "rolling", "spinning")}}
                   for i in range(trials) if i not in set(skip)]
        if on_chunk:
            on_chunk(records)
        return records

    monkeypatch.setattr(batch, "run_batch", standing_only)
    path = tmp_path / "t.csv"
    path.write_text("standing,30\npushed,2\n")
    assert main(["calibrate", "kong-knockover", "--observed", str(path), "--quiet", "--trials", "60"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "never reaches" in err and "pushed" in err, err


# -- the method on synthetic models ---------------------------------------------------------------
def test_pinned_draws_keep_the_prior_stream_and_pin_the_named_values(materials):
    from tabletop.sim.batch import PairDraws

    base = materials.pairs
    key = next(iter(base.pairs))
    name = f"materials.pairs.{key}.friction"

    class FakeWorld:
        def set_pair_table(self, table):
            self.table = table

    world = FakeWorld()
    drawn = PairDraws((key,)).apply(world, base, 5, 3)
    pinned = PairDraws((key,), ((name, 0.123),)).apply(world, base, 5, 3)
    assert pinned[name] == 0.123 and world.table.pairs[key].friction.value == 0.123
    assert {k: v for k, v in pinned.items() if k != name} == {k: v for k, v in drawn.items() if k != name}


def test_posterior_draws_give_each_trial_one_row(materials):
    base = materials.pairs
    key = next(iter(base.pairs))
    name = f"materials.pairs.{key}.friction"

    class FakeWorld:
        def set_pair_table(self, table):
            self.table = table

    rows = ((0.31,), (0.42,), (0.53,))
    perturb = cal.PosteriorDraws((key,), (name,), rows)
    got = [perturb.apply(FakeWorld(), base, 9, i)[name] for i in range(60)]
    assert set(got) == {0.31, 0.42, 0.53}
    assert got == [perturb.apply(FakeWorld(), base, 9, i)[name] for i in range(60)]


def test_the_surrogate_recovers_a_known_model():
    rng = np.random.default_rng(1)
    theta = rng.uniform(LOW, HIGH, (8000, 1))
    s = cal.SplineSurrogate.fit(LABELS, [LOW], [HIGH], theta, draw_labels(true_p, theta, rng))
    grid = np.linspace(LOW + 0.01, HIGH - 0.01, 101)[:, None]
    err = np.abs(s.predict(grid) - true_p(grid))
    assert err.max() < 0.05 and np.sqrt((err ** 2).mean()) < 0.02, (err.max(), s.penalty)
    again = cal.SplineSurrogate.from_dict(json.loads(json.dumps(s.as_dict())))
    assert np.allclose(again.predict(grid), s.predict(grid))


def test_the_surrogate_recovers_a_known_two_parameter_model():
    rng = np.random.default_rng(2)
    theta = np.column_stack([rng.uniform(LOW, HIGH, 6000), rng.uniform(0, 1, 6000)])
    s = cal.SplineSurrogate.fit(LABELS, [LOW, 0.0], [HIGH, 1.0], theta, draw_labels(true_p2, theta, rng))
    test = np.column_stack([rng.uniform(LOW, HIGH, 500), rng.uniform(0, 1, 500)])
    err = np.abs(s.predict(test) - true_p2(test))
    assert np.sqrt((err ** 2).mean()) < 0.025, err.max()


def test_each_parameter_gets_its_own_smoothing():
    """A value whose odds jump (the knock-over's shape, its rise 0.02 wide) beside three that do
    nothing, 2,000 trials as a calibration has: the jump keeps a lighter penalty than the values
    that do nothing, and the fit follows the jump (one penalty for all smoothed it away)."""
    rng = np.random.default_rng(5)
    n = 2000
    theta = np.column_stack([rng.uniform(LOW, HIGH, n)] + [rng.uniform(0, 1, n) for _ in range(3)])
    y = draw_labels(true_p, theta[:, :1], rng)
    s = cal.SplineSurrogate.fit(LABELS, [LOW, 0, 0, 0], [HIGH, 1, 1, 1], theta, y)
    assert s.penalty[0] < min(s.penalty[1:]), s.penalty
    grid = np.column_stack([np.linspace(0.45, 0.55, 21)] + [np.full(21, 0.5)] * 3)
    err = np.abs(s.predict(grid) - true_p(grid[:, :1]))
    assert err.max() < 0.1, err.max()
    one = cal.SplineSurrogate.fit(LABELS, [LOW, 0, 0, 0], [HIGH, 1, 1, 1], theta, y, penalty=max(s.penalty))
    assert np.abs(one.predict(grid) - true_p(grid[:, :1])).max() > err.max()


def test_a_label_never_seen_in_training_gets_probability_zero():
    rng = np.random.default_rng(3)
    theta = rng.uniform(LOW, HIGH, (300, 1))
    y = (theta[:, 0] > 0.45).astype(int)    # standing or knocked, never pushed
    s = cal.SplineSurrogate.fit(LABELS, [LOW], [HIGH], theta, y)
    p = s.predict(np.array([[0.35], [0.5]]))
    assert np.all(p[:, 2] == 0) and np.allclose(p.sum(axis=1), 1)
    assert p[0, 0] > 0.8 and p[1, 1] > 0.8


def test_the_parameter_that_matters_is_chosen():
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, (2000, 4))
    theta = LOW + x[:, [2]] * (HIGH - LOW)
    y = draw_labels(true_p, theta, rng)
    assert cal.select_parameters(["a", "b", "c", "d"], x, y, 3) == ["c"]


def test_the_other_values_of_a_chosen_values_pair_are_fitted_too():
    """A copy has one value of each of its pair's fields: the ones too weak to detect are fitted
    beside the one that matters (nuisance values of the posterior), strongest first; another
    pair's values are not."""
    rng = np.random.default_rng(4)
    names = ["materials.pairs.a/b.friction", "materials.pairs.a/b.rolling", "materials.pairs.c/d.friction",
             "materials.pairs.a/b.spinning"]
    x = rng.uniform(0, 1, (2000, 4))
    y = draw_labels(true_p, LOW + x[:, [1]] * (HIGH - LOW), rng)
    chosen = cal.select_parameters(names, x, y, 3)
    assert chosen[0] == "materials.pairs.a/b.rolling"
    assert sorted(chosen[1:]) == ["materials.pairs.a/b.friction", "materials.pairs.a/b.spinning"]
    assert cal.select_parameters(names, x, y, 3, total=2)[0] == "materials.pairs.a/b.rolling"
    assert len(cal.select_parameters(names, x, y, 3, total=2)) == 2


def grid_posterior(proba, counts, prior: cal.Prior):
    grid = np.linspace(prior.low, prior.high, 20001)
    logp = cal.log_likelihood(counts, proba(grid[:, None])) + prior.logpdf(grid)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    cdf = np.cumsum(w)
    mean = float((grid * w).sum())
    return {"mean": mean, "sd": float(np.sqrt(((grid - mean) ** 2 * w).sum())),
            "q": [float(np.interp(q, cdf, grid)) for q in (0.025, 0.5, 0.975)]}


@pytest.mark.parametrize("counts, prior", [
    ([130, 55, 115], cal.Prior("f", LOW, HIGH)),                  # on the plateau: broad, with its bump
    ([130, 120, 50], cal.Prior("f", LOW, HIGH)),                  # on the steep rise: narrow
    ([130, 55, 115], cal.Prior("f", LOW, HIGH, 0.40, 0.02)),      # a measured friction
])
def test_the_posterior_matches_the_grid(counts, prior):
    post = cal.sample_posterior(true_p, counts, [prior], seed=11, walkers=64, steps=3000, burn=750)
    exact = grid_posterior(true_p, np.array(counts), prior)
    s = post.samples[:, 0]
    grid = np.linspace(prior.low, prior.high, 20001)
    lp = cal.log_likelihood(np.array(counts), true_p(grid[:, None])) + prior.logpdf(grid)
    w = np.exp(lp - lp.max())
    plateau = float(w[grid < 0.44].sum() / w.sum())
    assert abs((s < 0.44).mean() - plateau) < 0.01 + 0.1 * plateau, ((s < 0.44).mean(), plateau)
    se = exact["sd"] / np.sqrt(post.effective_size())
    assert abs(s.mean() - exact["mean"]) < 5 * se + 1e-4, (s.mean(), exact, post.effective_size())
    assert abs(s.std() - exact["sd"]) < 0.1 * exact["sd"]
    got = np.percentile(s, [2.5, 50, 97.5])
    assert np.allclose(got, exact["q"], atol=max(0.15 * exact["sd"], 1e-3)), (got, exact["q"])


def test_the_pooled_bands_of_one_surrogate_are_its_posterior_predictive():
    draws, probs, chains = cal.pooled_posterior([true_p], [30, 30, 40], [cal.Prior("f", LOW, HIGH)], seed=2,
                                                steps=800, burn=200)
    assert np.allclose(probs, true_p(draws))
    band = cal.label_bands(LABELS, probs)
    assert all(b["ci95"][0] <= b["p"] <= b["ci95"][1] for b in band.values())
    assert abs(sum(b["p"] for b in band.values()) - 1) < 1e-9 and len(chains) == 1


@pytest.mark.long
def test_simulation_based_calibration_gives_uniform_ranks():
    """200 synthetic calibrations (100 tallies each): ranks of the true friction among 99
    posterior draws are uniform (chi-square over 10 bins, p >= 0.01)."""
    started = time.perf_counter()
    out = cal.sbc(true_p, [cal.Prior("f", LOW, HIGH)], n_obs=100, reps=200, seed=7, steps=500, burn=150)
    p = out["parameters"][0]["p_value"]
    print(f"SBC: histogram {out['parameters'][0]['histogram']}, p {p:.3f}, {time.perf_counter() - started:.1f} s")
    assert p >= 0.01


@pytest.mark.long
def test_simulation_based_calibration_through_a_fitted_surrogate():
    """The same with the posterior taken under a surrogate fitted to 20,000 synthetic trials while
    the tallies come from the true model: the surrogate's error does not spoil the calibration."""
    rng = np.random.default_rng(8)
    theta = rng.uniform(LOW, HIGH, (20000, 1))
    s = cal.SplineSurrogate.fit(LABELS, [LOW], [HIGH], theta, draw_labels(true_p, theta, rng))
    prior = cal.Prior("f", LOW, HIGH)
    ranks = []
    for _ in range(200):
        t = prior.sample(rng, 1)[0]
        tallies = rng.multinomial(100, true_p([[t]])[0])
        post = cal.sample_posterior(s.predict, tallies, [prior], int(rng.integers(2 ** 32)), 16, 500, 150)
        ranks.append(int((post.samples[rng.choice(len(post.samples), 99, replace=False), 0] < t).sum()))
    from scipy.stats import chisquare

    hist = np.bincount(np.array(ranks) * 10 // 100, minlength=10)
    print(f"SBC through the surrogate: histogram {hist.tolist()}, p {chisquare(hist).pvalue:.3f}")
    assert chisquare(hist).pvalue >= 0.01, hist


# -- with physics -----------------------------------------------------------------------------------
@pytest.mark.long
def test_knockover_recovery(tmp_path):
    """The issue's must-hold: 300 moves simulated with the pawn-on-board friction at 0.51 (inside
    [0.30, 0.55], not the default 0.40, where the fates change fastest with it) calibrate to a 95%
    interval holding 0.51, and the band of "knocked" is at least 3 times narrower than the prior
    band."""
    from tabletop.app.calibrate import calibrate
    from tabletop.gamekit.chance import load_calibration
    from tabletop.app.estimate import estimate
    from tabletop.app.requests import CalibrateRequest, EstimateRequest

    name, TRUE = "materials.pairs.cardboard/pawn.friction", 0.51
    started = time.perf_counter()
    tallies = estimate(EstimateRequest(device="kong-knockover", trials=300, seed=7, overrides=(f"{name}={TRUE}",)))
    observed = tmp_path / "tallies.json"
    observed.write_text(json.dumps({"counts": tallies.counts}))
    out = tmp_path / "calib.json"
    result = calibrate(CalibrateRequest(device="kong-knockover", observed=observed, seed=1, out=out))
    elapsed = time.perf_counter() - started
    post = result.parameters[name]["posterior"]
    knocked = result.bands["knocked"]
    print(f"recovery: {name} {TRUE} -> {post['mean']:.3f} [{post['ci95'][0]:.3f}, {post['ci95'][1]:.3f}]; knocked "
          f"prior band {knocked['prior']['ci95']}, posterior band {knocked['posterior']['ci95']}, "
          f"{result['band_narrowing']['knocked']:.1f}x narrower; held-out max |error| "
          f"{result['holdout']['max_abs_error']:.3f}; {elapsed:.0f} s")
    assert post["ci95"][0] <= TRUE <= post["ci95"][1]
    assert result["band_narrowing"]["knocked"] >= 3
    data = load_calibration(out)
    assert data["posterior_draws"]["names"][0] == name and data["observed"] == tallies.counts


@pytest.mark.slow
def test_ctrl_c_keeps_the_trials_and_resume_gives_the_same_calibration(tmp_path, monkeypatch):
    """Ctrl-C after the training trials keeps them in the checkpoint beside --out; --resume runs
    none of them again and gives the calibration an uninterrupted run gives."""
    from tabletop.app import longrun
    from tabletop.app.calibrate import calibrate
    from tabletop.app.requests import CalibrateRequest
    from tabletop.sim.checkpoint import checkpoint_path

    observed = tmp_path / "t.csv"
    observed.write_text("standing,30\nknocked,10\npushed,20\n")
    small = dict(device="kong-knockover", observed=observed, trials=60, holdout_points=1, holdout_trials=8,
                 bootstrap=0, steps=300, walkers=16, seed=3)
    whole = calibrate(CalibrateRequest(**small)).to_dict()

    out = tmp_path / "calib.json"
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cal.SplineSurrogate, "fit", interrupted)
    with pytest.raises(longrun.Interrupted) as caught:
        calibrate(CalibrateRequest(**small, out=out))
    assert caught.value.done == 60 and checkpoint_path(out).exists() and not out.exists()
    monkeypatch.undo()
    resumed = calibrate(CalibrateRequest(**small, out=out, resume=True)).to_dict()
    assert not checkpoint_path(out).exists() and out.exists()
    for key in ("parameters", "labels", "holdout", "training"):
        assert resumed[key] == whole[key], key
    from tabletop.gamekit.chance import calibrated_draws

    perturb = calibrated_draws(out, resumed["training"]["pairs"])
    assert perturb.names == tuple(p["name"] for p in resumed["parameters"]) and len(perturb.rows) <= 2000
    with pytest.raises(InputError, match="not a value of this device's world"):
        calibrated_draws(out, ["glass/felt"])


# -- what to measure next, and joint calibration -----------------------------------------------------
def direct_widths(proba, prior: cal.Prior, simulate, sims: int, rng) -> np.ndarray:
    """The expected band widths after a measurement, each simulated result's posterior computed on
    a grid (`simulate(t, rng)` -> the log likelihood on the grid of a result drawn as if t were true)."""
    grid = np.linspace(prior.low, prior.high, 4001)
    p = proba(grid[:, None])
    widths = np.zeros(p.shape[1])
    for _ in range(sims):
        lw = simulate(prior.sample(rng, 1)[0], rng, grid)
        w = np.exp(lw - lw.max())
        for k in range(p.shape[1]):
            order = np.argsort(p[:, k])
            cw = np.cumsum(w[order]) / w.sum()
            lo, hi = np.searchsorted(cw, [0.025, 0.975])
            widths[k] += p[order[min(hi, len(grid) - 1)], k] - p[order[min(lo, len(grid) - 1)], k]
    return widths / sims


@pytest.mark.parametrize("what", ["tallies", "incline"])
def test_the_plans_expected_bands_match_posteriors_computed_on_a_grid(what):
    """--plan's preposterior analysis (importance reweighting of draws) against the same expectation
    with each simulated result's posterior computed on a grid: 100 more tallies, or an incline test
    of the friction (+-0.03)."""
    rng = np.random.default_rng(21)
    prior = cal.Prior("f", LOW, HIGH)
    theta = prior.sample(rng, 20000)[:, None]
    probs = true_p(theta)
    if what == "tallies":
        weights = cal.tally_weights(probs, slice(0, 3), 100)

        def simulate(t, rng, grid):
            return cal.log_likelihood(rng.multinomial(100, true_p([[t]])[0]), true_p(grid[:, None]))
    else:
        test = cal.HOME_TESTS["friction"]
        weights = cal.home_test_weights(theta, 0, test)

        def simulate(t, rng, grid):
            return -0.5 * ((grid - (t + rng.normal(0, test.sd))) / test.sd) ** 2
    planned = np.asarray(cal.expected_bands(theta, probs, weights, 300, seed=5)["widths"])
    direct = direct_widths(true_p, prior, simulate, 300, np.random.default_rng(6))
    now = cal.current_widths(probs)
    assert np.all(planned < now) and np.allclose(planned, direct, rtol=0.15, atol=0.005), (planned, direct, now)


def test_a_test_of_a_value_that_does_not_matter_narrows_nothing():
    rng = np.random.default_rng(22)
    theta = np.column_stack([rng.uniform(LOW, HIGH, 20000), rng.uniform(0.2, 0.8, 20000)])
    probs = true_p(theta[:, :1])            # the second value changes no label
    test = cal.HOME_TESTS["restitution"]
    now = cal.current_widths(probs).mean()
    useless = np.mean(cal.expected_bands(theta, probs, cal.home_test_weights(theta, 1, test), 200, 1)["widths"])
    useful = np.mean(cal.expected_bands(theta, probs, cal.home_test_weights(theta, 0, test), 200, 1)["widths"])
    assert abs(useless / now - 1) < 0.05 and now / useful > 1.5, (now, useless, useful)


SHARED = "materials.pairs.cardboard/polystyrene.friction"


def fake_device_trials(monkeypatch):
    """Stand in for the die's and the spinner's physics: labels drawn from a known model in which
    only the pair value SHARED (cardboard on polystyrene, both devices') matters."""
    from tabletop.sim import batch

    def model(device: str, f: np.ndarray) -> tuple[list[str], np.ndarray]:
        u = (f - 0.30) / 0.25
        labels = [str(k) for k in range(1, 7)] if device == "die" else ["L1", "L2", "R1", "R2", "LR1", "LR2", "UP"]
        slope = np.linspace(-2.5, 2.5, len(labels)) * (1 if device == "die" else -1)
        eta = np.outer(u, slope)
        e = np.exp(eta - eta.max(axis=1, keepdims=True))
        return labels, e / e.sum(axis=1, keepdims=True)

    def trials(ref, n, seed, workers=1, *, skip=(), on_chunk=None, progress=None, perturb=None, **kw):
        device = ref.args[0]
        rng = np.random.default_rng([seed, 77])
        records = []
        for i in range(n):
            drawn = {f"materials.pairs.{p}.{f}": float(rng.uniform(0.3, 0.55) if f == "friction" else rng.random())
                     for p in perturb.pairs for f in ("friction", "restitution", "rolling", "spinning")}
            drawn.update(dict(perturb.pinned))
            labels, p = model(device, np.array([drawn[SHARED]]))
            label = labels[int(rng.choice(len(labels), p=p[0]))]
            if i not in set(skip):
                records.append({"index": i, "label": label, "status": "ok", "group": None, "sim_time": 1.0,
                                "steps": 1, "drawn": drawn})
        if on_chunk:
            on_chunk(records)
        return records

    monkeypatch.setattr(batch, "run_batch", trials)
    return model


def test_a_joint_calibration_lets_one_devices_tallies_narrow_the_others_band(tmp_path, monkeypatch):
    """The die and the spinner share the cardboard-on-polystyrene pair: 400 die tallies and 20
    spinner tallies at friction 0.50 calibrated together narrow the spinner's bands far more than
    its 20 tallies alone, and the friction's interval holds 0.50."""
    from tabletop.app.calibrate import calibrate
    from tabletop.gamekit.chance import calibrated_tables
    from tabletop.app.requests import CalibrateRequest

    model = fake_device_trials(monkeypatch)
    rng = np.random.default_rng(3)
    for device, n in (("die", 400), ("spinner", 20)):
        labels, p = model(device, np.array([0.50]))
        (tmp_path / f"{device}.csv").write_text("".join(f"{k},{c}\n" for k, c in zip(labels, rng.multinomial(n, p[0]))))
    small = dict(trials=1500, holdout_points=0, bootstrap=0, steps=600, walkers=16, seed=2, fit=(SHARED,))
    alone = calibrate(CalibrateRequest(device="spinner", observed=tmp_path / "spinner.csv", **small)).to_dict()
    out = tmp_path / "joint.json"
    joint = calibrate(CalibrateRequest(device="die", observed=tmp_path / "die.csv",
                                       joint=(f"spinner={tmp_path / 'spinner.csv'}",), out=out, **small)).to_dict()
    assert joint["devices"] == ["die", "spinner"] and joint["joint"][0]["device"] == "spinner"
    post = joint["parameters"][0]["posterior"]
    assert joint["parameters"][0]["devices"] == ["die", "spinner"] and post["ci95"][0] <= 0.50 <= post["ci95"][1]
    spinner = joint["joint"][0]
    for k in ("L1", "UP"):
        w_alone = np.diff(alone["labels"][k]["posterior"]["ci95"])[0]
        w_joint = np.diff(spinner["labels"][k]["posterior"]["ci95"])[0]
        assert w_joint < w_alone / 2, (k, w_alone, w_joint)
    tables = calibrated_tables(out)
    assert set(tables) == {"die", "spinner"} and abs(sum(tables["spinner"].values()) - 1) < 1e-9


def test_a_plan_before_any_tally_ranks_the_measurements(tmp_path, monkeypatch):
    """`calibrate die --joint spinner --plan` with no tallies at all: the bands are the prior's; the
    incline test of the friction that decides both devices' odds beats the drop test of a
    restitution that decides nothing; the options come best first."""
    from tabletop.app.calibrate import calibrate, describe
    from tabletop.app.requests import CalibrateRequest

    fake_device_trials(monkeypatch)
    result = calibrate(CalibrateRequest(device="die", joint=("spinner",), plan=True, budget=200, trials=1500,
                                        holdout_points=0, bootstrap=0, seed=4,
                                        fit=(SHARED, "materials.pairs.cardboard/polystyrene.restitution")))
    plan = result["plan"]
    kinds = {o["kind"]: o for o in plan["options"]}
    assert [o["mean_width"] for o in plan["options"]] == sorted(o["mean_width"] for o in plan["options"])
    assert {"tallies", "incline", "drop"} <= set(kinds) and len(plan["options"]) == 4
    assert kinds["incline"]["narrowing"] > 2 and abs(kinds["drop"]["narrowing"] - 1) < 0.1, plan["options"]
    assert result["predictive"] == {} and result["mcmc"]["chains"] == 0
    text = "\n".join(describe(result))
    assert "what to measure next" in text and "no tallies yet" in text


@pytest.mark.parametrize("argv, message", [
    (["--joint", "tipper=t.csv"], "shares no material pair"),
    (["--joint", "spinner"], "DEVICE=FILE"),
    (["--joint", "die=t.csv"], "already in the calibration"),
    (["--joint", "wobbler=t.csv"], "unknown device"),
])
def test_a_bad_joint_device_is_one_line(tmp_path, capsys, monkeypatch, argv, message):
    from tabletop.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("1,3\n")
    assert main(["calibrate", "die", "--observed", "t.csv", "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
