"""Following a batch job until it ends, with a progress bar where people wait.

`follow` polls a job (any callable returning the GET /batches/:jobId data) and hands
each state to a display: the terminal bar below for the CLI, a widget in notebooks.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

ENDED = ("completed", "failed")


def follow(
    poll: Callable[[], dict], show: Callable[[dict, float], None], interval: float = 0.3, timeout: float = 3600
) -> dict:
    """Poll until the job ends (or timeout); show(state, elapsed seconds) after each poll."""
    started = time.monotonic()
    while True:
        state = poll()
        elapsed = time.monotonic() - started
        show(state, elapsed)
        if state["status"] in ENDED:
            return state
        if elapsed > timeout:
            raise TimeoutError(f"job {state.get('jobId')} still {state['status']} after {timeout:.0f} s")
        time.sleep(interval)  # the next poll is the point of waiting here


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


def terminal(stream: TextIO = sys.stderr) -> Callable[[dict, float], None]:
    """A display that redraws one line on a terminal, or prints milestones elsewhere."""
    last: list[str] = [""]

    def show(state: dict, elapsed: float) -> None:
        line = bar(state, elapsed)
        if stream.isatty():
            stream.write("\r" + line.ljust(len(last[0])))
            if state["status"] in ENDED:
                stream.write("\n")
        elif state["status"] != last[0].rsplit("  ", 1)[-1] or state["status"] in ENDED:
            stream.write(line + "\n")
        stream.flush()
        last[0] = line

    return show
