"""Client of the lab bench: the robot, the cameras and the submission, over HTTP.

    from lab_client import Lab
    lab = Lab()                      # reads lab.json (url and token) from this directory
    seen = lab.observe()             # seen["observation_id"], seen["robot"], seen["images"]["front"] (PNG)
    lab.move_joints([[...7 joint angles...], ...])   # one target per physics step (1/240 s)
    lab.gripper(0.08)                # finger opening in metres (0 closes)
    lab.ik([x, y, z], [w, qx, qy, qz])  # joint angles for a hand pose; the robot does not move
    lab.ik([x, y, z], [w, qx, qy, qz], start=[...7 joint angles...])  # solved from that posture
    lab.wait(2.0)                    # let simulated time pass
    lab.submit({"k": 31.2}, [{"observation_id": "3f9a01c2-12", "instrument": "ruler", "value": 103.5}])

Every call returns plain JSON values. A refused call raises LabError with the server's explanation and
changes nothing; once the result is submitted or the time budget is spent, every call but state() and
calibration() raises EpisodeOver.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

CONFIG_FILE = "lab.json"


class LabError(Exception):
    """The bench refused a call; ``status`` is the HTTP status and the message says what to fix."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class EpisodeOver(LabError):
    """The episode has ended: the result was submitted or the simulated-time budget is spent."""


class Lab:
    """A connection to the bench. ``url`` and ``token`` default to ``lab.json`` beside this module (or
    the ``LAB_URL``/``LAB_TOKEN`` environment variables); without an explicit ``url`` the client uses the
    bench's Unix socket named in ``lab.json`` when it exists (in the sandbox it is the only way to the
    bench). ``workspace`` is the directory exports are written to: by default the one holding
    ``lab.json`` (this module's workspace); without either, exports are refused."""

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        timeout_s: float = 600.0,
        workspace: str | Path | None = None,
    ) -> None:
        config: dict[str, str] = {}
        path = Path(os.environ.get("LAB_CONFIG", Path(__file__).with_name(CONFIG_FILE)))
        if path.exists():
            config = json.loads(path.read_text())
        self.workspace = Path(workspace) if workspace is not None else path.parent if config else None
        socket = config.get("socket")
        transport = None
        if url is None and not os.environ.get("LAB_URL") and socket and Path(socket).exists():
            url, transport = "http://lab", httpx.HTTPTransport(uds=socket)
        self.url = url or os.environ.get("LAB_URL") or config["url"]
        token = token or os.environ.get("LAB_TOKEN") or config["token"]
        self._http = httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout_s,
            trust_env=False,
            transport=transport,
        )

    def _post(self, call: str, **arguments: Any) -> dict[str, Any]:
        return self._answer(self._http.post(f"/v1/{call}", json=arguments))

    def _get(self, query: str) -> dict[str, Any]:
        return self._answer(self._http.get(f"/v1/{query}"))

    @staticmethod
    def _answer(response: httpx.Response) -> dict[str, Any]:
        body = response.json()
        if response.status_code == 409:
            raise EpisodeOver(409, body.get("error", "the episode is over"))
        if response.status_code != 200:
            raise LabError(response.status_code, body.get("error", response.text))
        return body

    def observe(self) -> dict[str, Any]:
        """The three camera images (PNG bytes by camera name), the robot state and an observation id."""
        seen = self._post("observe")
        seen["images"] = {name: base64.b64decode(data) for name, data in seen["images"].items()}
        return seen

    def calibration(self) -> dict[str, Any]:
        """Intrinsics of each camera, extrinsics of the fixed ones, the wrist camera's mount."""
        return self._get("calibration")

    def state(self) -> dict[str, Any]:
        """Joint angles, hand pose, gripper width, simulated time and budget left."""
        return self._get("state")

    def move_joints(self, targets: list[list[float]]) -> dict[str, Any]:
        """Follow 7-joint position targets, one per physics step (1/240 s); the answer's ``contacts`` names
        what the robot touched on the way (parts by the card's names, ``table``, ``other object``)."""
        return self._post("move_joints", targets=[[float(x) for x in q] for q in targets])

    def gripper(self, width_m: float) -> dict[str, Any]:
        """Set the finger opening in metres (0 to 0.08); takes 0.5 s of simulated time."""
        return self._post("gripper", width_m=float(width_m))

    def ik(
        self, position: list[float], quaternion: list[float], start: list[float] | None = None
    ) -> dict[str, Any]:
        """Joint angles for a hand pose (position in m, quaternion w, x, y, z), solved from ``start`` (7 joint
        angles; default the current ones); the robot does not move."""
        arguments: dict[str, Any] = {
            "position": [float(x) for x in position],
            "quaternion": [float(x) for x in quaternion],
        }
        if start is not None:
            arguments["start"] = [float(x) for x in start]
        return self._post("ik", **arguments)

    def wait(self, seconds: float) -> dict[str, Any]:
        """Let ``seconds`` of simulated time pass with the current commands held."""
        return self._post("wait", seconds=float(seconds))

    def export(self, logger: str, file: str) -> dict[str, Any]:
        """Write every row ``logger`` has recorded so far to ``file`` (a .csv name) in the workspace, and
        return its path and row count; cite its rows as {"file", "row", "column", "value"}."""
        if self.workspace is None:
            raise ValueError("this client has no workspace to export into: pass Lab(workspace=...)")
        answer = self._post("export", logger=logger, file=file)
        path = self.workspace / answer["file"]
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)  # never through a link
        with os.fdopen(os.open(path, flags, 0o644), "w") as out:
            out.write(answer["csv"])
        return {"file": str(path), "rows": answer["rows"]}

    def submit(self, result: Mapping[str, float | str], citations: list[dict[str, Any]]) -> dict[str, Any]:
        """Submit the result once, with the readings it rests on."""
        return self._post("submit", result=dict(result), citations=citations)

    # --- level T1 (and T2) ---
    def segment(self, part: str, camera: str = "front") -> dict[str, Any]:
        """T1: the named part's mask as ``camera`` sees it now (``mask_png``, white where the part is) and
        world points on its visible surface (``points``, at most 4000, with their ``centroid``)."""
        seen = self._post("segment", part=part, camera=camera)
        seen["mask_png"] = base64.b64decode(seen["mask_png"])
        return seen

    def move_hand(self, position: list[float], quaternion: list[float]) -> dict[str, Any]:
        """T1: move the hand to a pose along a path planned around every obstacle; refused (LabError) with
        the reason when no such path is found, and then nothing moves."""
        return self._post(
            "move_hand", position=[float(x) for x in position], quaternion=[float(x) for x in quaternion]
        )

    def close(self) -> None:
        self._http.close()
