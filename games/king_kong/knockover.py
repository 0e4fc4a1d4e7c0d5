"""The kong-knockover device: one Attack Team pawn, in a groove or on a window space beside Kong's path,
while Kong makes a move drawn from the spinner; the label is what became of the pawn.

The board, the figure, the pawn, the motors and the reading are games/king_kong/rig.py's (`KongRig`,
`run_move`), built from the same files, so the table a game samples from (`--outcomes table:...`)
measures the very physics a physics game simulates.

Gesture (`KongTrial`), sampled by `sample_gesture` from assets/king_kong/knockover.toml's [sample]
and [gesture] tables:

- Kong's start pose: climb notch uniform over 0 .. notches_to_top - 4 (a climb of three notches must
  not reach the top: the game would end there); standing up with probability
  `sample.start_up_fraction`, else a twist notch uniform over the turn (over the twist range when the
  ring has stops);
- the move: the spinner's outer circle (each label with its share of the card, spinner.toml), then its
  inner circle; the spinning player's choices (LR direction, UP's way round when both ways work,
  U1-2 or U2-3) drawn evenly. Twist and climb follow the rules (rules.py ambiguity 3): notch by notch,
  a stop at the twist limit cuts a twist short, "UP" turns Kong until he stands up;
- the pawn: in a groove with probability `sample.groove_fraction`, uniform among the grooves a pawn
  may attack at the start pose (in one space or over a line), else on a window space uniform among
  those the rules put at risk for this move and Kong does not cover at the start; when the chosen
  kind has no candidate the other is used, and when neither has, the start and the move are drawn again;
- the hand: seconds per notch, the pause at each notch and the pawn's offset as put down by hand.

Label: the pawn's fate, "standing", "knocked" (knocked over) or "pushed" (pushed out of its space).
Group: "<where>/<twist>", <where> the groove's name or "adjacent", <twist> "0", "L1".."L6" or
"R1".."R6" (the rules' `KongMove.twist_key`): the groups games/king_kong/chance.py's `KnockoverTable`
looks up. Statuses: OK; LODGED (the pawn rests upright off the board, on the figure); UNSETTLED; ESCAPED
(the pawn left the board: a defect).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.games.king_kong.board import load_board
from tabletop.games.king_kong.geometry import GROOVES, Geometry, load_kong
from tabletop.games.king_kong.labels import FATES, INNER_LABELS, LEFT, OUTER_LABELS, RIGHT
from tabletop.games.king_kong.rig import Hand, KongRig, load_physics, run_move
from tabletop.sim.devices.base import Device, Outcome, Status
from tabletop.sim.devices.spinner_shape import load_circle
from tabletop.sim.spec import load_toml
from tabletop.sim.stats import wilson_interval
from tabletop.sim.world import World

NAME = "kong-knockover"
DEFAULT_SPEC = "king_kong/knockover.toml"
SUMMARY = ("King Kong's move among the Attack Team: a pawn in a groove or beside his path "
           "standing, knocked over or pushed out (by_group: <where>/<twist>)")
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_AXIS = "the pawn's fate when Kong moves"
OUTCOME_LABELS = "standing: the pawn stays up in its space; knocked: knocked over; pushed: pushed out of its space"
OUTCOME_LODGED = "the pawn came to rest upright off the board (on the figure or on another pawn)"

ADJACENT = "adjacent"


@dataclass(frozen=True)
class KongTrial:
    """One trial: the pawn's place, Kong's start pose, the spinner's labels and the move they made,
    and the hand."""

    where: str                      # a groove's name, or "adjacent"
    space: str                      # the window space of an adjacent pawn ("" in a groove)
    climb: int                      # Kong's start pose (notches)
    twist: int
    outer: str                      # the spinner's labels
    inner: str
    twist_steps: tuple[int, ...]    # +1 left, -1 right, notch by notch
    climb_steps: int
    seconds_per_notch: float
    pause: float
    jitter: tuple[float, float]

    @property
    def twist_key(self) -> str:
        if not self.twist_steps:
            return "0"
        return f"{'L' if self.twist_steps[0] == LEFT else 'R'}{len(self.twist_steps)}"

    @property
    def group(self) -> str:
        return f"{self.where}/{self.twist_key}"


class KongKnockover(Device):
    """Kong's move among the Attack Team: labels standing / knocked / pushed, grouped by place and twist."""

    name = NAME

    def settle_spec(self):
        return self.physics.settle

    def gesture_ranges(self) -> tuple[str, ...]:
        return ("gesture.seconds_per_notch", "gesture.pause")

    def fastest_gesture(self) -> dict[str, str]:
        # Kong moved at the quickest pace (the pause at each notch sets no speed)
        return {"gesture.seconds_per_notch": "low"}

    bench_restart_each_trial = True     # sim/bench.py: Kong turns through a pawn and stops within each trial

    def __init__(self, spec_path: Path, world: World | None = None, overrides=()):
        self.spec_path = Path(spec_path)
        self.overrides = tuple(overrides)
        self.board, self.kong = load_board(), load_kong()
        self.geometry = Geometry(self.board, self.kong)
        self.physics = load_physics(self.spec_path, self.kong, self.overrides)
        spinner = load_toml(self.physics.spinner_path)
        self.outer = load_circle(spinner.table("outer"), "outer", OUTER_LABELS).share()
        self.inner = load_circle(spinner.table("inner"), "inner", INNER_LABELS).share()
        self.attach_world(world, self.physics.timestep, self.physics.solver_iterations,
                          residual=self.physics.solver_residual_threshold, contact_slop=self.physics.contact_slop)
        try:
            self.rig = KongRig(self.world, self.board, self.kong, self.physics, 1)
        except BaseException:
            self.close()
            raise

    @property
    def labels(self) -> tuple[str, ...]:
        return FATES

    # -- gesture ----------------------------------------------------------------------------
    def _twist(self, twist: int, outer: str, rng: np.random.Generator) -> tuple[int, ...]:
        """The twist the rules make of an outer-circle label, the figure's own paths (Kong.twist_path)."""
        kong = self.kong
        if outer in ("L1", "L2", "R1", "R2"):
            return kong.twist_path(twist, LEFT if outer[0] == "L" else RIGHT, int(outer[1]))
        if outer in ("LR1", "LR2"):
            return kong.twist_path(twist, (LEFT, RIGHT)[int(rng.integers(2))], int(outer[2]))
        ways = [kong.twist_path(twist, d, None) for d in kong.up_ways(twist)]
        return ways[int(rng.integers(len(ways)))] if ways else ()

    def sample_gesture(self, rng: np.random.Generator) -> KongTrial:
        kong, geo = self.kong, self.geometry
        outer_labels, outer_p = list(self.outer), np.array(list(self.outer.values()))
        inner_labels, inner_p = list(self.inner), np.array(list(self.inner.values()))
        if kong.free_turning:
            twists = list(range(-kong.twist_limit + 1, kong.twist_limit + 1))
        else:
            twists = list(range(-kong.twist_limit, kong.twist_limit + 1))
        for _ in range(1000):
            climb = int(rng.integers(0, max(1, kong.top - 3)))
            up_start = rng.random() < self.physics.start_up_fraction
            twist = 0 if up_start else twists[int(rng.integers(len(twists)))]
            outer = outer_labels[int(rng.choice(len(outer_labels), p=outer_p / outer_p.sum()))]
            steps = self._twist(twist, outer, rng)
            inner = inner_labels[int(rng.choice(len(inner_labels), p=inner_p / inner_p.sum()))]
            up = int(inner[1]) if "-" not in inner else int(inner[1 + 2 * int(rng.integers(2))])
            up = min(up, kong.top - 1 - climb)
            grooves = [g for g in GROOVES if geo.place(g, climb, twist).attackable]
            covered = geo.covered(climb, twist)
            spaces = sorted(s for s in geo.swept(climb, twist, steps, up) if s not in covered)
            in_groove = rng.random() < self.physics.groove_fraction
            if (in_groove and grooves) or (grooves and not spaces):
                where, space = grooves[int(rng.integers(len(grooves)))], ""
            elif spaces:
                where, space = ADJACENT, spaces[int(rng.integers(len(spaces)))]
            else:
                continue
            t = float(rng.uniform(*self.physics.seconds_per_notch))
            pause = float(rng.uniform(*self.physics.pause))
            rad, ang = self.physics.place_jitter * math.sqrt(float(rng.random())), 2 * math.pi * float(rng.random())
            return KongTrial(where, space, climb, twist, outer, inner, steps, up, t, pause,
                             (rad * math.cos(ang), rad * math.sin(ang)))
        raise RuntimeError("kong-knockover: no pawn placement found in 1000 draws; check board.toml and kong.toml")

    # -- trials -----------------------------------------------------------------------------
    def place(self, trial: KongTrial) -> None:
        """Kong at the trial's start pose and the pawn put down in its groove or on its space (in a
        renewed world when the device has one of its own: no trial depends on the one before)."""
        rig, board = self.rig, self.board
        if self._owns_world:
            rig.renew()
        rig.set_pose(trial.climb, trial.twist)
        jx, jy = trial.jitter
        if trial.where in GROOVES:
            gx, gy = self.kong.groove_point(trial.where, trial.climb, trial.twist)
            play = (rig.notch_width / 2 - self.physics.pawn.body_radius) * 0.8
            scale = min(1.0, play / max(math.hypot(jx, jy), 1e-12))
            rects = tuple(board.space(s).rect for s in self.geometry.place(trial.where, trial.climb, trial.twist).spaces)
            rig.put(0, (gx + jx * scale, gy + jy * scale), rects, in_groove=True)
        else:
            sp = board.space(trial.space)
            margin = self.physics.place_jitter + 0.0005
            x, y = rig.clear_spot(sp.centre, sp.rect, trial.climb, trial.twist, (), margin)
            rig.put(0, (x + jx, y + jy), (sp.rect,))

    def run(self, rng: np.random.Generator, gesture: KongTrial | None = None) -> Outcome:
        trial = gesture if gesture is not None else self.sample_gesture(rng)
        self.place(trial)
        hand = Hand(trial.seconds_per_notch, trial.pause, (trial.jitter,))
        moved = run_move(self.rig, trial.twist_steps, trial.climb_steps, hand, [0], [0])
        reading = dict(moved.reading["red"], jammed=bool(moved.reading.get("jammed")))
        return Outcome(label=reading["fate"] if moved.status is Status.OK else None, status=moved.status,
                       sim_time=moved.sim_time, steps=moved.steps, reading=reading,
                       gesture=_gesture_dict(trial), group=trial.group)

    def place_for_benchmark(self) -> None:
        self.rig.place_for_benchmark()

    # -- results ----------------------------------------------------------------------------
    def record_extra(self, outcome: Outcome) -> dict:
        return {"where": outcome.gesture["where"], "twist": outcome.group.partition("/")[2]}

    def summarize_extra(self, records: list[dict]) -> dict:
        """Two blocks beside the result's by_group ("<where>/<twist>"), with 95% Wilson intervals:
        "by_place", fates by where the pawn was (each groove, "groove" for all grooves, "adjacent")
        whatever the twist, and "by_twist", fates of a pawn in any groove by the twist
        ("groove/<twist>")."""
        places: dict[str, dict[str, int]] = {}
        twists: dict[str, dict[str, int]] = {}
        for r in records:
            if r["status"] != Status.OK:
                continue
            where, twist = r["extra"]["where"], r["extra"]["twist"]
            for key in (where, "groove") if where in GROOVES else (where,):
                places.setdefault(key, {f: 0 for f in FATES})[r["label"]] += 1
            if where in GROOVES:
                twists.setdefault(f"groove/{twist}", {f: 0 for f in FATES})[r["label"]] += 1
        return {"by_place": _table(places), "by_twist": _table(twists)}

    def params(self) -> dict:
        ph, p = self.physics, self.physics.pawn
        return {
            "spec": str(self.spec_path),
            "pawn": {"base_radius": p.base_radius, "base_thickness": p.base_thickness, "body_radius": p.body_radius,
                     "head_radius": p.head_radius, "height": p.height, "mass": p.mass, "com_z": p.com_z,
                     "inertia": list(p.inertia), "material": p.material.as_dict()},
            "figure": {"clearance": self.kong.clearance, "thickness": self.kong.thickness,
                       "notch_width": self.rig.notch_width, "notch_reach": self.rig.notch_reach,
                       "mass": self.rig.figure_mass, "material": ph.kong_material.as_dict()},
            "board": {"thickness": ph.board_thickness, "track_depth": ph.track_depth,
                      "material": ph.board_material.as_dict()},
            "motors": {"max_torque": ph.max_torque, "max_force": ph.max_force, "control_every": ph.control_every,
                       "stroke": "raised-cosine speed per notch, zero at each notch; twist first, then climb"},
            "gesture": {"seconds_per_notch": list(ph.seconds_per_notch), "pause": list(ph.pause),
                        "place_jitter": ph.place_jitter, "groove_fraction": ph.groove_fraction,
                        "start_up_fraction": ph.start_up_fraction,
                        "outer_share": self.outer, "inner_share": self.inner},
            "reading": {"tilt_deg": ph.tilt_deg, "lodge_height": ph.lodge_height,
                        "pushed": "base disc clear of every space the pawn must stay in"},
            "physics": self.world.settings.as_dict(),
            "settle": dict(ph.settle.__dict__),
        }


def _table(groups: dict[str, dict[str, int]]) -> dict:
    out = {}
    for key in sorted(groups):
        counts = groups[key]
        n = sum(counts.values())
        out[key] = {"labelled": n, "counts": counts,
                    "probabilities": {f: {"p": k / n, "ci95": list(wilson_interval(k, n))} for f, k in counts.items()}}
    return out


def _gesture_dict(trial: KongTrial) -> dict:
    return {"where": trial.where, "space": trial.space, "climb": trial.climb, "twist": trial.twist,
            "outer": trial.outer, "inner": trial.inner, "twist_steps": list(trial.twist_steps),
            "climb_steps": trial.climb_steps, "seconds_per_notch": trial.seconds_per_notch, "pause": trial.pause,
            "jitter": list(trial.jitter)}


__all__ = ["KongKnockover", "KongTrial", "ADJACENT"]
