"""One physics world: one PyBullet DIRECT connection, a fixed timestep, deterministic settings.

A World never touches PyBullet's module-global connection: every call goes through its
own `BulletClient`, so many worlds can live side by side in one process.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from tabletop.sim.bullet import BulletClient, pybullet, quiet_stdout
from tabletop.sim.spec import DEFAULT_CONTACT_SLOP, DEFAULT_SOLVER_RESIDUAL
from tabletop.sim.materials import BodyValues, ContactSolution, Material, PairTable, solve_contact_values


#: The physics version: bumped whenever the same seed and spec start simulating differently (a
#: numeric setting a spec names, how a device is built or stepped). Replays and result files record
#: it (`engine_versions`); `tabletop replay --verify` refuses a replay recorded at another version in
#: one line naming both, since it cannot re-simulate the same motion (the replay still plays back).
PHYSICS_VERSION = 4
PHYSICS_HISTORY = {
    1: "the converged numerics of 2026-12-06 (and everything recorded before versions were named)",
    2: "issue 40's speed work: the solver's residual threshold 1e-5 for the die, King Kong's knock-over and the "
       "throw; shorter settle holds for those and the sticks; the crater at 1/960 s with a residual threshold of "
       "1e-9; the Tipper's tray one link of its 264 boxes",
    3: "the Tipper's posts round (capsules, in place of 8-pointed stars of two boxes) and its contact slop 0, so "
       "that its odds hold when the step is halved; its slots relabelled by the new odds",
    4: "the Tipper at 1/1920 s, so that its odds hold when the step is halved (its batch trials end as soon "
       "as the ball's slot is decided and step in Bullet substeps, which change no trial's slot)",
}


@dataclass(frozen=True)
class PhysicsSettings:
    """Solver settings of a World; all explicit so that a run is reproducible."""

    timestep: float = 1.0 / 240.0
    solver_iterations: int = 50
    # The solver's other stopping rule: it stops before `solver_iterations` once an iteration's sum
    # of squared velocity corrections (m^2/s^2) falls under this (PyBullet's solverResidualThreshold;
    # its default 1e-7). A body resting on boxes with friction never gets under 1e-7, so the solver
    # runs nearly all its iterations on a resting contact (docs/physics-profile.md); a device whose
    # odds do not move with a looser one (`tabletop converge`: double-iterations tightens it 100x)
    # names it in its spec.
    solver_residual_threshold: float = DEFAULT_SOLVER_RESIDUAL
    gravity: float = 9.81
    erp: float = 0.2
    contact_erp: float = 0.01     # 0.2 pushed bodies apart fast enough to add bounce and halve friction at small steps (docs/validation.md)
    friction_erp: float = 0.2
    restitution_velocity_threshold: float = 0.05
    contact_processing_threshold: float | None = 0.0   # per body; None keeps Bullet's (predictive contacts)
    # Penetration Bullet leaves uncorrected (PyBullet's default, made explicit; a spec may name its own,
    # `physics.contact_slop`). Bullet counts a contact whose depth is under the slop as a gap still to
    # close and lets the body approach it at (slop - depth) / dt, taken off the bounce: so a rebound
    # loses up to slop / dt, about 0.01 m/s at 1/960 s and 0.08 at 1/7680 s, and odds that hang on
    # bounces drift as the step is refined (a ball's rebound off a wall is gone at 1/15360 s). At 0
    # the rebound converges with the step (tests/test_world.py).
    contact_slop: float = DEFAULT_CONTACT_SLOP
    # Contacts between two rigid (maximal-coordinate) bodies always correct penetration in a split
    # pass that adds no kinetic energy; contacts with a jointed or multibody part never split (Bullet's
    # multibody solver has no split pass), so there the ERP must stay low
    split_impulse: bool = True

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class World:
    """A PyBullet world with a body registry; closes its connection on `close()`."""

    def __init__(self, settings: PhysicsSettings = PhysicsSettings()):
        self.settings = settings
        with quiet_stdout():
            self.client = BulletClient(connection_mode=pybullet.DIRECT)
        self._start_engine()
        # fetched once: each attribute of a BulletClient is a fresh functools.partial
        self._step_simulation = self.client.stepSimulation
        self.bodies: dict[str, int] = {}
        self.materials: dict[str, str] = {}        # body name -> material name (for views)
        self.mesh_sources: dict[str, object] = {}  # body name -> OBJ path or hull vertices of its mesh shape
        # rigid (maximal-coordinate) bodies: PyBullet cannot report their collision shapes, so
        # the World keeps each one's parts for views (tabletop.sim.scene.look)
        self.rigid_parts: dict[str, list[dict]] = {}
        self.watchers: list = []                   # callables(world) run after every step (recorders)
        self.steps = 0
        #: `step(n)` may take its n steps in a few engine calls of several Bullet substeps each (see
        #: `step`). A device sets it where nothing acts on its bodies between the steps of one
        #: `step(n)` call but Bullet itself: no force applied from Python (Bullet clears those once a
        #: call), motors set before the call
        self.substeps = False
        self._substep_plans: dict[int, tuple[tuple[int, int], ...]] = {}
        # contact materials: body name -> (body id, material, links, dynamic); the per-material
        # values solved for the material pairs that occur (see tabletop.sim.materials)
        self._contact_bodies: dict[str, tuple[int, Material, tuple[int, ...], bool]] = {}
        self.pair_table: PairTable | None = None
        self._material_pairs: PairTable | None = None
        self.contacts: ContactSolution | None = None
        self._solutions: dict[tuple[frozenset, frozenset], ContactSolution] = {}

    def _start_engine(self) -> None:
        """An empty Bullet world with this World's settings."""
        settings, c = self.settings, self.client
        c.resetSimulation()
        c.setPhysicsEngineParameter(
            fixedTimeStep=settings.timestep,
            numSubSteps=0,
            numSolverIterations=settings.solver_iterations,
            solverResidualThreshold=settings.solver_residual_threshold,
            deterministicOverlappingPairs=1,
            erp=settings.erp,
            contactERP=settings.contact_erp,
            frictionERP=settings.friction_erp,
            restitutionVelocityThreshold=settings.restitution_velocity_threshold,
            enableConeFriction=1,
            contactSlop=settings.contact_slop,
            useSplitImpulse=int(settings.split_impulse),
            splitImpulsePenetrationThreshold=1.0,   # split every rigid contact, however shallow
        )
        c.setGravity(0.0, 0.0, -settings.gravity)

    def renew(self) -> None:
        """Empty the world into a fresh Bullet world: every body and collision shape gone, the
        settings applied again, the pair table and the step count kept. Bullet keeps state of
        removed bodies inside its solver: a jointed mechanism re-created in the same world
        (the Tipper's tray) does not always move as it does in a new one. A device whose trials
        must not depend on the trials before them renews its world and builds every body again."""
        self._start_engine()
        for registry in (self.bodies, self.materials, self.mesh_sources, self.rigid_parts, self._contact_bodies):
            registry.clear()
        self.contacts = None

    # -- lifetime ---------------------------------------------------------------------------
    def close(self) -> None:
        if self.client is not None:
            self.client.disconnect()
            self.client = None

    def __enter__(self) -> "World":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- time -------------------------------------------------------------------------------
    @property
    def dt(self) -> float:
        return self.settings.timestep

    @property
    def time(self) -> float:
        return self.steps * self.settings.timestep

    def step(self, n: int = 1) -> None:
        """Advance the world n fixed timesteps; watchers (pose recorders) see every step.

        With `substeps` set and no watcher, the steps go to Bullet in calls of k substeps each
        (`_substep_plan`): the same steps, bit for bit, without a Python call and a command round
        trip each (tests/test_world.py). Bullet applies gravity once a call and clears forces once
        a call, and PyBullet applies joint damping once a call: a force a device applies from
        Python, or a damped joint, would act on every substep of a call, not on its first step
        alone. Such a device leaves `substeps` off."""
        step = self._step_simulation
        if not self.watchers:
            if self.substeps and n > 1:
                self._step_in_substeps(n)
            else:
                for _ in range(n):
                    step()
            self.steps += n
            return
        for _ in range(n):
            step()
            self.steps += 1
            for watch in self.watchers:
                watch(self)

    def _step_in_substeps(self, n: int) -> None:
        plan = self._substep_plans.get(n)
        if plan is None:
            plan = self._substep_plans[n] = substep_plan(n, self.settings.timestep)
        client, step, dt = self.client, self._step_simulation, self.settings.timestep
        for k, calls in plan:
            if k == 1:
                for _ in range(calls):
                    step()
                continue
            client.setPhysicsEngineParameter(fixedTimeStep=k * dt, numSubSteps=k)
            try:
                for _ in range(calls):
                    step()
            finally:
                client.setPhysicsEngineParameter(fixedTimeStep=dt, numSubSteps=0)

    # -- bodies -----------------------------------------------------------------------------
    def _register(self, name: str, body: int, material: Material, links: Sequence[int] = (-1,),
                  mesh: str | Path | Sequence | None = None) -> int:
        if name in self.bodies:
            raise ValueError(f"a body named {name!r} is already in this world")
        self.bodies[name] = body
        self.materials[name] = material.name
        if mesh is not None:
            self.mesh_sources[name] = str(mesh) if isinstance(mesh, (str, Path)) else mesh
        self.adopt_pairs(material, f"body {name!r}")
        self._contact_bodies[name] = (body, material, tuple(links), self._is_dynamic(body))
        self._update_contacts(name)
        return body

    def adopt_pairs(self, material: Material, who: str = "") -> None:
        """Take `material`'s pair table as this world's (the first one in), or check that it is the
        same. A device that builds its bodies only when a trial starts adopts its materials' table
        when it is built, so that the model band can draw from it before the first trial."""
        if material.pairs is None:
            return
        # every body's material must come from one pair table (the one the world started
        # with); `set_pair_table` may have replaced the values in use since
        if self._material_pairs is None:
            self._material_pairs = material.pairs
            if self.pair_table is None:
                self.pair_table = material.pairs
        elif (material.pairs is not self._material_pairs
              and material.pairs.as_dict() != self._material_pairs.as_dict()):
            raise ValueError(f"{who or 'a device'}: its material {material.name!r} comes with other pair values "
                             f"than this world's ({material.pairs.source})")

    def _is_dynamic(self, body: int) -> bool:
        c = self.client
        if c.getDynamicsInfo(body, -1)[0] > 0.0:
            return True
        return any(c.getJointInfo(body, j)[2] != pybullet.JOINT_FIXED for j in range(c.getNumJoints(body)))

    def occurring_pairs(self) -> frozenset[tuple[str, str]]:
        """Material pairs that can touch here: two distinct bodies of those materials, one of them moving."""
        out = set()
        items = list(self._contact_bodies.values())
        for i, (_, ma, _, da) in enumerate(items):
            for _, mb, _, db in items[i + 1:]:
                if da or db:
                    out.add(tuple(sorted((ma.name, mb.name))))
        return frozenset(out)

    def _update_contacts(self, new: str | None = None) -> None:
        """Solve the per-material values for the pairs that occur now (cached) and give them to the
        new body, or to every body when the solution changed."""
        pairs = self.occurring_pairs()
        mats = frozenset(m.name for _, m, _, _ in self._contact_bodies.values())
        sol = self._solutions.get((pairs, mats))
        if sol is None:
            table = self.pair_table if self.pair_table is not None else PairTable({})
            sol = self._solutions[(pairs, mats)] = solve_contact_values(mats, pairs, table)
        changed = sol is not self.contacts
        self.contacts = sol
        names = list(self._contact_bodies) if changed or new is None else [new]
        for name in names:
            body, material, links, _ = self._contact_bodies[name]
            for link in links:
                self.set_material(body, material, link)

    def set_pair_table(self, table: PairTable) -> None:
        """Use other pair values from now on (every body gets its new values at once): the model
        band draws a world's materials per trial this way, without rebuilding the device."""
        self.pair_table = table
        self._solutions.clear()
        self.contacts = None
        if self._contact_bodies:
            self._update_contacts()

    def body_values(self, material: Material) -> BodyValues:
        """The contact values a body of `material` gets in this world now."""
        if self.contacts is None or material.name not in self.contacts.values:
            return BodyValues(1.0, 1.0, 0.0, 0.0)
        return self.contacts.values[material.name]

    def contact_report(self) -> dict:
        """The pairs that occur, the values Bullet will combine for them, and any it cannot meet."""
        return self.contacts.report() if self.contacts is not None else {}

    def set_material(self, body: int, material: Material, link: int = -1) -> None:
        """Give a body (or one link of a jointed body) its contact values in this world.

        PyBullet applies a changeDynamics call to the BASE whenever it also sets the activation
        state (its setter resets the link index), and drops a link's values when the call names
        damping: so the contact values go in a call of their own, and the base alone gets damping
        and "never sleep" in a second one. (Before, every link of the Tipper, the spinner's pointer
        and Kong kept Bullet's defaults: friction 0.5, restitution 0, no rolling resistance, and
        the Tipper's ball could not bounce.) contactProcessingThreshold 0 turns off predictive
        contacts, which eat bounces (bullet3 issue 3094) and make a rebound depend on the step."""
        v = self.body_values(material)
        kw = dict(lateralFriction=v.friction, rollingFriction=v.rolling, spinningFriction=v.spinning,
                  restitution=v.restitution)
        if self.settings.contact_processing_threshold is not None:
            kw["contactProcessingThreshold"] = self.settings.contact_processing_threshold
        self.client.changeDynamics(body, link, **kw)
        if link == -1:
            self.client.changeDynamics(body, -1, linearDamping=material.linear_damping,
                                       angularDamping=material.angular_damping,
                                       activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING)

    def add_static_mesh(self, name: str, obj_path: str | Path, material: Material) -> int:
        """A static concave triangle mesh from an OBJ file. Bullet's internal-edge filter is asked
        for, but it skips triangles under about 0.5 cm^2, so a ball rolling on a fine mesh meets the
        edges round the triangle it stands on and loses energy at each; a surface a ball must roll
        on smoothly is better given as a distance field (`add_sdf`)."""
        c = self.client
        shape = c.createCollisionShape(
            pybullet.GEOM_MESH, fileName=str(obj_path),
            flags=pybullet.GEOM_FORCE_CONCAVE_TRIMESH | pybullet.GEOM_CONCAVE_INTERNAL_EDGE)
        body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape)
        return self._register(name, body, material, mesh=obj_path)

    def add_sdf(self, name: str, cdf_path: str | Path, material: Material, mesh: str | Path | None = None) -> int:
        """A static surface given as a signed-distance field (tabletop.sim.sdf): a rigid body against which a
        rigid sphere gets one contact a step, from the field's value and gradient at its centre, so
        it rolls as on a smooth surface. Only spheres collide with a field (and only within the
        field's band). `mesh` names the OBJ the field was made from (views draw it; rays cannot hit
        a field)."""
        from tabletop.sim.sdf import sdf_urdf

        cdf_path = Path(cdf_path)
        urdf = cdf_path.with_suffix(".urdf")
        if not urdf.exists():
            fd, tmp = tempfile.mkstemp(dir=urdf.parent, suffix=".urdf.tmp")
            with os.fdopen(fd, "w") as f:
                f.write(sdf_urdf(cdf_path))
            os.replace(tmp, urdf)
        with quiet_stdout():
            body = self.client.loadURDF(str(urdf), useFixedBase=True, useMaximalCoordinates=True)
        self.rigid_parts[name] = [_mesh_part(mesh)] if mesh is not None else []
        return self._register(name, body, material, mesh=mesh)

    def add_sphere(self, name: str, radius: float, material: Material,
                   position: Sequence[float], mass: float | None = None, rigid: bool = False) -> int:
        """A dynamic solid sphere; its mass follows from the material's density unless given.
        rigid=True: a maximal-coordinate rigid body, whose contacts with other rigid bodies (a
        distance field, `add_sdf`) go through Bullet's rigid solver: its split-impulse pass corrects
        penetration without adding energy, so the world can use a high contact ERP."""
        c = self.client
        if mass is None:
            mass = material.density * 4.0 / 3.0 * np.pi * radius ** 3
        shape = c.createCollisionShape(pybullet.GEOM_SPHERE, radius=radius)
        body = c.createMultiBody(baseMass=mass, baseCollisionShapeIndex=shape,
                                 basePosition=list(position), useMaximalCoordinates=rigid)
        if rigid:
            self.rigid_parts[name] = [{"kind": "sphere", "radius": float(radius), "pos": [0.0, 0.0, 0.0],
                                       "orn": [0.0, 0.0, 0.0, 1.0]}]
        return self._register(name, body, material)

    def add_body(self, name: str, body: int, material: Material, links: Sequence[int] = (-1,),
                 mesh: str | Path | Sequence | None = None) -> int:
        """Register a body built with `self.client` (compounds, jointed mechanisms). A body with
        a mesh shape names its source, an OBJ path or the vertices of its convex hull, because
        PyBullet does not keep it and views build their geometry from the same source."""
        return self._register(name, body, material, links, mesh)

    def remove(self, name: str) -> None:
        self.client.removeBody(self.bodies.pop(name))
        self.rigid_parts.pop(name, None)
        self.materials.pop(name, None)
        self.mesh_sources.pop(name, None)
        self._contact_bodies.pop(name, None)

    # -- state ------------------------------------------------------------------------------
    def position(self, name: str) -> np.ndarray:
        return np.array(self.client.getBasePositionAndOrientation(self.bodies[name])[0])

    def pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        pos, orn = self.client.getBasePositionAndOrientation(self.bodies[name])
        return np.array(pos), np.array(orn)

    def velocity(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        lin, ang = self.client.getBaseVelocity(self.bodies[name])
        return np.array(lin), np.array(ang)

    def set_velocity(self, name: str, linear: Sequence[float], angular: Sequence[float] = (0, 0, 0)) -> None:
        self.client.resetBaseVelocity(self.bodies[name], list(linear), list(angular))


#: the most Bullet substeps `World.step` puts in one engine call
MAX_SUBSTEPS = 240


def exact_substeps(k: int, dt: float) -> bool:
    """Whether one engine call of k substeps takes exactly k steps of dt. PyBullet steps
    (k * dt) / k a substep; Bullet adds the call's k * dt to its clock, takes int(clock / substep)
    substeps and keeps the rest of the clock for the next call: so the substep must come out as dt
    and the count as k in floating point (the rest is then 0)."""
    span = k * dt
    return span / k == dt and span / dt == k


def substep_plan(n: int, dt: float) -> tuple[tuple[int, int], ...]:
    """((substeps per call, calls), ...) that take n steps of dt: as few engine calls as the exact
    substep counts up to MAX_SUBSTEPS allow, then single steps."""
    plan, left = [], n
    for k in range(min(n, MAX_SUBSTEPS), 1, -1):
        if left >= k and exact_substeps(k, dt):
            calls, left = divmod(left, k)
            plan.append((k, calls))
            if left < 2:
                break
    if left:
        plan.append((1, left))
    return tuple(plan)


def _mesh_part(obj_path) -> dict:
    return {"kind": "mesh", "pos": [0.0, 0.0, 0.0], "orn": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0],
            "obj": str(obj_path)}


def engine_versions() -> dict:
    """Versions of the engines a result depends on (for result files and replays)."""
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version(), "physics": PHYSICS_VERSION}
    for pkg in ("pybullet", "numpy", "trimesh", "tabletop"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out
