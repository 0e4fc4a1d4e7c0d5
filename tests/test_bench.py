"""`tabletop bench`'s figures: the trials' own steps timed inside the trials, beside a separate loop."""
import pytest

from tabletop.gamekit.devices import make_device
from tabletop.sim.bench import bench_device, bench_devices


@pytest.mark.parametrize("name", ["die", "spinner"])
def test_bench_times_the_trials_own_steps(name):
    fig = bench_device(lambda overrides: make_device(name, overrides=overrides), 3)
    assert fig["steps"] > 0 and fig["trials"] == 3
    # the stepping is part of the trials' time, and most of it for a device whose Python work is small
    assert 0.0 < fig["bare_s"] < fig["device_s"]
    assert fig["ratio_vs_bare"] == pytest.approx(fig["bare_s"] / fig["device_s"])
    assert fig["bare_trials_per_s"] > fig["trials_per_s"]
    sep = fig["separate_loop"]
    assert sep["bare_s"] > 0.0 and sep["restarted_each_trial"] == (name == "spinner")


def test_bench_reports_new_converged_and_legacy_speeds_with_their_ratios(tmp_path):
    """One `tabletop bench` run of the die: its trials/s at its spec (new), at the converged numerics
    frozen in CONVERGED_2026_12 and at the old 1/480 s, 50 iterations, each with the overrides it ran
    at, the ratios between them, and the bare loop, in the JSON of --out and in the table."""
    import json

    from tabletop.app.bench import bench
    from tabletop.app.requests import BenchRequest
    from tabletop.sim.bench import CONVERGED_2026_12, LEGACY

    out = tmp_path / "bench.json"
    result = bench(BenchRequest(trials=2, devices=("die",), quick=True, out=out))
    fig = json.loads(out.read_text())["devices"]["die"]
    new, conv, old = fig, fig["converged"], fig["legacy"]
    assert new["overrides"] == {}
    assert conv["overrides"] == dict(CONVERGED_2026_12["die"])
    assert old["overrides"] == dict(CONVERGED_2026_12["die"]) | dict(LEGACY)
    for run in (new, conv, old):
        assert run["trials"] == 2 and run["steps"] > 0 and run["trials_per_s"] > 0.0
        assert run["bare_trials_per_s"] > run["trials_per_s"]
    # the old step is twice the die's: the same two throws take about half the steps
    assert old["steps"] < 0.75 * new["steps"]
    assert fig["ratios"]["new_vs_converged"] == pytest.approx(new["trials_per_s"] / conv["trials_per_s"])
    assert fig["ratios"]["new_vs_legacy"] == pytest.approx(new["trials_per_s"] / old["trials_per_s"])
    title, columns, rows, note = result.summary
    assert len(columns) == 8 and rows[0][0] == "die"
    assert rows[0][1:6] == [f"{new['trials_per_s']:.1f}", f"{conv['trials_per_s']:.1f}", f"{old['trials_per_s']:.1f}",
                            f"{fig['ratios']['new_vs_converged']:.2f}", f"{fig['ratios']['new_vs_legacy']:.2f}"]


def test_bench_table_marks_a_speed_not_measured():
    """A device with no converged numerics recorded and a step coarser than 1/480 s shows "-" for
    both, not a number."""
    from tabletop.sim.bench import summary_rows

    fig = {"trials_per_s": 10.0, "bare_trials_per_s": 11.0, "ratio_vs_bare": 0.9,
           "converged": {"missing": "no converged numerics recorded for this device"}}
    columns, rows = summary_rows({"devices": {"gadget": fig}})
    assert rows == [["gadget", "10.0", "-", "-", "-", "-", "11.0", "0.90"]]


def test_converged_numerics_are_frozen_for_every_device_of_tabletop():
    """Every device tabletop registers has its converged numerics recorded, with a time step and
    solver iterations, so that bench compares it after its spec changes."""
    from tabletop.gamekit.devices import DEVICES
    from tabletop.sim.bench import CONVERGED_2026_12, converged_timestep

    own = [n for n, e in DEVICES.items() if e.target.startswith("tabletop.")]
    assert set(own) <= set(CONVERGED_2026_12)
    for name in own:
        keys = dict(CONVERGED_2026_12[name])
        assert converged_timestep(name) > 0.0 and int(keys["physics.solver_iterations"]) >= 1


def test_bench_sets_a_devices_switches_for_a_run_and_refuses_one_it_lacks():
    """CONVERGED_2026_12_BEHAVIOUR's attributes are set on the device built for the run (here the
    die's settle rule, with a hold three times as long: its throws end later), and a name the device
    lacks stops the run with a line that says where the name comes from, rather than running the
    device as it is now."""
    from dataclasses import replace

    from tabletop.sim.bench import CONVERGED_2026_12_BEHAVIOUR
    from tabletop.sim.errors import InputError

    def build(overrides):
        return make_device("die", overrides=overrides)

    rule = build(()).settle
    longer = replace(rule, hold=rule.hold * 3)     # 0.2 s more at 1/960 s: 192 steps more a throw
    as_spec = bench_device(build, 2)
    fig = bench_device(build, 2, attributes={"settle": longer})
    assert fig["steps"] > as_spec["steps"] + 300 and fig["attributes"] == {"settle": longer}
    with pytest.raises(InputError, match="CONVERGED_2026_12_BEHAVIOUR"):
        bench_device(build, 1, attributes={"no_such_switch": False})
    # run beside others, the refused run is reported and the others are measured
    both = bench_devices(build, 2, {"ok": ((), None), "refused": ((), {"no_such_switch": False})})
    assert both["ok"]["trials"] == 2 and "no_such_switch" in both["refused"]["missing"]
    assert CONVERGED_2026_12_BEHAVIOUR["crater"] == {"end_when_decided": False, "substeps": False}
