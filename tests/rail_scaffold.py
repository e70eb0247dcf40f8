"""Scaffolding the optical-rail experiments' tests share, standing in for the agent's hands and eyes where a
scripted arm would be slow: an item set by its pose (into a carriage's holder, back into its stand), a
carriage or the screen set by its index mark's x, and a wrist view that shows the named instruments
readably, cited as it showed them."""

from __future__ import annotations

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.platforms.optical_rail import LENS_HALF, RAIL_TOP, RAIL_Y, OpticalRail, holder_floor

Citation = dict[str, object]


def rail_of(env: LabEnv) -> OpticalRail:
    assert isinstance(env.platform, OpticalRail)
    return env.platform


def put_item(env: LabEnv, item: str, centre: tuple[float, float, float]) -> None:
    """Set ``item`` upright and at rest with its centre at ``centre``."""
    joint = env.model.joint(f"{item}_free")
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*centre, 1.0, 0.0, 0.0, 0.0]
    env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def set_slider(env: LabEnv, name: str, x: float) -> None:
    """Set the carriage (or the screen) ``name`` with its index mark at world ``x``."""
    bench = rail_of(env)
    start = next(c.start_x for c in bench.sliders if c.name == name)
    env.data.qpos[bench._joints[name]] = x - start


def seat_item(env: LabEnv, item: str, carriage: str, x: float) -> None:
    """Set ``carriage`` at ``x`` and ``item`` in its holder."""
    set_slider(env, carriage, x)
    slot = next(c.slot for c in rail_of(env).carriages if c.name == carriage) or LENS_HALF
    put_item(env, item, (x, RAIL_Y, RAIL_TOP + holder_floor(slot) + slot[2] + 0.0003))


def to_stand(env: LabEnv, item: str) -> None:
    """Set ``item`` back in its stand."""
    bench = rail_of(env)
    put_item(env, item, bench.stand_seat(next(i for i in bench.items if i.name == item)))


def serve_view(
    env: LabEnv, names: list[str], px_per_mm: float, decimals: int | None = None
) -> list[Citation]:
    """Serve a wrist view showing ``names`` readably at ``px_per_mm`` and cite what each showed (rounded to
    ``decimals`` when given)."""
    env._served += 1
    seen = f"{env.episode_token}-{env._served}"
    log = env.instrument_log
    log.serve_observation(
        seen, env.clock.time_s, [Visibility(n, "wrist", True, True, px_per_mm) for n in names]
    )
    shown = log.observations[seen].shown
    cited = {n: float(shown[n]) for n in names}  # type: ignore[arg-type]
    return [
        {"observation_id": seen, "instrument": n, "value": v if decimals is None else round(v, decimals)}
        for n, v in cited.items()
    ]


def values(citations: list[Citation]) -> dict[str, float]:
    """The cited values by instrument."""
    return {str(c["instrument"]): float(c["value"]) for c in citations}  # type: ignore[arg-type]
