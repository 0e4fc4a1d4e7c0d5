"""Where each device's step time goes at its converged settings (its spec as it is): issue 40, part 1.

    python scripts/profile_devices.py [--devices die,crater] [--trials 20] [--out FILE.json]

For each device, five passes over the same trials (seed 12345, indices 0..N-1), each in a device of
its own:

1. timed: the trials as `tabletop estimate` runs them, with every call that steps the world timed
   (as `tabletop bench` does): steps per trial, microseconds per step, and the share of the trials'
   time spent stepping (the rest is our Python and the PyBullet queries it makes).
2. python: the same trials under cProfile, PyBullet's calls made visible to it: the non-stepping
   time split into PyBullet queries (getBaseVelocity, motors, ...), our modules and numpy/stdlib,
   with our functions that take the most of it.
3. bullet: the first `--bullet-trials` trials with `STATE_LOGGING_PROFILE_TIMINGS` on (Bullet's own
   timers, a Chrome trace), parsed into the step's phases: broadphase, narrowphase, CCD, the
   constraint solver (setup, iterations, split-impulse pass, finish), integration, the rest; the
   solver iterations actually run; the step time of steps at rest and in motion.
4. contacts: every `--every`-th step of the first `--census-trials` trials, the contact points by
   pair of (body, link) with each side's collision shape (sphere, box, cylinder, convex hull,
   compound, concave triangle mesh, distance field) and the time of one narrowphase query of the
   pair (`getClosestPoints`); at every step whether the moving bodies are under the device's settle
   speeds, and how much of each trial's end is spent at rest, near the final pose, or (the crater)
   inside the seat region it ends in: what an earlier end of trial would cut.
5. resting: the world at rest after a trial, stepped bare as the spec has it, with the solver's
   residual threshold raised, with 10 iterations and with Bullet's sleeping allowed.

Passes 3 and 4 see the steps a device takes through `World.step`, one at a time; a device that
steps Bullet itself (several substeps in one call) is seen in pass 3 as one step a call.

The figures go to stdout and, with --out, to a JSON file (docs/results/physics-profile.json;
docs/physics-profile.md reads them). Run it single process; it prints the load average at the start
and the end.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from tabletop.gamekit.devices import DEVICES, make_device
from tabletop.sim.batch import run_trials
from tabletop.sim.bullet import pybullet, quiet_stdout
from tabletop.sim.readouts import region_of

SEED = 12345
#: with --converged: each device built at the numerics and code switches `tabletop bench` keeps as they
#: were on 2026-12-06 (tabletop.sim.bench), whatever its spec and code say now
AS_CONVERGED = [False]
ROOT = str(Path(__file__).resolve().parent.parent)

# -- Bullet's timers, as btDiscreteDynamicsWorld / btMultiBodyDynamicsWorld name them (3.2.7) ------
#: the phase each timer's own time goes to; a timer not named here counts in its nearest named
#: ancestor's phase (see `parse_trace`)
PHASES = {
    "updateAabbs": "broadphase",
    "calculateOverlappingPairs": "broadphase",
    "dispatchAllCollisionPairs": "narrowphase",
    "createPredictiveContacts": "narrowphase (CCD)",
    "release predictive contact manifolds": "narrowphase (CCD)",
    "calculateSimulationIslands": "islands",
    "islandUnionFindAndQuickSort": "islands",
    "solveGroupCacheFriendlySetup": "solver setup",
    "convertBodies": "solver setup",
    "convertJoints": "solver setup",
    "convertContacts": "solver setup",
    "convertMultiBodyContacts": "solver setup",
    "solveGroupCacheFriendlyIterations": "solver iterations",
    "solveGroupCacheFriendlySplitImpulseIterations": "solver split impulse",
    "solveGroupCacheFriendlyFinish": "solver finish",
    "btMultiBodyConstraintSolver::solveGroupCacheFriendlyFinish": "solver finish",
    "warm starting write back": "solver finish",
    "predictUnconstraintMotion": "integration",
    "predictUnconstraintMotionSoftBody": "integration",
    "btMultiBody addGravity": "integration",
    "btMultiBody stepVelocities": "integration",
    "integrateTransforms": "integration",
    "btMultiBody stepPositions": "integration",
    "updateActivationState": "other",
    "btMultiBodyDynamicsWorld::updateActivationState": "other",
    "updateActions": "other",
    "solveSoftConstraints": "other",
}
#: the phases summed into the doc's three columns
GROUPS = {"collision": ("broadphase", "narrowphase", "narrowphase (CCD)"),
          "solver": ("islands", "solver setup", "solver iterations", "solver split impulse", "solver finish",
                     "solver (rest)"),
          "integration": ("integration",)}
STEP_TIMER = "CMD_STEP_FORWARD_SIMULATION"
ITERATION_TIMER = "solveSingleIteration"      # one per solver iteration and island
ITERATIONS = "#iterations"                    # its count in a step's record (not a phase)
SOLVER_TIMER = "solveConstraints"
_EVENT = re.compile(r'"ts":([0-9.]+) ,"ph":"([BE])","name":"(.*?)\d*","args"')


def load_average() -> list[float]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return []


def build(name: str):
    """The device as its spec has it, or with --converged as it was on 2026-12-06."""
    if not AS_CONVERGED[0]:
        return make_device(name)
    from tabletop.sim.bench import CONVERGED_2026_12, CONVERGED_2026_12_BEHAVIOUR

    device = make_device(name, overrides=CONVERGED_2026_12.get(name, ()))
    for attr, value in CONVERGED_2026_12_BEHAVIOUR.get(name, {}).items():
        setattr(device, attr, value)
    return device


class StepHook:
    """Wraps `world.step` of one device for the duration of a pass; `after(world)` runs after each
    single step (n-step calls are split)."""

    def __init__(self, device, after):
        self.world, self.after = device.world, after

    def __enter__(self):
        world, after, step = self.world, self.after, self.world.step

        def hooked(n: int = 1) -> None:
            for _ in range(n):
                step(1)
                after(world)
        world.step = hooked
        return self

    def __exit__(self, *exc):
        del self.world.step


class Stillness:
    """Whether a world's moving parts are under the device's settle speeds at a step: `free` the
    free bodies (every body whose base has mass: a die, a marble, a pawn; where there is none, the
    joints), `all` those and every moving joint of a mechanism (revolute against the angular
    speed, prismatic the linear)."""

    def __init__(self, rule):
        self.lin2, self.ang2, self.ang, self.lin = rule.linear ** 2, rule.angular ** 2, rule.angular, rule.linear

    def __call__(self, world) -> tuple[bool, bool]:
        c = world.client
        free = True
        joints = True
        any_free = False
        for b in world.bodies.values():
            if c.getDynamicsInfo(b, -1)[0] > 0.0:
                any_free = True
                lin, ang = c.getBaseVelocity(b)
                if sum(v * v for v in lin) > self.lin2 or sum(v * v for v in ang) > self.ang2:
                    free = False
            for j in range(c.getNumJoints(b)):
                kind = c.getJointInfo(b, j)[2]
                if kind == pybullet.JOINT_FIXED:
                    continue
                limit = self.lin if kind == pybullet.JOINT_PRISMATIC else self.ang
                if abs(c.getJointState(b, j)[1]) > limit:
                    joints = False
        if not any_free:           # a mechanism alone (the spinner's pointer): its joints
            free = joints
        return free, free and joints


# -- pass 1: timed -------------------------------------------------------------------------------
def timed_pass(name: str, trials: int) -> dict:
    device = build(name)
    try:
        run_trials(device, SEED, range(2))       # warm: meshes, imports, caches
        world = device.world
        step, engine_step = world.step, world.client.stepSimulation
        stepping = [0.0]

        def timed(*args, **kwargs):
            t = time.perf_counter()
            out = step(*args, **kwargs)
            stepping[0] += time.perf_counter() - t
            return out

        def timed_engine(*args, **kwargs):      # a device that steps Bullet itself (substeps)
            t = time.perf_counter()
            out = engine_step(*args, **kwargs)
            stepping[0] += time.perf_counter() - t
            return out
        world.step, world.client.stepSimulation = timed, timed_engine
        try:
            t0 = time.perf_counter()
            records = run_trials(device, SEED, range(trials))
            total = time.perf_counter() - t0
        finally:
            del world.step, world.client.stepSimulation
        settings = world.settings
    finally:
        device.close()
    steps = [r["steps"] for r in records]
    n = sum(steps)
    return {"trials": trials, "timestep": settings.timestep, "solver_iterations": settings.solver_iterations,
            "steps": n, "steps_per_trial": n / trials, "steps_min": min(steps), "steps_max": max(steps),
            "sim_s_per_trial": sum(r["sim_time"] for r in records) / trials,
            "statuses": {s: sum(r["status"] == s for r in records) for s in sorted({r["status"] for r in records})},
            "trial_s": total, "trials_per_s": trials / total, "us_per_step": 1e6 * total / n,
            "stepping_us_per_step": 1e6 * stepping[0] / n, "stepping_share": stepping[0] / total}


# -- pass 2: cProfile ----------------------------------------------------------------------------
def _visible_getattr(self, name):
    """BulletClient.__getattr__ with the client id bound in a Python closure rather than a
    functools.partial: cProfile sees no call a partial makes from C, so the PyBullet calls would
    be counted as their callers' own time."""
    attribute = getattr(pybullet, name)
    if callable(attribute) and type(attribute).__name__ == "builtin_function_or_method":
        func, cid = attribute, self._client

        def attribute(*args, **kwargs):
            return func(*args, physicsClientId=cid, **kwargs)
    if name == "disconnect":
        self._client = -1
    return attribute


def python_pass(name: str, trials: int, top: int = 8) -> dict:
    from pybullet_utils.bullet_client import BulletClient

    saved = BulletClient.__getattr__
    BulletClient.__getattr__ = _visible_getattr      # before the device is built: it keeps its calls
    try:
        device = build(name)
    finally:
        BulletClient.__getattr__ = saved
    try:
        run_trials(device, SEED, range(2))
        prof = cProfile.Profile()
        prof.enable()
        run_trials(device, SEED, range(trials))
        prof.disable()
    finally:
        device.close()
    stats = pstats.Stats(prof).stats
    buckets = defaultdict(float)
    ours, api = [], []
    total = 0.0
    for (path, line, func), (_, calls, tottime, _, _) in stats.items():
        total += tottime
        if "stepSimulation" in func:
            buckets["stepSimulation"] += tottime
        elif path == "~" and "pybullet." in func:
            buckets["pybullet queries"] += tottime
            api.append((tottime, func.strip("<>").replace("built-in method ", ""), calls))
        elif func == "attribute" and path == __file__:
            buckets["pybullet queries"] += tottime     # the closure above: a call's own overhead
        elif ROOT in path and "site-packages" not in path:
            buckets["our Python"] += tottime
            short = re.sub(r".*?/(sim|gamekit|games|tabletop)/", r"\1/", path)
            ours.append((tottime, f"{short}:{line} {func}", calls))
        else:
            buckets["numpy, stdlib, other"] += tottime
    ours.sort(reverse=True)
    api.sort(reverse=True)
    return {"profiled_s": total, "shares": {k: v / total for k, v in sorted(buckets.items())},
            "top_ours": [{"function": f, "calls": c, "s": round(t, 4), "share": t / total} for t, f, c in ours[:top]],
            "top_queries": [{"function": f, "calls": c, "s": round(t, 4), "share": t / total} for t, f, c in api[:top]]}


# -- pass 3: Bullet's own timers -----------------------------------------------------------------
def parse_trace(path: Path) -> list[dict]:
    """Each step's phases from a Chrome trace Bullet wrote: per step, {phase: [us, timers]}.

    A timer's own time (less its children's) goes to its phase, or to its nearest ancestor's that
    has one; inside the solver with none, "solver (rest)"; inside a step with none (the command's
    own handling and the timers' own cost), "step (rest)". Time outside a step is not counted."""
    intervals = []
    pending = None
    with open(path) as f:
        for line in f:
            m = _EVENT.search(line)
            if not m:
                continue
            ts, ph, name = float(m.group(1)), m.group(2), m.group(3)
            if ph == "B":
                pending = (name, ts)
            elif pending is not None and pending[0] == name:
                intervals.append((pending[1], ts, name))
                pending = None
    intervals.sort(key=lambda iv: (iv[0], -iv[1]))
    steps: list[dict] = []
    stack: list[tuple[float, float, str, str | None, list]] = []   # (start, end, name, phase, [child us])

    def close(until: float) -> None:
        while stack and stack[-1][1] <= until:
            s, e, nm, ph, kids = stack.pop()
            if stack:
                stack[-1][4][0] += e - s
            inside = [x[2] for x in stack] + [nm]
            if STEP_TIMER not in inside:
                continue
            if nm == ITERATION_TIMER:
                steps[-1][ITERATIONS] = steps[-1].get(ITERATIONS, 0) + 1
            if ph is None:
                ph = "solver (rest)" if SOLVER_TIMER in inside else "step (rest)"
            cell = steps[-1].setdefault(ph, [0.0, 0])
            cell[0] += max((e - s) - kids[0], 0.0)
            cell[1] += 1

    for s, e, nm in intervals:
        close(s)
        if nm == STEP_TIMER:
            steps.append({})
            ph = None
        else:
            parent = stack[-1][3] if stack else None
            ph = PHASES.get(nm, parent)
        stack.append((s, e, nm, ph, [0.0]))
    close(float("inf"))
    return steps


def bullet_pass(name: str, trials: int, max_steps: int) -> dict:
    """Bullet's phases per step over the first `trials` trials (at most `max_steps` steps), as
    its timers read them (their own cost included: it lands mostly in "step (rest)"; the timers
    a phase holds per step are kept beside it); steps that took over 20x the median and 200 us
    more (the process descheduled) are left out and counted."""
    device = build(name)
    tmp = Path(tempfile.mkdtemp(prefix="bullet-profile-"))
    try:
        run_trials(device, SEED, range(2))
        client = device.world.client
        with quiet_stdout():
            log = [client.startStateLogging(pybullet.STATE_LOGGING_PROFILE_TIMINGS, str(tmp / "trace.json"))]
        count = [0]
        still = Stillness(device.settle_spec())
        flags: list[tuple[bool, bool]] = []

        def after(world):
            count[0] += 1
            if log[0] is not None:
                flags.append(still(world))      # outside the step: the trace does not see it
            if count[0] == max_steps and log[0] is not None:
                with quiet_stdout():
                    world.client.stopStateLogging(log[0])
                log[0] = None
        with StepHook(device, after):
            run_trials(device, SEED, range(trials))
        if log[0] is not None:
            with quiet_stdout():
                device.world.client.stopStateLogging(log[0])
        files = sorted(tmp.glob("trace.json*"))
        per_step = parse_trace(files[0]) if files else []
    finally:
        device.close()
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()
    iterations = [st.pop(ITERATIONS, 0) for st in per_step]
    totals = [sum(c[0] for c in st.values()) for st in per_step]
    median = sorted(totals)[len(totals) // 2] if totals else 0.0
    ok = [tot <= 20 * median + 200.0 for tot in totals]
    kept = [st for st, good in zip(per_step, ok) if good]
    # the step time of steps where the free bodies rest, and where everything rests
    by_rest = {}
    kept_total = sum(tot for tot, good in zip(totals, ok) if good)

    def mean(v):
        return sum(v) / len(v) if v else None
    for key, i in (("free_still", 0), ("all_still", 1)):
        rest = [(tot, it) for tot, it, good, f in zip(totals, iterations, ok, flags) if good and f[i]]
        move = [(tot, it) for tot, it, good, f in zip(totals, iterations, ok, flags) if good and not f[i]]
        by_rest[key] = {"steps": len(rest), "us_per_step": mean([r[0] for r in rest]),
                        "iterations_per_step": mean([r[1] for r in rest]),
                        "other_steps": len(move), "other_us_per_step": mean([m[0] for m in move]),
                        "other_iterations_per_step": mean([m[1] for m in move]),
                        "share_of_step_time": sum(r[0] for r in rest) / max(kept_total, 1e-9)}
    n = max(len(kept), 1)
    raw: dict[str, float] = defaultdict(float)
    timers: dict[str, float] = defaultdict(float)
    for st in kept:
        for ph, (us, k) in st.items():
            raw[ph] += us / n
            timers[ph] += k / n
    phases = dict(sorted(raw.items()))
    groups = {g: sum(phases.get(p, 0.0) for p in ps) for g, ps in GROUPS.items()}
    groups["other"] = sum(phases.values()) - sum(groups.values())
    total = sum(phases.values()) or 1.0
    return {"trials": trials, "steps_logged": len(per_step), "steps_dropped": len(per_step) - len(kept),
            "step_us_with_timers": sum(raw.values()), "timers_per_step": sum(timers.values()),
            "solver_iterations_run_per_step": mean([it for it, good in zip(iterations, ok) if good]),
            "phase_us_per_step": phases,
            "phase_timers_per_step": dict(sorted(timers.items())),
            "group_us_per_step": groups, "group_share_of_step": {g: v / total for g, v in groups.items()},
            "resting": by_rest}


# -- pass 5: the resting world, as it is and with the solver or Bullet's sleeping let off ---------
def resting_pass(name: str, seconds: float = 0.5) -> dict:
    """After a trial the device's bodies rest where it read them. Microseconds per bare step of that
    resting world (`seconds` of it, at least 2,000 steps, the best of three runs): as the spec steps
    it, with the solver's residual threshold (solverResidualThreshold, PyBullet's default 1e-7) at
    1e-5 and 1e-3, with 10 iterations instead of the spec's, and with Bullet's sleeping allowed on
    every body (after 2.5 s to fall asleep).
    What a step the speed work would not take (an earlier end) or would make cheaper costs now."""
    device = build(name)
    try:
        run_trials(device, SEED, range(2))
        w = device.world
        c = w.client
        step = c.stepSimulation
        n = max(2000, round(seconds / w.dt))

        def timed() -> float:           # the best of three runs: the machine is shared
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                for _ in range(n):
                    step()
                best = min(best, time.perf_counter() - t)
            return 1e6 * best / n
        out = {"steps": n, "spec": timed()}
        for threshold in (1e-5, 1e-3):
            c.setPhysicsEngineParameter(solverResidualThreshold=threshold)
            out[f"residual {threshold:g}"] = timed()
        c.setPhysicsEngineParameter(solverResidualThreshold=1e-7)
        c.setPhysicsEngineParameter(numSolverIterations=10)
        out["10 iterations"] = timed()
        c.setPhysicsEngineParameter(numSolverIterations=w.settings.solver_iterations)
        out["spec again"] = timed()
        for b in w.bodies.values():
            c.changeDynamics(b, -1, activationState=pybullet.ACTIVATION_STATE_ENABLE_SLEEPING)
        for _ in range(round(2.5 / w.dt)):
            step()
        out["sleeping allowed"] = timed()
    finally:
        device.close()
    return out


# -- pass 4: contacts by pair, shapes, the resting tail ---------------------------------------------
_GEOM = {pybullet.GEOM_SPHERE: "sphere", pybullet.GEOM_BOX: "box", pybullet.GEOM_CYLINDER: "cylinder",
         pybullet.GEOM_MESH: "mesh", pybullet.GEOM_PLANE: "plane", pybullet.GEOM_CAPSULE: "capsule"}


def shape_of(world, body: int, link: int, names: dict[int, str]) -> str:
    """What kind of collision shape a body's link is (Bullet's and our own registries)."""
    c = world.client
    name = names.get(body, "")
    try:
        with quiet_stdout():                  # a rigid body's query fails with a warning on stdout
            data = c.getCollisionShapeData(body, link)
    except pybullet.error:
        data = ()
    if not data:
        parts = world.rigid_parts.get(name)
        if parts is not None:
            kinds = [p["kind"] for p in parts]
            if kinds == ["mesh"]:
                return "distance field (SDF)"
            return "+".join(kinds) or "distance field (SDF)"
        return "none"
    mass = c.getDynamicsInfo(body, link)[0]
    kinds = []
    for d in data:
        k = _GEOM.get(d[2], f"geom {d[2]}")
        if k == "mesh":
            src = world.mesh_sources.get(name)
            k = "concave triangle mesh" if (mass == 0.0 and isinstance(src, str) and link == -1
                                             and c.getNumJoints(body) == 0) else "convex hull"
        kinds.append(k)
    if len(kinds) == 1:
        return kinds[0]
    counts = defaultdict(int)
    for k in kinds:
        counts[k] += 1
    return "compound of " + ", ".join(f"{n} {k}{'es' if k.endswith('x') and n > 1 else 's' if n > 1 else ''}"
                                      for k, n in sorted(counts.items()))


NEAR_M, NEAR_DEG = 0.005, 10.0


def _near_final_tail(trace) -> int:
    """How many of the last samples of a trial have every free body within NEAR_M and NEAR_DEG of
    the pose it ends in (the trial's final approach: rocking in place and the settle hold)."""
    if not trace:
        return 0
    last = trace[-1][0]
    n = 0
    for poses, _ in reversed(trace):
        if len(poses) != len(last):
            break
        ok = True
        for (p, q), (p1, q1) in zip(poses, last):
            dot = min(1.0, abs(sum(a * b for a, b in zip(q, q1))))
            if np.linalg.norm(np.subtract(p, p1)) > NEAR_M or np.degrees(2 * np.arccos(dot)) > NEAR_DEG:
                ok = False
                break
        if not ok:
            break
        n += 1
    return n


def _same_tail(values) -> int:
    """How many of the last values equal the last one."""
    n = 0
    for v in reversed(values):
        if v != values[-1]:
            break
        n += 1
    return n


def census_pass(name: str, trials: int, every: int, queries: int = 10) -> dict:
    device = build(name)
    try:
        run_trials(device, SEED, range(2))
        world = device.world
        rule = device.settle_spec()
        pairs: dict[tuple, dict] = {}
        sampled = [0]
        still = Stillness(rule)
        free_steps, all_steps = [0], [0]
        total_steps = [0]
        tails: list[tuple[int, int]] = []
        run, run_all = [0], [0]          # consecutive still steps now
        shapes: dict[tuple[int, int], str] = {}

        def label(body: int, link: int, names) -> str:
            nm = names.get(body, f"body {body}")
            if link >= 0:
                try:
                    nm += "/" + world.client.getJointInfo(body, link)[12].decode()
                except pybullet.error:
                    nm += f"/link {link}"
            return nm

        def after(w):
            c = w.client
            names = {b: n for n, b in w.bodies.items()}
            total_steps[0] += 1
            free, everything = still(w)
            free_steps[0] += free
            all_steps[0] += everything
            run[0] = run[0] + 1 if free else 0
            run_all[0] = run_all[0] + 1 if everything else 0
            if total_steps[0] % every:
                return
            sampled[0] += 1
            poses = []
            for b in names:
                if c.getDynamicsInfo(b, -1)[0] > 0.0:
                    pos, orn = c.getBasePositionAndOrientation(b)
                    poses.append((pos, orn))
            if poses:
                region = region_of(np.array(poses[0][0]), regions) if regions else None
                trace.append((poses, region))
            seen = {}
            for pt in c.getContactPoints():
                a, b, la, lb = pt[1], pt[2], pt[3], pt[4]
                key = (a, la, b, lb) if (a, la) <= (b, lb) else (b, lb, a, la)
                seen[key] = seen.get(key, 0) + 1
            for key, n in seen.items():
                a, la, b, lb = key
                for bl in ((a, la), (b, lb)):
                    if bl not in shapes:
                        shapes[bl] = shape_of(w, bl[0], bl[1], names)
                pk = (label(a, la, names), label(b, lb, names))
                entry = pairs.setdefault(pk, {"a": pk[0], "b": pk[1], "shape_a": shapes[(a, la)],
                                              "shape_b": shapes[(b, lb)], "sampled_steps": 0, "points": 0,
                                              "query_us": 0.0, "queries": 0})
                entry["sampled_steps"] += 1
                entry["points"] += n
                if entry["queries"] < 50 * queries:
                    t = time.perf_counter()
                    for _ in range(queries):
                        c.getClosestPoints(a, b, 0.0, la, lb)
                    entry["query_us"] += 1e6 * (time.perf_counter() - t)
                    entry["queries"] += queries

        trial_steps = []
        near_final, region_fixed = [], []
        regions = getattr(device, "seat_regions", None)      # the crater's seats (label = region)
        with StepHook(device, after):
            for i in range(trials):
                before = total_steps[0]
                run[0] = run_all[0] = 0
                trace: list = []
                run_trials(device, SEED, [i])
                trial_steps.append(total_steps[0] - before)
                tails.append((run[0], run_all[0]))
                near_final.append(every * _near_final_tail(trace))
                if regions:
                    region_fixed.append(every * _same_tail([r for _, r in trace]))
        # the cost of one PyBullet call that does no collision work, for scale
        body = next(iter(world.bodies.values()))
        t = time.perf_counter()
        for _ in range(1000):
            world.client.getBasePositionAndOrientation(body)
        call_us = 1e3 * (time.perf_counter() - t)
    finally:
        device.close()
    n = max(sampled[0], 1)
    out = []
    for e in pairs.values():
        out.append({"a": e["a"], "b": e["b"], "shape_a": e["shape_a"], "shape_b": e["shape_b"],
                    "share_of_sampled_steps": e["sampled_steps"] / n, "points_per_step": e["points"] / n,
                    "points_per_touching_step": e["points"] / e["sampled_steps"],
                    "query_us": e["query_us"] / max(e["queries"], 1)})
    out.sort(key=lambda e: -e["points_per_step"])
    steps = sum(trial_steps)
    return {"trials": trials, "every": every, "sampled_steps": sampled[0], "pairs": out,
            "points_per_step": sum(e["points_per_step"] for e in out),
            "near_final_pose_tail_share": sum(near_final) / max(steps, 1),
            "near_final_pose": f"within {1000 * NEAR_M:g} mm and {NEAR_DEG:g} deg of the pose it ends in",
            "final_region_tail_share": sum(region_fixed) / max(steps, 1) if regions else None,
            "free_still_share": free_steps[0] / max(steps, 1),
            "free_still_tail_share": sum(t[0] for t in tails) / max(steps, 1),
            "all_still_share": all_steps[0] / max(steps, 1),
            "all_still_tail_share": sum(t[1] for t in tails) / max(steps, 1),
            "settle_hold_steps": round(rule.hold / world.settings.timestep),
            "still_rule": {"linear": rule.linear, "angular": rule.angular},
            "api_call_us": call_us}


def profile_device(name: str, trials: int, bullet_trials: int, bullet_max_steps: int, census_trials: int,
                   every: int) -> dict:
    out = {"device": name}
    out["timed"] = timed_pass(name, trials)
    out["python"] = python_pass(name, trials)
    out["bullet"] = bullet_pass(name, bullet_trials, bullet_max_steps)
    out["contacts"] = census_pass(name, census_trials, every)
    out["resting"] = resting_pass(name)
    t, py, bl = out["timed"], out["python"]["shares"], out["bullet"]
    # the trials' time split: stepping (by Bullet's phase shares), the rest by cProfile's split
    step_share = t["stepping_share"]
    rest = 1.0 - step_share
    nonstep = {k: v for k, v in py.items() if k != "stepSimulation"}
    nonstep_total = sum(nonstep.values()) or 1.0
    split = {g: step_share * s for g, s in bl.get("group_share_of_step", {}).items()}
    split["step (other)"] = split.pop("other", 0.0)
    for k, v in nonstep.items():
        split[k] = rest * v / nonstep_total
    out["split_of_trial_time"] = split
    return out


def summary_line(fig: dict) -> str:
    t, s = fig["timed"], fig["split_of_trial_time"]
    top = fig["contacts"]["pairs"][:2]
    pairs = "; ".join(f"{p['a']} ({p['shape_a']}) - {p['b']} ({p['shape_b']}) {p['points_per_step']:.2f} pts/step"
                      for p in top)
    return (f"{fig['device']}: {t['steps_per_trial']:.0f} steps/trial at 1/{1 / t['timestep']:.0f} s, "
            f"{t['us_per_step']:.1f} us/step, {t['trials_per_s']:.2f} trials/s; collision "
            f"{100 * s.get('collision', 0):.0f}%, solver {100 * s.get('solver', 0):.0f}%, integration "
            f"{100 * s.get('integration', 0):.0f}%, step other {100 * s.get('step (other)', 0):.0f}%, our Python "
            f"{100 * s.get('our Python', 0):.0f}%, queries {100 * s.get('pybullet queries', 0):.0f}%; "
            f"free bodies still {100 * fig['contacts']['free_still_share']:.0f}% of steps "
            f"(at the end {100 * fig['contacts']['free_still_tail_share']:.0f}%), everything still "
            f"{100 * fig['contacts']['all_still_share']:.0f}%; "
            f"{pairs}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", default=None, help="comma-separated devices (default: every registered one)")
    ap.add_argument("--trials", type=int, default=20, help="trials of the timed and cProfile passes (default 20)")
    ap.add_argument("--bullet-trials", type=int, default=2, help="trials with Bullet's timers on (default 2)")
    ap.add_argument("--bullet-max-steps", type=int, default=6000,
                    help="stop Bullet's timers after this many steps (the trace grows ~30 kB a step; default 6000)")
    ap.add_argument("--census-trials", type=int, default=5, help="trials of the contact census (default 5)")
    ap.add_argument("--every", type=int, default=10, help="census: contacts read every this many steps (default 10)")
    ap.add_argument("--converged", action="store_true",
                    help="each device at the numerics and code switches of 2026-12-06 (tabletop.sim.bench's "
                         "CONVERGED_2026_12 and _BEHAVIOUR) instead of its spec as it is")
    ap.add_argument("--out", type=Path, default=None, help="write every figure as JSON here")
    args = ap.parse_args(argv)
    AS_CONVERGED[0] = args.converged
    names = args.devices.split(",") if args.devices else list(DEVICES)
    result = {"command": " ".join(["python scripts/profile_devices.py", *(argv if argv is not None else sys.argv[1:])]),
              "cpu_count": os.cpu_count(), "load_average_start": load_average(), "as_converged": args.converged,
              "devices": {}}
    from tabletop.sim.world import engine_versions
    result["versions"] = engine_versions()
    print(f"load average {result['load_average_start']} on {os.cpu_count()} CPUs", flush=True)
    for name in names:
        fig = profile_device(name, args.trials, args.bullet_trials, args.bullet_max_steps, args.census_trials,
                             args.every)
        result["devices"][name] = fig
        print(summary_line(fig), flush=True)
        if args.out:      # written after each device, so a long run leaves what it has
            args.out.write_text(json.dumps(result, indent=1) + "\n")
    result["load_average_end"] = load_average()
    print(f"load average at the end {result['load_average_end']}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
