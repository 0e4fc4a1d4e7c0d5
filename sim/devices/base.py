"""The device contract: spec + gesture + numpy Generator -> typed Outcome.

A device is built into a World from a validated spec. `run` takes a Generator and a
gesture (the physical input a person gives, sampled from a documented distribution when
not supplied), simulates with a fixed timestep, waits for the moving bodies to settle and
then reads the outcome physically. A trial that does not settle within its cap is
UNSETTLED, a body that leaves the model is ESCAPED (a defect), and a body that settles
outside every labelled region is LODGED; none of them is ever coerced to a label.
"""
from __future__ import annotations

import abc
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from enum import StrEnum
from typing import Any, ClassVar

import numpy as np


class Status(StrEnum):
    OK = "ok"
    UNSETTLED = "unsettled"
    ESCAPED = "escaped"
    LODGED = "lodged"


@dataclass(frozen=True)
class Outcome:
    """What one trial of a device produced."""

    label: str | None          # the label the rules need, or None when there is none
    status: Status
    sim_time: float            # simulated seconds from the gesture to the reading
    steps: int                 # physics steps taken
    reading: dict[str, Any] = field(default_factory=dict)   # the raw reading behind the label
    gesture: dict[str, Any] = field(default_factory=dict)   # the gesture that produced it
    group: str | None = None   # breakdown key (e.g. the edge seat a crater knock came from)

    @property
    def settled(self) -> bool:
        return self.status in (Status.OK, Status.LODGED)

    @property
    def escaped(self) -> bool:
        return self.status is Status.ESCAPED

    def as_dict(self) -> dict:
        d = asdict(self)
        d["status"] = str(self.status)
        return d


class Device(abc.ABC):
    """A physical randomizer; subclasses build bodies into a World and read outcomes."""

    name: ClassVar[str]

    @property
    @abc.abstractmethod
    def labels(self) -> tuple[str, ...]:
        """Every label `run` can return, in display order."""

    @abc.abstractmethod
    def sample_gesture(self, rng: np.random.Generator) -> Any:
        """Draw a gesture from the device's documented distribution."""

    @abc.abstractmethod
    def run(self, rng: np.random.Generator, gesture: Any = None) -> Outcome:
        """Simulate one trial and read its outcome."""

    @abc.abstractmethod
    def params(self) -> dict:
        """Every physical parameter in use (for result files)."""

    def record_extra(self, outcome: Outcome) -> dict:
        """Device-specific fields of one trial kept in batch records (small, JSON-able)."""
        return {}

    def summarize_extra(self, records: list[dict]) -> dict:
        """Device-specific figures for the result JSON, from the records' `extra` fields."""
        return {}

    # -- what converge and the model band vary ------------------------------------------------
    #: spec keys of the physics settings and the settle rule (`tabletop converge` refines them)
    timestep_key: ClassVar[str] = "physics.timestep"
    iterations_key: ClassVar[str] = "physics.solver_iterations"
    residual_key: ClassVar[str] = "physics.solver_residual_threshold"
    settle_prefix: ClassVar[str] = "settle."

    def settle_spec(self):
        """The SettleRule trials end with (devices keep it as `settle`)."""
        return self.settle

    def mesh_refinements(self) -> tuple[tuple[str, str], ...]:
        """`--set` overrides that double the resolution of the device's generated meshes (none by default)."""
        return ()

    def refinements(self) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
        """Named refinements of the spec's numerics, each as `--set` overrides: half the time step,
        twice the solver iterations, twice the mesh resolution (where there is a generated mesh) and
        a tighter settle rule (half the speed tolerances, twice the hold, twice the time cap). Twice
        the iterations comes with a solver residual threshold 100x tighter where the spec names one
        (the solver's other stopping rule)."""
        dt = self.world.settings.timestep
        it = self.world.settings.solver_iterations
        rule = self.settle_spec()
        # the solver stops at its iteration count or at its residual threshold, whichever comes
        # first: "double iterations" refines both (twice the iterations, a residual 100x tighter)
        residual = getattr(self, "solver_residual_threshold", None)
        solver = ((self.iterations_key, str(2 * it)),)
        if residual is not None:
            solver += ((self.residual_key, repr(float(f"{residual / 100:.12g}"))),)
        out = [("half-timestep", ((self.timestep_key, repr(dt / 2)),)),
               ("double-iterations", solver)]
        mesh = self.mesh_refinements()
        if mesh:
            out.append(("double-mesh", tuple(mesh)))
        # the cap is a time budget, not a tolerance: a stricter rule takes longer to meet, so it
        # gets twice the time too, and a body cut off by the cap is not counted as a change
        out.append(("tighter-settle", ((f"{self.settle_prefix}linear", repr(rule.linear / 2)),
                                       (f"{self.settle_prefix}angular", repr(rule.angular / 2)),
                                       (f"{self.settle_prefix}hold", repr(rule.hold * 2)),
                                       (f"{self.settle_prefix}cap", repr(rule.cap * 2)))))
        return out

    def gesture_ranges(self) -> tuple[str, ...]:
        """Spec keys of the gesture's [low, high] ranges (the model band runs each at either end)."""
        return ()

    def fastest_gesture(self) -> dict[str, str]:
        """The gesture's ranges (keys of `gesture_ranges`) that set how fast it moves the bodies, each
        with the end of its range that moves them fastest, "high" or "low" (a throw's speed, spin and
        release height at their high ends; a time per notch at its low end). With every one of them
        at that end (`--set KEY=[END, END]`) the device is played as hard as its spec allows, and its
        bodies must stay in the model (tests/test_device_contracts.py). Every device declares it."""
        return {}

    def contact_pairs(self) -> list[str]:
        """The material pairs ("a/b") that occur in this device's world (after a trial has built
        every body): the ones whose values the model band varies."""
        return list(self.world.contacts.pairs) if self.world.contacts is not None else []

    def setup(self, spec_path, overrides, world, origin=(0.0, 0.0, 0.0)):
        """The common start of a device built from a spec at a pose: read and validate the spec
        (the subclass's `_load`), then join `world` or make one of its own; returns the World."""
        from tabletop.sim.spec import read_spec

        read_spec(self, spec_path, overrides)
        self.origin = tuple(float(v) for v in origin)
        return self.attach_world(world, self.timestep, self.solver_iterations,
                                 residual=getattr(self, "solver_residual_threshold", None),
                                 contact_slop=getattr(self, "contact_slop", None))

    def attach_world(self, world, timestep: float, solver_iterations: int, contact_erp: float | None = None,
                     residual: float | None = None, contact_slop: float | None = None):
        """Build into a shared World (its timestep must be the spec's) or into a new one the
        device owns and closes; sets and returns `self.world`. A spec that names its own contact
        ERP (rigid bodies only, see tabletop.sim.world) or contact slop cannot share a world whose
        value differs; a shared world's solver must stop as late as the spec's or later (its
        residual threshold no looser)."""
        from tabletop.sim.errors import SpecError
        from tabletop.sim.world import PhysicsSettings, World

        self._owns_world = world is None
        if world is None:
            extra = {} if contact_erp is None else {"contact_erp": contact_erp}
            if residual is not None:
                extra["solver_residual_threshold"] = residual
            if contact_slop is not None:
                extra["contact_slop"] = contact_slop
            world = World(PhysicsSettings(timestep=timestep, solver_iterations=solver_iterations, **extra))
        elif contact_erp is not None and world.settings.contact_erp != contact_erp:
            raise SpecError(f"{getattr(self, 'spec_path', self.name)}: physics.contact_erp {contact_erp} differs "
                            f"from the shared world's {world.settings.contact_erp}: this device needs a world of its own")
        elif contact_slop is not None and world.settings.contact_slop != contact_slop:
            raise SpecError(f"{getattr(self, 'spec_path', self.name)}: physics.contact_slop {contact_slop:g} differs "
                            f"from the shared world's {world.settings.contact_slop:g}: this device needs a world of its own")
        elif not _divides(world.dt, timestep):
            raise SpecError(f"{getattr(self, 'spec_path', self.name)}: physics.timestep {timestep} is not a "
                            f"whole multiple of the shared world's {world.dt}: a device joins a world that "
                            f"steps as fine as its spec or finer (a converged device's odds do not move there)")
        elif residual is not None and world.settings.solver_residual_threshold > residual * (1 + 1e-9):
            raise SpecError(f"{getattr(self, 'spec_path', self.name)}: the shared world's solver residual threshold "
                            f"{world.settings.solver_residual_threshold:g} is looser than the spec's "
                            f"physics.solver_residual_threshold {residual:g}: a device joins a world whose solver "
                            f"stops as late as its spec's or later")
        self.world = world
        return world

    def close(self) -> None:
        """Release the device's world if it owns one."""
        if getattr(self, "_owns_world", False):
            self.world.close()


def _divides(fine: float, coarse: float) -> bool:
    """Whether `coarse` is a whole number (>= 1) of `fine` steps."""
    k = coarse / fine
    return k > 1.0 - 1e-9 and abs(k - round(k)) < 1e-6


def gesture_dict(gesture: Any) -> dict:
    """A gesture dataclass as a plain dict (numpy floats made floats), as `asdict` gives it, without
    its deep copy of every field (a tenth of a millisecond a trial, a few per cent of a die's throw)."""
    def plain(v):
        if is_dataclass(v) and not isinstance(v, type):
            return asdict(v)
        if isinstance(v, (tuple, list)) and any(is_dataclass(x) for x in v):
            return type(v)(plain(x) for x in v)
        return float(v) if isinstance(v, (float, np.floating)) else v
    return {f.name: plain(getattr(gesture, f.name)) for f in fields(gesture)}
