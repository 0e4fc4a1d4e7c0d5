"""One physics world: one PyBullet DIRECT connection, a fixed timestep, deterministic settings.

A World never touches PyBullet's module-global connection: every call goes through its
own `BulletClient`, so many worlds can live side by side in one process.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from sim.bullet import BulletClient, pybullet, quiet_stdout
from sim.materials import Material


@dataclass(frozen=True)
class PhysicsSettings:
    """Solver settings of a World; all explicit so that a run is reproducible."""

    timestep: float = 1.0 / 240.0
    solver_iterations: int = 50
    gravity: float = 9.81
    erp: float = 0.2
    contact_erp: float = 0.2
    friction_erp: float = 0.2
    restitution_velocity_threshold: float = 0.05

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class World:
    """A PyBullet world with a body registry; closes its connection on `close()`."""

    def __init__(self, settings: PhysicsSettings = PhysicsSettings()):
        self.settings = settings
        with quiet_stdout():
            self.client = BulletClient(connection_mode=pybullet.DIRECT)
        c = self.client
        c.resetSimulation()
        c.setPhysicsEngineParameter(
            fixedTimeStep=settings.timestep,
            numSubSteps=0,
            numSolverIterations=settings.solver_iterations,
            deterministicOverlappingPairs=1,
            erp=settings.erp,
            contactERP=settings.contact_erp,
            frictionERP=settings.friction_erp,
            restitutionVelocityThreshold=settings.restitution_velocity_threshold,
            enableConeFriction=1,
        )
        c.setGravity(0.0, 0.0, -settings.gravity)
        self.bodies: dict[str, int] = {}
        self.materials: dict[str, str] = {}        # body name -> material name (for views)
        self.mesh_sources: dict[str, object] = {}  # body name -> OBJ path or hull vertices of its mesh shape
        self.watchers: list = []                   # callables(world) run after every step (recorders)
        self.steps = 0

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
        """Advance the world n fixed timesteps; watchers (pose recorders) see every step."""
        step = self.client.stepSimulation
        if not self.watchers:
            for _ in range(n):
                step()
            self.steps += n
            return
        for _ in range(n):
            step()
            self.steps += 1
            for watch in self.watchers:
                watch(self)

    # -- bodies -----------------------------------------------------------------------------
    def _register(self, name: str, body: int, material: Material, links: Sequence[int] = (-1,),
                  mesh: str | Path | Sequence | None = None) -> int:
        if name in self.bodies:
            raise ValueError(f"a body named {name!r} is already in this world")
        self.bodies[name] = body
        self.materials[name] = material.name
        if mesh is not None:
            self.mesh_sources[name] = str(mesh) if isinstance(mesh, (str, Path)) else mesh
        for link in links:
            self.set_material(body, material, link)
        return body

    def set_material(self, body: int, material: Material, link: int = -1) -> None:
        self.client.changeDynamics(
            body, link,
            lateralFriction=material.friction,
            rollingFriction=material.rolling_friction,
            spinningFriction=material.spinning_friction,
            restitution=material.restitution,
            linearDamping=material.linear_damping,
            angularDamping=material.angular_damping,
            activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING,
        )

    def add_static_mesh(self, name: str, obj_path: str | Path, material: Material) -> int:
        """A static concave triangle mesh (internal-edge filtered) from an OBJ file."""
        c = self.client
        shape = c.createCollisionShape(
            pybullet.GEOM_MESH, fileName=str(obj_path),
            flags=pybullet.GEOM_FORCE_CONCAVE_TRIMESH | pybullet.GEOM_CONCAVE_INTERNAL_EDGE)
        body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape)
        return self._register(name, body, material, mesh=obj_path)

    def add_sphere(self, name: str, radius: float, material: Material,
                   position: Sequence[float], mass: float | None = None) -> int:
        """A dynamic solid sphere; its mass follows from the material's density unless given."""
        c = self.client
        if mass is None:
            mass = material.density * 4.0 / 3.0 * np.pi * radius ** 3
        shape = c.createCollisionShape(pybullet.GEOM_SPHERE, radius=radius)
        body = c.createMultiBody(baseMass=mass, baseCollisionShapeIndex=shape,
                                 basePosition=list(position))
        return self._register(name, body, material)

    def add_body(self, name: str, body: int, material: Material, links: Sequence[int] = (-1,),
                 mesh: str | Path | Sequence | None = None) -> int:
        """Register a body built with `self.client` (compounds, jointed mechanisms). A body with
        a mesh shape names its source, an OBJ path or the vertices of its convex hull, because
        PyBullet does not keep it and views build their geometry from the same source."""
        return self._register(name, body, material, links, mesh)

    def remove(self, name: str) -> None:
        self.client.removeBody(self.bodies.pop(name))
        self.materials.pop(name, None)
        self.mesh_sources.pop(name, None)

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


def engine_versions() -> dict:
    """Versions of the engines a result depends on (for result files and replays)."""
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for pkg in ("pybullet", "numpy", "trimesh", "tabletop"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out
