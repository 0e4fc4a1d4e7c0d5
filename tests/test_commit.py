"""Checkable throws (tabletop.gamekit.commit): a game drawn from committed seeds publishes each
chance event's commitment before the event is asked of its source, records the commitment and
the reveal in its replay, and verify re-simulates every event from its revealed seed and checks
every commitment; a tampered reveal, commitment, motion hash or secret is named; the derivation is
keyed, so one reveal gives no other event's seed; the same secret records the same bytes.

Table chance for every registered game (fast); physics (Knossos' sticks, King Kong's die,
spinner and Kong's moves) in the slow tests, about 3 s to play and as much to verify each."""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import struct

import numpy as np
import pytest

from tabletop.gamekit.outcomes import play_outcomes
from tabletop.gamekit.chance import OutcomeSource
from tabletop.gamekit.commit import (CommittedSeeds, chance_generator, check_reveal, check_secret, commitment_of,
                                     derive_reveal, secret_commitment)
from tabletop.gamekit.match import GameSeeds, Match, MatchObserver
from tabletop.gamekit.record import GameRecorder
from tabletop.gamekit.replay import Divergence, verify
from tabletop.gamekit.session import play_headless
from tabletop.gamekit.state import ChanceOutcome
from tabletop.gamekit.registry import GAMES
from tabletop.sim.record import (CHUNK, COMMITTED_VERSION, END, PRELUDE, RECORDED_AT, SEEDED_VERSION, TURN, ReplayFile,
                                 chunk, json_chunk, motion_sha256, pack_turn, unpack_turn_log, unpack_turn_motions)

SECRET = bytes(range(32))


def _u64(k: int) -> bytes:
    return struct.pack(">Q", k)


def _hmac(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def _options(name: str) -> dict:
    """The shortest game of `name`: each numeric option at its minimum (a one-game Knossos match)."""
    return {o.name: o.minimum if o.minimum is not None else o.default for o in GAMES[name].options}


def record_committed(path, name: str, outcomes: str, secret: bytes = SECRET, seats=None) -> list[str]:
    definition = GAMES[name]
    if outcomes == "measured":
        outcomes = play_outcomes(definition, "measured")
    lines: list[str] = []
    seats = seats or ["ai"] * definition.seats[0]
    play_headless(definition, seats, 0, outcomes, _options(name), record=path, emit=lines.append,
                  seeds=CommittedSeeds(secret))
    return lines


def chance_steps(replay: ReplayFile):
    """(turn number, k, step) of every chance step, k counted from 0."""
    k = 0
    for turn in replay.turns:
        for step in turn.steps:
            if "chance" in step:
                yield turn.number, k, step
                k += 1


# -- the seeds -------------------------------------------------------------------------------
def test_the_seeds_follow_the_documented_layout_and_the_same_secret_gives_the_same_seeds():
    seeds = CommittedSeeds(SECRET)
    for k in (0, 1, 7, 2 ** 40):
        seed, salt = _hmac(SECRET, b"chance\x00" + _u64(k)), _hmac(SECRET, b"salt\x00" + _u64(k))
        assert seeds.reveal(k) == {"seed": seed.hex(), "salt": salt.hex()} == derive_reveal(SECRET, k)
        assert seeds.commitment(k) == hashlib.sha256(seed + salt).hexdigest() == commitment_of(seed, salt)
        assert check_reveal(seeds.commitment(k), seeds.reveal(k))
        # the generator made from the revealed seed alone is the game's
        expected = np.random.default_rng(np.random.SeedSequence(int.from_bytes(seed, "big"))).random(5)
        assert (seeds.chance(k).random(5) == expected).all()
        assert (chance_generator(seeds.reveal(k)["seed"]).random(5) == expected).all()
    seats = np.random.default_rng(np.random.SeedSequence(int.from_bytes(_hmac(SECRET, b"seats\x00"), "big")))
    assert seeds.seats.random() == seats.random()
    assert seeds.secret_commitment == hashlib.sha256(SECRET).hexdigest() == secret_commitment(SECRET)
    again = CommittedSeeds(SECRET)
    assert [again.commitment(k) for k in range(5)] == [seeds.commitment(k) for k in range(5)]
    assert len({seeds.commitment(k) for k in range(100)}) == 100
    other = CommittedSeeds(bytes(reversed(SECRET)))
    assert all(other.reveal(k) != seeds.reveal(k) for k in range(20))
    assert CommittedSeeds.new().secret != CommittedSeeds.new().secret


def test_one_reveal_gives_no_other_event_seed():
    """The derivation is keyed: a seed or salt is an HMAC of the secret, so a reveal is no input
    from which the next seed can be computed (each plausible try fails), and the game's secret is
    in none of them (the game seed of GameSeeds would be: event k's SeedSequence names it)."""
    seeds = CommittedSeeds(SECRET)
    for k in range(5):
        r = seeds.reveal(k)
        seed, salt = bytes.fromhex(r["seed"]), bytes.fromhex(r["salt"])
        nxt = bytes.fromhex(seeds.reveal(k + 1)["seed"])
        tries = [hashlib.sha256(seed).digest(), hashlib.sha256(seed + salt).digest(),
                 hashlib.sha256(b"chance\x00" + _u64(k + 1)).digest(),
                 _hmac(seed, b"chance\x00" + _u64(k + 1)), _hmac(salt, b"chance\x00" + _u64(k + 1)),
                 _hmac(seed + salt, b"chance\x00" + _u64(k + 1)),
                 np.random.SeedSequence(int.from_bytes(seed, "big"), spawn_key=(1,)).generate_state(8).tobytes(),
                 bytes(a ^ b for a, b in zip(seed, salt))]
        assert nxt not in tries
        assert SECRET.hex() not in json.dumps(r) and seed != nxt
    # GameSeeds, by contrast, names its game seed in every event's SeedSequence
    assert np.random.SeedSequence(5, spawn_key=(1, 3)).entropy == 5


def test_malformed_reveals_and_secrets_are_refused_without_an_exception():
    seeds = CommittedSeeds(SECRET)
    c, r = seeds.commitment(3), seeds.reveal(3)
    assert check_reveal(c.upper(), {k: v.upper() for k, v in r.items()})
    for bad in ({**r, "salt": seeds.reveal(4)["salt"]}, {**r, "seed": seeds.reveal(4)["seed"]}, {"seed": r["seed"]},
                {**r, "seed": r["seed"][:-2]}, {**r, "seed": "zz" + r["seed"][2:]}, {**r, "seed": 5}, None, [], "x"):
        assert not check_reveal(c, bad)
    assert not check_reveal(None, r) and not check_reveal(seeds.commitment(4), r)
    assert check_secret(SECRET.hex(), seeds.secret_commitment) == SECRET
    for bad in (SECRET.hex()[:-2], "nothex", None, bytes(32).hex(), SECRET.hex()[:16]):
        assert check_secret(bad, seeds.secret_commitment) is None
    with pytest.raises(ValueError):
        chance_generator("00" * 31)
    for short in (b"", b"short", "a string of more than sixteen chars"):
        with pytest.raises(ValueError, match="at least 16 bytes"):
            CommittedSeeds(short)


# -- the hook ------------------------------------------------------------------------------
class Logged(OutcomeSource):
    """A source that logs each time it is asked, then asks the real one."""

    def __init__(self, source, log: list):
        self.source, self.log = source, log

    def outcome(self, event, state, rng):
        self.log.append(("asked", event))
        return self.source.outcome(event, state, rng)

    def close(self):
        self.source.close()


class Publisher(MatchObserver):
    """What a server does: publish the commitment before the event, the reveal once it is over."""

    def __init__(self, seeds: CommittedSeeds, log: list):
        self.seeds, self.log, self.match = seeds, log, None

    def chance_ahead(self, state, event, k):
        self.log.append(("commit", event, k, self.seeds.commitment(k)))

    def record(self, state, action, event, lines):
        if isinstance(action, ChanceOutcome):
            k = self.match.chances - 1
            self.log.append(("reveal", event, k, self.seeds.reveal(k)))


@pytest.mark.parametrize("name", GAMES)
def test_the_commitment_is_published_before_the_source_is_asked(name, tmp_path):
    definition = GAMES[name]
    options = definition.check_options(_options(name))
    outcomes = play_outcomes(definition, "measured")
    seats = ["ai"] * definition.seats[0]
    config = definition.replay_config(seats, outcomes, options)
    log: list = []
    source = Logged(definition.make_source(outcomes), log)
    seeds = CommittedSeeds(SECRET)
    publisher = Publisher(seeds, log)
    try:
        state = definition.make_game(config).new_initial_state()
        recorder = GameRecorder(tmp_path / "game.ttr", definition, config, 0, state, source, ["banner"], seeds)
        match = Match(state, [definition.make_seat(k, source, options) for k in seats], recorder.source, 0,
                      observers=[recorder, publisher], max_turns=definition.max_turns, seeds=seeds)
        publisher.match = match
        for _ in range(40):
            match.step()
        match.leave()
        match.close()
    finally:
        source.close()
    chances = sum(isinstance(a, ChanceOutcome) for a in match.state.history)
    assert chances >= 1                                   # any game: at least one chance event
    kinds = [entry[0] for entry in log]
    assert kinds == ["commit", "asked", "reveal"] * chances
    for i in range(chances):
        commit, asked, reveal = log[3 * i:3 * i + 3]
        assert commit[2] == reveal[2] == i and commit[1] == asked[1] == reveal[1]
        assert check_reveal(commit[3], reveal[3])
    replay = ReplayFile.open(tmp_path / "game.ttr")       # what the recorder wrote is what was published
    assert [(s["commitment"], s["reveal"]) for _, _, s in chance_steps(replay)] == \
           [(log[3 * i][3], log[3 * i + 2][3]) for i in range(chances)]


@pytest.mark.slow
def test_the_window_publishes_before_it_simulates_too():
    """The window splits a step (its controller's `chance()` calls `Match.draw()`, plays the motion
    back, then `apply()`): the hook comes before the source there as well."""
    from tabletop.gamekit.view.window import open_game
    from tabletop.sim.view.app import ViewError

    log: list = []

    class Ahead(MatchObserver):
        def chance_ahead(self, state, event, k):
            log.append(("commit", event, k))

    try:
        app, ctrl = open_game(GAMES["knossos"], ["ai", "ai"], 3, size=(320, 180), offscreen=True, pace=0.0,
                              options=_options("knossos"))
    except ViewError as exc:
        pytest.skip(f"no graphics pipe: {exc}")
    try:
        ctrl.match.observers.append(Ahead())
        ctrl.match.source = Logged(ctrl.match.source, log)
        ctrl.fast_forward(4)
        ctrl.close()
    finally:
        ctrl.adapter.close()
        app.destroy()
    chances = sum(isinstance(a, ChanceOutcome) for a in ctrl.match.state.history)
    assert chances >= 4 and log == [e for k in range(chances) for e in (("commit", "sticks", k), ("asked", "sticks"))]


def test_a_plain_match_calls_the_hook_too_and_records_as_before(tmp_path):
    name = "knossos"
    log: list = []

    class Ahead(MatchObserver):
        def chance_ahead(self, state, event, k):
            log.append(k)

    path = tmp_path / "plain.ttr"
    definition = GAMES[name]
    play_headless(definition, ["ai", "ai"], 4, play_outcomes(definition, "measured"), _options(name), record=path,
                  emit=lambda line: None, observers=[Ahead()])
    replay = ReplayFile.open(path)
    assert log == list(range(len(log))) and len(log) == len(list(chance_steps(replay)))
    assert replay.version == SEEDED_VERSION and replay.header["seeds"].startswith("numpy SeedSequence")
    assert "secret" not in replay.end and "secret_commitment" not in replay.header
    assert not any({"commitment", "reveal", "motion_sha256"} & set(s) for _, _, s in chance_steps(replay))
    assert str(verify(replay, definition)).startswith("verified: ") and "commitment" not in str(verify(replay, definition))


# -- recorded and verified -----------------------------------------------------------------
def check_recording(path, name: str) -> ReplayFile:
    """The committed replay's layout: version 3, the scheme in the header with the secret's
    commitment but not the secret, every chance step with a reveal that checks, the secret at the end."""
    replay = ReplayFile.open(path)
    assert replay.version == COMMITTED_VERSION and replay.header["seeds"] == "committed"
    assert "HMAC-SHA256" in replay.header["seeds_doc"]
    assert replay.header["secret_commitment"] == hashlib.sha256(SECRET).hexdigest()
    assert SECRET.hex() not in json.dumps(replay.header)
    assert replay.end["secret"] == SECRET.hex()
    steps = list(chance_steps(replay))
    assert steps
    seeds = CommittedSeeds(SECRET)
    for _, k, step in steps:
        assert step["commitment"] == seeds.commitment(k) and step["reveal"] == seeds.reveal(k)
        assert check_reveal(step["commitment"], step["reveal"])
        assert SECRET.hex() not in json.dumps(step)
    return replay


@pytest.mark.parametrize("name", GAMES)
def test_a_committed_game_on_the_tables_records_and_every_commitment_checks(name, tmp_path):
    path = tmp_path / "game.ttr"
    record_committed(path, name, "measured")
    replay = check_recording(path, name)
    n = len(list(chance_steps(replay)))
    if replay.header["config"].get("tables") is None:
        # a game whose measured chance is more than plain tables (King Kong's knock-over groups)
        # cannot be re-simulated from its tables: its physics game is verified below
        from tabletop.sim.errors import InputError

        with pytest.raises(InputError, match="cannot be re-simulated"):
            verify(replay, GAMES[name])
        return
    done = verify(replay, GAMES[name])
    assert (done.chance_events, done.commitments, done.secret) == (n, n, True)
    assert str(done).endswith(f", {n} commitments checked, every seed from the revealed secret")
    if len(replay.turns) > 1:        # verified from a later turn: the chance before it is not thrown again
        middle = replay.turns[max(1, len(replay.turns) // 2)].number
        later = verify(replay, GAMES[name], from_turn=middle)
        assert later.commitments == n and later.chance_events < n


@pytest.fixture(scope="module")
def knossos_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("committed") / "knossos.ttr"
    return path, record_committed(path, "knossos", "measured")


@pytest.fixture(scope="module")
def knossos_physics(tmp_path_factory):
    path = tmp_path_factory.mktemp("committed") / "knossos-physics.ttr"
    return path, record_committed(path, "knossos", "physics")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["knossos", "king-kong"])
def test_a_committed_physics_game_verifies_from_its_reveals_and_from_a_middle_turn(name, request, tmp_path):
    if name == "knossos":
        path, _ = request.getfixturevalue("knossos_physics")
    else:
        path = tmp_path / "game.ttr"
        record_committed(path, name, "physics")
    replay = check_recording(path, name)
    n = len(list(chance_steps(replay)))
    for turn in replay.turns:             # the recorded motion's hash is its frames'
        motions = turn.quantized_motions()
        for step in turn.steps:
            if "motion" in step:
                assert step["motion_sha256"] == motion_sha256(motions[step["motion"]])
    done = verify(replay, GAMES[name])
    assert (done.chance_events, done.commitments, done.secret) == (n, n, True) and done.frames > 500
    middle = replay.turns[len(replay.turns) // 2].number
    later = verify(replay, GAMES[name], from_turn=middle)
    assert later.commitments == n and 0 < later.chance_events < n and 0 < later.frames < done.frames
    rc, out, err = run("replay", path, "--verify")
    assert rc == 0 and out == f"{done}\n" and f"{n} commitments checked" in out


def run(*argv) -> tuple[int, str, str]:
    from tabletop.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


# -- tampered ------------------------------------------------------------------------------
def _rewrite(path, out, ordinal: int, change) -> None:
    """Copy `path` to `out` with turn `ordinal` changed by change(log, motions), its CRC made valid."""
    data = path.read_bytes()
    turn = ReplayFile.open(path).turns[ordinal]
    log = unpack_turn_log(turn.payload)
    motions = unpack_turn_motions(turn.payload, log)
    change(log, motions)
    a, b = turn.span
    out.write_bytes(data[:a - CHUNK.size] + chunk(TURN, pack_turn(log, motions)) + data[b:])


def _rewrite_end(path, out, change) -> None:
    """Copy `path` to `out` with its end record changed by change(end)."""
    data = path.read_bytes()
    pos = PRELUDE.size
    while True:
        kind, length, _ = CHUNK.unpack_from(data, pos)
        if kind == END:
            break
        pos += CHUNK.size + length
    end = ReplayFile.open(path).end
    change(end)
    out.write_bytes(data[:pos] + json_chunk(END, end))


def _chance_turn(path, nth: int = 5) -> tuple[int, int, int, dict]:
    """(turn ordinal, turn number, k, step) of the `nth` chance step."""
    replay = ReplayFile.open(path)
    ordinals = {t.number: i for i, t in enumerate(replay.turns)}
    number, k, step = list(chance_steps(replay))[nth]
    return ordinals[number], number, k, step


def _first_chance(log: dict) -> dict:
    return next(s for s in log["steps"] if "chance" in s)


@pytest.mark.parametrize("what", ["seed", "salt", "commitment"])
def test_a_tampered_reveal_or_commitment_fails_verify_naming_the_event(knossos_table, tmp_path, what):
    path, _ = knossos_table
    ordinal, number, k, step = _chance_turn(path)

    def change(log, motions):
        s = _first_chance(log)
        if what == "commitment":
            s["commitment"] = hashlib.sha256(b"another").hexdigest()
        else:
            s["reveal"][what] = CommittedSeeds(SECRET).reveal(k + 1)[what]

    bad = tmp_path / "bad.ttr"
    _rewrite(path, bad, ordinal, change)
    message = (f"turn {number}, chance event {k} (sticks): the revealed seed and salt do not hash to the "
               f"commitment ")
    with pytest.raises(Divergence, match=message.replace("(", r"\(").replace(")", r"\)")):
        verify(ReplayFile.open(bad), GAMES["knossos"])
    rc, out, err = run("replay", bad, "--verify")
    assert rc == 1 and out == "" and message in err and err.count("\n") == 1
    # a commitment is checked even in a turn before --from-turn
    with pytest.raises(Divergence, match=f"turn {number}, chance event {k}"):
        verify(ReplayFile.open(bad), GAMES["knossos"], from_turn=number + 2)


def test_a_forged_reveal_with_its_own_commitment_is_caught(knossos_table, tmp_path):
    """A forger who writes another seed and the commitment that goes with it is caught by the
    re-simulation (another outcome) or, failing that, by the game's revealed secret."""
    path, _ = knossos_table
    ordinal, number, k, _ = _chance_turn(path)
    forged = {"seed": hashlib.sha256(b"forged seed").hexdigest(), "salt": hashlib.sha256(b"salt").hexdigest()}

    def change(log, motions):
        s = _first_chance(log)
        s["reveal"] = forged
        s["commitment"] = commitment_of(bytes.fromhex(forged["seed"]), bytes.fromhex(forged["salt"]))

    bad = tmp_path / "forged.ttr"
    _rewrite(path, bad, ordinal, change)
    with pytest.raises(Divergence, match=rf"^turn {number}, chance event {k} \(sticks\): "):
        verify(ReplayFile.open(bad), GAMES["knossos"])


def test_a_tampered_secret_or_a_missing_one(knossos_table, tmp_path):
    path, _ = knossos_table
    bad = tmp_path / "secret.ttr"
    _rewrite_end(path, bad, lambda end: end.update(secret=bytes(32).hex()))
    with pytest.raises(Divergence, match="the end record's secret does not hash to the header's secret_commitment"):
        verify(ReplayFile.open(bad), GAMES["knossos"])
    _rewrite_end(path, bad, lambda end: end.pop("secret"))
    done = verify(ReplayFile.open(bad), GAMES["knossos"])
    assert str(done).endswith("commitments checked (the game's secret not revealed)")


@pytest.mark.slow
def test_a_tampered_motion_hash_fails_verify_naming_the_event(knossos_physics, tmp_path):
    path, _ = knossos_physics
    ordinal, number, k, _ = _chance_turn(path)

    def change(log, motions):
        _first_chance(log)["motion_sha256"] = hashlib.sha256(b"other poses").hexdigest()

    bad = tmp_path / "hash.ttr"
    _rewrite(path, bad, ordinal, change)
    with pytest.raises(Divergence, match=rf"turn {number}, chance event {k} \(sticks\): the recorded motion's "
                                         r"frames do not hash to its motion_sha256"):
        verify(ReplayFile.open(bad), GAMES["knossos"])


# -- the same secret, the same bytes ----------------------------------------------------------
def test_the_same_secret_records_the_same_bytes_but_the_timestamp(knossos_table, tmp_path):
    path, printed = knossos_table
    again = tmp_path / "again.ttr"
    assert record_committed(again, "knossos", "measured") == printed
    a, b = bytearray(path.read_bytes()), bytearray(again.read_bytes())
    a[RECORDED_AT] = b[RECORDED_AT] = bytes(8)
    assert a == b
    other = tmp_path / "other.ttr"
    record_committed(other, "knossos", "measured", secret=bytes(reversed(SECRET)))
    assert ReplayFile.open(other).header["secret_commitment"] != ReplayFile.open(path).header["secret_commitment"]


def test_game_seeds_are_untouched():
    """The default seeds are GameSeeds, as before: Match(seed) with no seeds object."""
    definition = GAMES["knossos"]
    match = Match(definition.make_game(definition.replay_config(["ai", "ai"], "physics", _options("knossos")))
                  .new_initial_state(), [], None, 9)
    assert isinstance(match.seeds, GameSeeds) and match.seed == 9
    assert match.seeds.chance(2).random() == GameSeeds(9).chance(2).random()
