"""Following batch jobs until they end: the one poller of `get_batch`, with displays.

`follow` polls jobs through a `Client` and hands each state to a callback: the CLI's
terminal bar below, or `workbench.client.batches` collecting each job's ZIP as it ends (and
moving the notebook's progress bar).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from api.models import JOB_ENDED

if TYPE_CHECKING:
    from .api import Client

FOLLOWED_AT_ONCE = 8  # jobs polled each round; later ones wait their turn in the queue anyway


def follow(
    client: Client,
    job_ids: list[str],
    on_state: Callable[[str, dict], None],
    *,
    interval: float = 0.3,
    timeout: float = 3600,
) -> dict[str, dict]:
    """Poll the jobs, in order, until every one ended; `on_state(job id, state)` after each
    poll (the GET /batches/:jobId data). Their final states, by job id. TimeoutError when
    no row of any job finished for `timeout` seconds."""
    final: dict[str, dict] = {}
    done: dict[str, int] = dict.fromkeys(job_ids, 0)
    moved = time.monotonic()
    while len(final) < len(job_ids):
        for job_id in [j for j in job_ids if j not in final][:FOLLOWED_AT_ONCE]:
            state = client.call("get_batch", {"jobId": job_id})
            finished = state["completed"] + state["failed"]
            if finished > done[job_id]:
                done[job_id], moved = finished, time.monotonic()
            on_state(job_id, state)
            if state["status"] in JOB_ENDED:
                final[job_id] = state
        waiting = [j for j in job_ids if j not in final]
        if waiting:
            if time.monotonic() - moved > timeout:
                raise TimeoutError(f"batch {waiting[0]}: no row finished in {timeout:.0f} s")
            time.sleep(interval)  # the next poll is the point of waiting here
    return final


def bar(state: dict, elapsed: float, width: int = 30) -> str:
    """`[#########-----------]  45/100  2 failed  18.3 rows/s  ETA 3 s  processing`."""
    done = state["completed"] + state["failed"]
    total = max(state["total"], 1)
    filled = round(width * done / total)
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = f"ETA {(total - done) / rate:.0f} s" if rate and done < total else ""
    failed = f"{state['failed']} failed" if state["failed"] else ""
    parts = [
        f"[{'#' * filled}{'-' * (width - filled)}]",
        f"{done:>4}/{state['total']}",
        failed,
        f"{rate:.1f} rows/s" if done else "",
        eta,
        state["status"],
    ]
    return "  ".join(p for p in parts if p)


def terminal(stream: TextIO = sys.stderr) -> Callable[[str, dict], None]:
    """A display (for `follow`) that redraws one line on a terminal, or prints milestones elsewhere."""
    last: list[str] = [""]
    started = time.monotonic()

    def show(job_id: str, state: dict) -> None:
        line = bar(state, time.monotonic() - started)
        if stream.isatty():
            stream.write("\r" + line.ljust(len(last[0])))
            if state["status"] in JOB_ENDED:
                stream.write("\n")
        elif state["status"] != last[0].rsplit("  ", 1)[-1] or state["status"] in JOB_ENDED:
            stream.write(line + "\n")
        stream.flush()
        last[0] = line

    return show
