"""`bench`: each device's trials per second at its spec's settings, at the converged numerics frozen
on 2026-12-06 and at the old 1/480 s, 50 iterations, beside a bare PyBullet loop run in the same
process (and the 1 vs 2 workers vs Dask scaling), or with `rules` the rules' speed: whole games with
table chance per CPU second."""
from __future__ import annotations

from tabletop.app import longrun
from tabletop.app.requests import BenchRequest
from tabletop.app.results import BenchResult

DEVICE_NOTE = ("new: the spec's settings; converged: the converged numerics frozen on 2026-12-06 and the "
               "code's switches as they were then (tabletop.sim.bench CONVERGED_2026_12 and _BEHAVIOUR; where "
               "neither has changed, new/conv is 1.0 within the run-to-run noise); at 1/480: the same with "
               "the old step and iterations (1/480 s, 50), where the converged step is finer; the three "
               "interleaved over the same trials; bare: the new trials' own steps alone; to bare: new over "
               "bare; every figure, and a separate bare loop from the start pose, is in the JSON of --out")


def bench(request: BenchRequest, reporter: longrun.Reporter | None = None) -> BenchResult:
    """The figures; each line as it is measured to `reporter.step`; --out written at the end."""
    reporter = reporter or longrun.Reporter()
    longrun.check_outputs(out=request.out)
    result = _rules(request, reporter) if request.rules else _devices(request, reporter)
    return longrun.finish(result, request.out, None, None, None, reporter)


def _devices(request: BenchRequest, reporter) -> BenchResult:
    from tabletop.gamekit.devices import DEVICES, default_spec, device_ref, entry, make_device
    from tabletop.sim.bench import (CONVERGED_2026_12, CONVERGED_2026_12_BEHAVIOUR, LEGACY, bench_devices,
                                    bench_scaling, converged_timestep, speed_ratios, summary_rows)
    from tabletop.sim.errors import InputError
    from tabletop.sim.spec import load_toml
    from tabletop.sim.world import engine_versions

    names = list(request.devices or DEVICES)
    for name in names:
        entry(name)
    figures = {"versions": engine_versions(), "devices": {}}
    trials = request.trials or (20 if request.quick else 100)
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        reporter.step(line)

    for name in names:
        def build(overrides, name=name):
            return make_device(name, overrides=overrides)

        # the spec (new); the converged numerics frozen on 2026-12-06 with the code's switches as they
        # were then; the old step and iterations (1/480 s, 50) on those, where the converged step is
        # finer. The three run interleaved over the same trials (tabletop.sim.bench.bench_devices)
        frozen = CONVERGED_2026_12.get(name)
        behaviour = CONVERGED_2026_12_BEHAVIOUR.get(name)
        runs = {"new": ((), None)}
        if frozen is not None:
            runs["converged"] = (frozen, behaviour)
        step = converged_timestep(name)
        if step is None:
            step = load_toml(default_spec(name)).table("physics").number("timestep")
        if step < 1.0 / 480.0 - 1e-12:
            runs["legacy"] = ((*(frozen or ()), *LEGACY), behaviour)
        got = bench_devices(build, trials, runs)
        if "missing" in got["new"]:
            raise InputError(f"{name}: {got['new']['missing']}")
        figures["devices"][name] = fig = got["new"]
        fig["converged"] = got.get("converged", {"missing": "no converged numerics recorded for this device"})
        if "legacy" in got:
            fig["legacy"] = got["legacy"]
        fig["ratios"] = speed_ratios(fig)
        sep = fig["separate_loop"]
        say(f"{name} (new: its spec): {fig['trials_per_s']:.2f} trials/s, its own steps bare "
            f"{fig['bare_trials_per_s']:.2f} trials/s, ratio {fig['ratio_vs_bare']:.3f} ({fig['steps']} steps, "
            f"{fig['us_per_step']:.1f} us/step); a separate bare loop from the start pose "
            f"{sep['bare_trials_per_s']:.2f} trials/s, ratio {sep['ratio_vs_bare']:.3f}")
        for key, what in (("converged", "at its converged numerics of 2026-12-06"),
                          ("legacy", "at 1/480 s, 50 iterations")):
            other = fig.get(key)
            if other is None or (key == "converged" and frozen is None):
                continue
            if "missing" in other:
                say(f"{name} {what}: cannot run ({other['missing']})")
            else:
                say(f"{name} {what}: {other['trials_per_s']:.2f} trials/s (new is "
                    f"{fig['trials_per_s'] / other['trials_per_s']:.2f} of that), ratio to its bare loop "
                    f"{other['ratio_vs_bare']:.3f}")
    if not request.quick:
        figures["scaling"] = sc = bench_scaling(device_ref("crater", default_spec("crater")), "crater",
                                                request.scaling_trials)
        say(f"scaling, {sc['trials']} crater trials: 1 worker {sc['local_1_s']:.1f} s, 2 workers "
            f"{sc['local_2_s']:.1f} s (x{sc['speedup_2_vs_1']:.2f})"
            + (f", Dask 2 workers {sc['dask_2_s']:.1f} s ({sc['dask_vs_local_2']:.2f} of local)"
               if "dask_2_s" in sc else ", Dask not installed"))
    title = (f"bench: trials per second ({trials} trials per device) at the spec's settings (new), the "
             f"converged ones of 2026-12-06 and 1/480 s, and the bare PyBullet loop of the new trials' steps")
    return BenchResult(figures, lines, (title, *summary_rows(figures), DEVICE_NOTE))


def _rules(request: BenchRequest, reporter) -> BenchResult:
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.rules_bench import bench_rules

    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        reporter.step(line)

    figures = bench_rules(GAMES.values(), request.rules_games or (30 if request.quick else 300), request.rules_seats,
                          emit=say, problems=GAMES.problems())
    rows = [[name, f"{fig['games_per_s']:.1f}", f"{fig['decisions_per_s']:.0f}",
             f"{fig['chance_events_per_s']:.0f}", f"{fig['decisions_per_game']:.1f}",
             f"{fig['chance_events_per_game']:.1f}"] for name, fig in figures["games"].items()]
    games = {name: fig["games"] for name, fig in figures["games"].items()}
    summary = (f"bench --rules: games with table chance, {request.rules_seats} seats, per CPU second",
               ["game", "games/s", "decisions\nper s", "chance\nevents\nper s", "decisions\nper game",
                "chance\nevents\nper game"], rows,
               f"games played: {', '.join(f'{n} {k}' for n, k in games.items())} (a match of several "
               f"games counts as one)"
               + "".join(f"; {name} not benched: {why}" for name, why in figures["not_benched"].items())
               + "; every figure is in the JSON of --out")
    return BenchResult(figures, lines, summary)
