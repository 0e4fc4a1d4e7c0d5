"""Estimates on a Dask cluster give the same counts as local processes and one process."""
from __future__ import annotations

import json

import pytest

from tabletop.cli import main

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as lc:
        yield lc.scheduler_address


@pytest.mark.slow
def test_dask_counts_equal_local_counts(tmp_path, cluster):
    runs = {}
    for name, extra in (("one", []), ("two", ["--workers", "2"]), ("dask", ["--scheduler", cluster])):
        out = tmp_path / f"{name}.json"
        assert main(["estimate", "tipper", "--trials", "16", "--seed", "8", "--quiet", "--out", str(out), *extra]) == 0
        runs[name] = json.loads(out.read_text())
    assert runs["one"]["counts"] == runs["two"]["counts"] == runs["dask"]["counts"]
    assert runs["one"]["steps"] == runs["dask"]["steps"]
    assert runs["dask"]["scheduler"] == cluster


def test_a_malformed_scheduler_address_is_one_line(tmp_path, capsys):
    assert main(["estimate", "tipper", "--trials", "4", "--scheduler", "nonsense", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "--scheduler: expected tcp://HOST:PORT, got 'nonsense'" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch):
    import functools

    from tabletop.sim import batch

    # the connection is refused at once; Dask retries it until its timeout (10 s by default)
    monkeypatch.setattr(batch, "dask_executor", functools.partial(batch.dask_executor, timeout=2.0))
    out = tmp_path / "x.json"
    assert main(["estimate", "tipper", "--trials", "4", "--scheduler", "tcp://127.0.0.1:9", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
