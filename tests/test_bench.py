"""`tabletop bench`'s figures: the trials' own steps timed inside the trials, beside a separate loop."""
import pytest

from tabletop.gamekit.devices import make_device
from tabletop.sim.bench import bench_device


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
