"""A real Dask cluster, started the way the README tells users to: `dask scheduler` and `dask worker`
as separate processes (here on loopback, one worker process with one thread, no dashboard), and an
estimate run on it with `--scheduler` gives the counts of a local run. tests/test_dask.py covers the
same through a LocalCluster inside the test process."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("distributed")

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _dask(*args, cwd) -> subprocess.Popen:
    """`dask ARGS` with this interpreter (its tabletop is the one under test), in its own process
    group so that the teardown reaches the worker's nanny and the worker process it spawns."""
    return subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def cluster(tmp_path):
    """tcp://127.0.0.1:PORT of a scheduler with one worker attached; both stopped afterwards, also
    when the test (or the start) fails."""
    from distributed import Client

    port = _free_port()
    address = f"tcp://{HOST}:{port}"
    procs = []
    try:
        procs.append(_dask("scheduler", "--host", HOST, "--port", str(port), "--no-dashboard", cwd=tmp_path))
        procs.append(_dask("worker", address, "--host", HOST, "--nworkers", "1", "--nthreads", "1",
                           "--no-dashboard", cwd=tmp_path))
        deadline = time.monotonic() + 30
        while True:            # the scheduler listening, then the worker registered with it
            try:
                with socket.create_connection((HOST, port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    pytest.fail("the Dask scheduler did not start")
                time.sleep(0.2)
        with Client(address, timeout=20, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=30)
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _estimate(tmp_path, name: str, *extra: str) -> dict:
    run = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "spinner", "--trials", "40",
                          "--seed", "1", "--quiet", "--out", f"{name}.json", *extra],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads((tmp_path / f"{name}.json").read_text())


@pytest.mark.slow
def test_an_estimate_on_a_dask_cluster_started_from_the_command_line(tmp_path, cluster):
    on_dask = _estimate(tmp_path, "x", "--scheduler", cluster)
    local = _estimate(tmp_path, "local", "--workers", "1")
    assert on_dask["scheduler"] == cluster and local["scheduler"] is None
    assert on_dask["trials"] == local["trials"] == 40
    assert on_dask["counts"] == local["counts"]
    assert on_dask["steps"] == local["steps"]
