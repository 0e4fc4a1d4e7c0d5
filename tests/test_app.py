"""The application layer (tabletop/app): both front ends build the same typed requests. Every
option of a command is a field of its request, every field of the estimate and play requests an
argument of the API, and a request refuses a bad field in one line naming the option."""
from __future__ import annotations

import argparse
import inspect

import pytest

import tabletop
from tabletop.app import requests as rq
from tabletop.sim.errors import InputError

# the command line's own options: how it shows things, not what the job does
FRONT_END_ONLY = {"help", "quiet", "command", "no_record", "headless"}
COMMANDS = {"estimate": rq.EstimateRequest, "converge": rq.ConvergeRequest, "sweep": rq.SweepRequest,
            "validate": rq.ValidateRequest, "bench": rq.BenchRequest, "analyze": rq.AnalyzeRequest,
            "play": (rq.WindowRequest, rq.ResumeRequest, rq.HostRequest), "replay": rq.ReplayRequest, "serve": rq.ServeRequest,
            "host": rq.HostRequest, "join": rq.JoinRequest, "games": rq.GamesRequest,
            "calibrate": rq.CalibrateRequest, "review": rq.ReviewRequest, "start": rq.StartRequest,
            "rooms": rq.RoomsRequest, "plugins": rq.PluginsRequest}


def subparsers():
    from tabletop.cli.parser import build_parser

    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_a_command_is_a_field_of_its_request(command):
    requests = COMMANDS[command] if isinstance(COMMANDS[command], tuple) else (COMMANDS[command],)
    fields = {f for request in requests for f in rq.request_fields(request)}   # play: a new game, or one resumed
    dests = {a.dest for a in subparsers()[command]._actions} - FRONT_END_ONLY
    options = {d for d in dests if d.startswith("option_")}      # the games' own: the request's `options`
    assert dests - options <= fields, sorted(dests - options - fields)
    assert not options or "options" in fields


def test_every_command_has_a_request():
    assert set(subparsers()) == set(COMMANDS)


@pytest.mark.parametrize("function,request_type,extra", [
    (tabletop.estimate, rq.EstimateRequest, {"set", "progress"}),
    (tabletop.play, rq.PlayRequest, {"echo", "options"}),
    (tabletop.host, rq.HostRequest, {"options"}),
    (tabletop.review, rq.ReviewRequest, {"progress"}),

    (tabletop.join, rq.JoinRequest, {"echo"}),
])
def test_the_api_takes_every_field_of_its_request(function, request_type, extra):
    params = set(inspect.signature(function).parameters)
    fields = set(rq.request_fields(request_type))
    assert fields - {"options"} <= params, sorted(fields - params)
    assert params - fields <= extra | {"options"}, sorted(params - fields - extra)


def test_the_api_resumes_with_every_field_a_headless_resume_takes():
    """tabletop.resume is `play --resume FILE --headless`: every field but the window's (size,
    pace) and what its arguments say by themselves (`file` is --resume, no file is --continue, no
    `record` is --no-record)."""
    params = set(inspect.signature(tabletop.resume).parameters)
    fields = set(rq.request_fields(rq.ResumeRequest))
    implied = {"resume": "file", "continue_game": "file", "no_record": "record", "headless": None, "size": None,
               "pace": None}
    assert fields - set(implied) <= params and {v for v in implied.values() if v} <= params
    assert params - fields <= {"file", "echo"}


@pytest.mark.parametrize("make,message", [
    (lambda: rq.EstimateRequest("die", trials=0), "--trials: must be at least 1, got 0"),
    (lambda: rq.EstimateRequest("die", seed=-1), "--seed: must be 0 or more, got -1"),
    (lambda: rq.EstimateRequest("die", workers=2.5), "--workers: expected a whole number, got 2.5"),
    (lambda: rq.EstimateRequest("die", resume=True), "--resume needs --out"),
    (lambda: rq.EstimateRequest("die", trials=10, record_trials=11), "--record-trials: 11 is more than the 10"),
    (lambda: rq.EstimateRequest("die", sensitivity_trials=3), "--sensitivity-trials needs --sensitivity"),
    (lambda: rq.ConvergeRequest("die", trials=-3), "--trials: must be at least 1, got -3"),
    (lambda: rq.BenchRequest(rules_games=4), "--rules-games: only with --rules"),
    (lambda: rq.AnalyzeRequest("knossos", compare="physics"), "--compare: only fair"),
    (lambda: rq.WindowRequest("knossos", pace=-1), "--pace: must be 0 or more seconds, got -1"),
    (lambda: rq.ReplayRequest("a.ttr", from_turn=3), "--from-turn: only with --verify"),
    (lambda: rq.ReplayRequest("a.ttr", summary=True, turns="1:2"), "--turns and --max-frames: only with --frames"),
    (lambda: rq.PlayRequest("knossos", seats=3), "--seats: expected a list of texts, got 3"),
])
def test_a_bad_field_is_one_line_naming_the_option(make, message):
    with pytest.raises(InputError) as caught:
        make()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_request_takes_the_commands_texts_and_the_apis_lists_alike():
    assert rq.PlayRequest("knossos", seats="ai, random").seats == rq.PlayRequest("knossos", seats=["ai", "random"]).seats
    assert rq.EstimateRequest("die", overrides="die.size=0.016").overrides == ("die.size=0.016",)
    assert rq.EstimateRequest("die", precision=0.05).cap == 100_000 and rq.EstimateRequest("die").cap == 1000


def test_a_job_reports_to_its_reporter_and_the_default_is_silent(capsys):
    """The same estimate with the silent default and with a reporter that keeps what it is told: the
    same result, the bar advanced once per trial, the result shown once, nothing printed by the job."""
    from tabletop.app.estimate import estimate
    from tabletop.app.longrun import Bar, Reporter

    class Keep(Reporter):
        def __init__(self):
            self.advanced, self.shown = 0, []

        def progress(self, total, title):
            import contextlib

            keep = self

            class Count(Bar):
                def advance(self, n):
                    keep.advanced += n

            return contextlib.nullcontext(Count())

        def show(self, result):
            self.shown.append(result)

    request = rq.EstimateRequest("die", trials=4, seed=2)
    silent = estimate(request)
    keep = Keep()
    kept = estimate(request, keep)
    assert keep.advanced == 4 and keep.shown == [kept]
    assert {k: v for k, v in silent.to_dict().items() if k != "elapsed_s"} == \
        {k: v for k, v in kept.to_dict().items() if k != "elapsed_s"}
    assert capsys.readouterr().out == ""
