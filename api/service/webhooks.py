"""Batch webhooks (extensions.md 8): a signed event POSTed when a batch job ends, retried.

When a job settles (api/service/batches.py), the same transaction records the event's first
delivery attempt in `webhook_deliveries` (migration 11): an ended job always has its event,
and a crash after the commit loses nothing. Each web process runs one thread that claims
due attempts with one UPDATE ... RETURNING whose WHERE requires an unclaimed (or lapsed)
claim, as the batch leases do: of several processes exactly one gets a row. It claims only as
many as it has idle senders (SENDERS threads), so a claimed attempt is sent at once, never
left waiting in a list while its claim runs out; just before the POST the sender renews the
claim (an UPDATE that must still find it this process's), and the attempt as a whole, from
the connect to the answer's status, has ATTEMPT_SECONDS: a receiver that trickles its answer
is cut off then, well within CLAIM_SECONDS, so no other process can take the attempt over
while it is being sent, and one slow receiver holds one sender, not the others' events.
Workspaces take turns, as they do for render processes (api/renderers/pool.py): a claim takes
each workspace's first due attempt before any workspace's second, and a workspace holds at
most PER_WORKSPACE of a process's senders, so one whose receivers all hang delays another's
event by nothing (the other senders are free for it), not by its whole backlog.
A process that died leaves its claims to lapse; one that stops cleanly lets go of those it
is not sending. Each attempt's outcome is written on its row; a failure (no answer in 10 s,
a refused connection, a non-2xx answer) adds the next attempt's row, due after 10 s, 1 min,
5 min, 30 min, then 2 h; the sixth failure abandons the event.

The body is fixed when the event is made (every attempt sends the same bytes; receivers
deduplicate by event id); the signature is made per attempt, with the attempt's time:
`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed by the workspace's secret.

The address checks are the image fetcher's (api/images/fetch.py), at submission and again
at every attempt, and the connection goes to the vetted address itself (a name that later
resolves to a private address, DNS rebinding, is refused like any other).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import json
import logging
import secrets
import ssl
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..errors import ApiError, unreachable, validation
from ..images.fetch import FetchRefused, IPAddress, ResolverUnavailable, _parse, _resolve, _Target
from ..metrics import Metrics
from ..settings import Settings, positive_seconds_from_env
from ..store import Store
from .accounts import Accounts
from .common import iso, new_id, now

log = logging.getLogger("docbench.webhooks")

RETRY_DELAYS = (10, 60, 300, 1800, 7200)  # seconds before attempts 2..6 (extensions.md 8)
SCALE_ENV = "DOCBENCH_WEBHOOK_RETRY_SCALE"  # multiplies RETRY_DELAYS and the poll period; tests shorten them
ATTEMPT_SECONDS = 10.0  # one attempt in all: connect, TLS, the request, the answer's status (extensions.md 8)
# Renewed just before the POST, which then ends within ATTEMPT_SECONDS: a claim outliving
# that by far means its process died.
CLAIM_SECONDS = 60.0
SENDERS = 4  # attempts one process sends at once: a slow receiver holds one of them
# At most this many of a process's attempts in flight are one workspace's: half its senders
# (rounded up, never 0), the other half always left to the other workspaces' events.
PER_WORKSPACE = -(-SENDERS // 2)
POLL_SECONDS = 1.0
USER_AGENT = "docbench-webhooks/1"
NOUN = "webhook URL"
FIX = "use a public https:// URL, or start the server with --webhook-allow-private (local use and tests)"


def _schemes(allow_private: bool) -> tuple[str, ...]:
    return ("https", "http") if allow_private else ("https",)


def check_webhook_url(url: str, allow_private: bool) -> str:
    """The URL if a batch may name it; 400 VALIDATION_ERROR naming the fix otherwise."""
    try:
        target = _parse(url, NOUN, _schemes(allow_private), FIX)
        _resolve(target, allow_private, FIX)
    except ResolverUnavailable as exc:  # not the URL's fault: a retry may succeed, so not a kept 400
        raise ApiError("SERVICE_UNAVAILABLE", f"webhookUrl: {exc}") from None
    except FetchRefused as exc:
        raise validation(f"webhookUrl: {exc}") from None
    return target.url


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The Docbench-Signature header's value."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


class Webhooks:
    def __init__(self, store: Store, accounts: Accounts, settings: Settings, metrics: Metrics | None = None):
        self.store = store
        self.accounts = accounts
        self.metrics = metrics or Metrics()
        self.allow_private = settings.webhook_allow_private
        self.scale = positive_seconds_from_env(SCALE_ENV, 1.0)
        self.runner = secrets.token_hex(8)  # this process, in the claims it holds
        self._cafile = settings.fetch_cafile
        self._tls: ssl.SSLContext | None = None
        self._guard = threading.Lock()
        # delivery id -> its workspace and its attempt, claimed and handed to a sender
        self._sending: dict[str, tuple[str, Future]] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._claimer: threading.Thread | None = None
        self._senders: ThreadPoolExecutor | None = None

    # Scheduling (inside the transaction that settles the job)

    def schedule(self, cursor: Any, workspace_id: str, url: str, job: dict) -> None:
        """`job` is the job as GET /batches/:jobId answers it, `webhook` included."""
        event = {
            "id": new_id("evt"),
            "type": "batch.completed" if job["status"] == "completed" else "batch.failed",
            "createdAt": iso(now()),
            "data": job,
        }
        cursor.execute(
            "INSERT INTO webhook_deliveries (id, event_id, job_id, workspace_id, url, body, attempt, due_at, state, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, 'pending', ?)",
            [
                new_id("whd"),
                event["id"],
                job["jobId"],
                workspace_id,
                url,
                json.dumps(event, separators=(",", ":")),
                now(),
                now(),
            ],
        )

    def poke(self) -> None:
        """An event was just committed: send it now rather than at the next poll."""
        self._wake.set()

    # Reading

    def deliveries(self, job_id: str, cursor: Any = None) -> list[dict]:
        """The attempts made so far, first first (GET /batches/:jobId's `webhook.deliveries`);
        read through `cursor` inside a transaction."""
        sql = (
            "SELECT attempt, attempted_at, status, error FROM webhook_deliveries "
            "WHERE job_id = ? AND attempted_at IS NOT NULL ORDER BY attempt"
        )
        found = cursor.execute(sql, [job_id]).fetchall() if cursor is not None else self.store.all(sql, [job_id])
        return [
            {"attempt": attempt, "at": iso(at), "status": status, "error": error}
            for attempt, at, status, error in found
        ]

    # Sending

    def start(self) -> None:
        self._senders = ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="docbench-webhook")
        self._claimer = threading.Thread(target=self._claim_loop, daemon=True, name="docbench-webhooks")
        self._claimer.start()

    def _claim_loop(self) -> None:
        period = min(POLL_SECONDS, POLL_SECONDS * self.scale)
        while not self._stop.is_set():
            try:
                self.send_due()
            except unreachable() as outage:  # not a bug: one line a try, no traceback
                log.error("claiming webhooks failed (%s); trying again", str(outage).strip())
            except Exception:
                log.exception("claiming webhooks failed; trying again")
            self._wake.wait(period)
            self._wake.clear()

    def send_due(self) -> int:
        """Claim as many due attempts (no live process holds them) as there are idle senders,
        workspaces in turn and none past PER_WORKSPACE, and hand each to one; how many were
        handed over."""
        assert self._senders is not None, "start() first"
        with self._guard:
            busy = Counter(workspace_id for workspace_id, _ in self._sending.values())
        idle = SENDERS - busy.total()
        if idle <= 0:
            return 0  # a sender that finishes wakes the loop
        moment = now()
        due = "state = 'pending' AND due_at <= ? AND (claim_until IS NULL OR claim_until < ?)"
        # Each workspace's due attempts numbered by `turn` (first due first): ordered by turn, the
        # list goes round the workspaces. Past PER_WORKSPACE turns none could be taken; of those
        # before, a workspace with attempts in flight here skips as many as it has in flight, so
        # `idle` + those is enough to find `idle` takeable ones. A read: no write lock every poll.
        candidates = self.store.all(
            "SELECT id, workspace_id FROM (SELECT id, workspace_id, due_at, attempt, row_number() OVER "
            f"(PARTITION BY workspace_id ORDER BY due_at, attempt) AS turn FROM webhook_deliveries WHERE {due}) "
            "AS ranked WHERE turn <= ? ORDER BY turn, due_at, attempt LIMIT ?",
            [moment, moment, PER_WORKSPACE, idle + busy.total()],
        )
        chosen: list[str] = []
        for delivery_id, workspace_id in candidates:
            if len(chosen) < idle and busy[workspace_id] < PER_WORKSPACE:
                chosen.append(delivery_id)
                busy[workspace_id] += 1
        if not chosen:
            return 0
        marks = ", ".join("?" for _ in chosen)
        with self.store.transaction() as cursor:
            # The WHERE repeats the test: of two processes choosing the same rows, the second
            # finds them claimed once the first commits, and gets none of them.
            claimed = cursor.execute(
                f"UPDATE webhook_deliveries SET claimed_by = ?, claim_until = ? WHERE id IN ({marks}) AND {due} "
                "RETURNING id, event_id, workspace_id, url, body, attempt",
                [self.runner, moment + dt.timedelta(seconds=CLAIM_SECONDS), *chosen, moment, moment],
            ).fetchall()
        for delivery in claimed:
            delivery_id, workspace_id = delivery[0], delivery[2]
            with self._guard:
                future = self._senders.submit(self._attempt, *delivery)
                self._sending[delivery_id] = (workspace_id, future)
            future.add_done_callback(lambda _, delivery_id=delivery_id: self._sent(delivery_id))
        return len(claimed)

    def _sent(self, delivery_id: str) -> None:
        with self._guard:
            self._sending.pop(delivery_id, None)
        self._wake.set()  # a sender is idle: claim what is due

    def _attempt(self, delivery_id: str, event_id: str, workspace_id: str, url: str, body: str, attempt: int) -> None:
        if self._stop.is_set():
            return  # close() lets go of its claim
        started = time.monotonic()
        try:
            status, error = self._post(delivery_id, url, body.encode(), event_id, workspace_id)
        except _ClaimLost:
            log.warning("webhook attempt %s was taken over by another process before it was sent", delivery_id)
            return
        self._record(delivery_id, attempt, status, error, time.monotonic() - started)

    def _renew(self, delivery_id: str) -> bool:
        """Extend this process's claim on the attempt, just before sending it; False if it is
        no longer this process's (it lapsed and another process took it)."""
        with self.store.transaction() as cursor:
            row = cursor.execute(
                "UPDATE webhook_deliveries SET claim_until = ? WHERE id = ? AND claimed_by = ? AND state = 'pending' "
                "RETURNING id",
                [now() + dt.timedelta(seconds=CLAIM_SECONDS), delivery_id, self.runner],
            ).fetchone()
        return row is not None

    def _tls_context(self) -> ssl.SSLContext:
        with self._guard:
            if self._tls is None:  # built on first send: loading the trust store takes a while
                context = ssl.create_default_context(cafile=self._cafile)
                context.minimum_version = ssl.TLSVersion.TLSv1_2
                self._tls = context
            return self._tls

    def _post(
        self, delivery_id: str, url: str, payload: bytes, event_id: str, workspace_id: str
    ) -> tuple[int | None, str | None]:
        """The receiver's HTTP status and, unless it was 2xx, why the attempt failed."""
        try:
            target = _parse(url, NOUN, _schemes(self.allow_private), FIX)
            addresses = _resolve(target, self.allow_private, FIX)  # again: the name may resolve elsewhere now
        except FetchRefused as exc:
            return None, str(exc)
        if not self._renew(delivery_id):
            raise _ClaimLost
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Docbench-Event-Id": event_id,
            "Docbench-Signature": sign(self.accounts.webhook_secret(workspace_id), int(time.time()), payload),
        }
        # httpx's timeouts are per phase (a receiver sending a byte every few seconds never
        # trips them); asyncio's timeout bounds the attempt as a whole.
        return asyncio.run(self._send(target, addresses, payload, headers))

    async def _send(
        self, target: _Target, addresses: list[IPAddress], payload: bytes, headers: dict[str, str]
    ) -> tuple[int | None, str | None]:
        host = target.host[:100]
        scheme = urlsplit(target.url).scheme.lower()
        default_port = 443 if scheme == "https" else 80
        shown_host = f"[{target.host}]" if ":" in target.host else target.host
        host_header = shown_host if target.port == default_port else f"{shown_host}:{target.port}"
        extensions = {"sni_hostname": target.host} if scheme == "https" else {}
        verify = self._tls_context() if scheme == "https" else False
        try:
            async with (
                asyncio.timeout(ATTEMPT_SECONDS),
                httpx.AsyncClient(
                    timeout=ATTEMPT_SECONDS, verify=verify, follow_redirects=False, trust_env=False
                ) as client,
            ):
                for address in addresses:
                    # Straight to the vetted address; Host, SNI and the certificate check use the name.
                    ip = f"[{address}]" if address.version == 6 else str(address)
                    pinned = f"{scheme}://{ip}:{target.port}{target.path}"
                    try:
                        async with client.stream(
                            "POST",
                            pinned,
                            content=payload,
                            headers={**headers, "Host": host_header},
                            extensions=extensions,
                        ) as response:  # the answer's body is never read: only its status counts
                            status = response.status_code
                    except httpx.ConnectError as exc:
                        if "CERTIFICATE_VERIFY_FAILED" in str(exc):
                            return None, f"the TLS certificate of {host} could not be verified"
                        continue  # the host's next address
                    if 200 <= status < 300:
                        return status, None
                    return status, f"the receiver answered {status}; a 2xx answer acknowledges the event"
        except httpx.ConnectTimeout:
            return None, f"connecting to {host} timed out after {ATTEMPT_SECONDS:g} s"
        except (TimeoutError, httpx.TimeoutException):
            return None, f"no answer from {host} within {ATTEMPT_SECONDS:g} s"
        except httpx.HTTPError:
            return None, f"the server at {host} sent an invalid or incomplete HTTP answer"
        return None, f"could not connect to {host}"

    def _record(self, delivery_id: str, attempt: int, status: int | None, error: str | None, seconds: float) -> None:
        moment = now()
        delivered = error is None
        last = attempt > len(RETRY_DELAYS)
        state = "delivered" if delivered else ("abandoned" if last else "failed")
        with self.store.transaction() as cursor:
            row = cursor.execute(
                "UPDATE webhook_deliveries SET state = ?, attempted_at = ?, status = ?, error = ?, claim_until = NULL "
                "WHERE id = ? AND claimed_by = ? AND state = 'pending' "
                "RETURNING event_id, job_id, workspace_id, url, body",
                [state, moment, status, error, delivery_id, self.runner],
            ).fetchone()
            if row is not None and state == "failed":
                delay = dt.timedelta(seconds=RETRY_DELAYS[attempt - 1] * self.scale)
                cursor.execute(
                    "INSERT INTO webhook_deliveries (id, event_id, job_id, workspace_id, url, body, attempt, due_at, "
                    "state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
                    [new_id("whd"), *row, attempt + 1, moment + delay, moment],
                )
        if row is None:  # cannot happen while claims are renewed before sending; said if it does
            log.warning("webhook attempt %s was taken over by another process; its outcome is dropped", delivery_id)
            return
        # Counted once committed: a rolled-back outcome is not an outcome.
        self.metrics.webhook_deliveries.labels(state).inc()
        self.metrics.webhook_delivery_seconds.observe(seconds)
        if not delivered:
            log.info("webhook attempt %d for job %s failed: %s", attempt, row[1], error)

    def close(self) -> None:
        """Stop sending and let go of this process's claims on attempts not being sent: another
        process, or this one restarted, sends them at once. An attempt still being sent keeps
        its claim (it ends within ATTEMPT_SECONDS, and its claim lapses soon after)."""
        self._stop.set()
        self._wake.set()
        if self._claimer is None:  # a process that never sent (a CLI command) holds no claim
            return
        self._claimer.join(timeout=5)
        assert self._senders is not None
        with self._guard:
            running = [future for _, future in self._sending.values()]
        wait(running, timeout=ATTEMPT_SECONDS + 5)
        self._senders.shutdown(wait=False, cancel_futures=True)
        with self._guard:
            still_sending = list(self._sending)
        marks = ", ".join("?" for _ in still_sending)
        keep = f" AND id NOT IN ({marks})" if still_sending else ""
        with self.store.transaction() as cursor:
            cursor.execute(
                f"UPDATE webhook_deliveries SET claim_until = NULL WHERE claimed_by = ? AND state = 'pending'{keep}",
                [self.runner, *still_sending],
            )


class _ClaimLost(Exception):
    """The attempt's claim lapsed and another process took it: this one must not send it."""
