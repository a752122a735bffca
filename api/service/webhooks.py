"""Batch webhooks (extensions.md 8): a signed event POSTed when a batch job ends, retried.

When a job settles (api/service/batches.py), the same transaction records the event's first
delivery attempt in `webhook_deliveries` (migration 11): an ended job always has its event,
and a crash after the commit loses nothing. Each web process runs one sender thread that
claims the due attempts with one UPDATE ... RETURNING whose WHERE requires an unclaimed (or
lapsed) claim, as the batch leases do: of several processes exactly one gets a row, so no
attempt is sent twice. A process that died leaves its claims to lapse (CLAIM_SECONDS); one
that stops cleanly lets go of them. Each attempt's outcome is written on its row; a failure
(no answer in 10 s, a refused connection, a non-2xx answer) adds the next attempt's row,
due after 10 s, 1 min, 5 min, 30 min, then 2 h; the sixth failure abandons the event.

The body is fixed when the event is made (every attempt sends the same bytes; receivers
deduplicate by event id); the signature is made per attempt, with the attempt's time:
`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed by the workspace's secret.

The address checks are the image fetcher's (api/images/fetch.py), at submission and again
at every attempt, and the connection goes to the vetted address itself (a name that later
resolves to a private address, DNS rebinding, is refused like any other).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
import secrets
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..errors import validation
from ..images.fetch import FetchRefused, _parse, _resolve
from ..settings import Settings, positive_seconds_from_env
from ..store import Store
from .accounts import Accounts
from .common import iso, new_id, now

log = logging.getLogger("docbench.webhooks")

RETRY_DELAYS = (10, 60, 300, 1800, 7200)  # seconds before attempts 2..6 (extensions.md 8)
SCALE_ENV = "DOCBENCH_WEBHOOK_RETRY_SCALE"  # multiplies RETRY_DELAYS and the poll period; tests shorten them
SEND_TIMEOUT = 10.0
CLAIM_SECONDS = 60.0  # longer than an attempt can take: a claim outliving it means its process died
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
    except FetchRefused as exc:
        raise validation(f"webhookUrl: {exc}") from None
    return target.url


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The Docbench-Signature header's value."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


class Webhooks:
    def __init__(self, store: Store, accounts: Accounts, settings: Settings):
        self.store = store
        self.accounts = accounts
        self.allow_private = settings.webhook_allow_private
        self.scale = positive_seconds_from_env(SCALE_ENV, 1.0)
        self.runner = secrets.token_hex(8)  # this process, in the claims it holds
        self._cafile = settings.fetch_cafile
        self._client: httpx.Client | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._sender: threading.Thread | None = None

    # Scheduling (inside the transaction that settles the job)

    def schedule(self, cursor: Any, workspace_id: str, url: str, job: dict) -> None:
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

    def deliveries(self, job_id: str) -> list[dict]:
        """The attempts made so far, first first (GET /batches/:jobId's `webhook.deliveries`)."""
        return [
            {"attempt": attempt, "at": iso(at), "status": status, "error": error}
            for attempt, at, status, error in self.store.all(
                "SELECT attempt, attempted_at, status, error FROM webhook_deliveries "
                "WHERE job_id = ? AND attempted_at IS NOT NULL ORDER BY attempt",
                [job_id],
            )
        ]

    # Sending

    def start(self) -> None:
        self._sender = threading.Thread(target=self._send_loop, daemon=True, name="docbench-webhooks")
        self._sender.start()

    def _send_loop(self) -> None:
        period = min(POLL_SECONDS, POLL_SECONDS * self.scale)
        while not self._stop.is_set():
            try:
                self.send_due()
            except Exception:
                log.exception("sending webhooks failed; trying again")
            self._wake.wait(period)
            self._wake.clear()

    def send_due(self) -> int:
        """Claim the due attempts no live process holds, send them, record each; how many were sent."""
        moment = now()
        due = "state = 'pending' AND due_at <= ? AND (claim_until IS NULL OR claim_until < ?)"
        row = self.store.one(f"SELECT count(*) FROM webhook_deliveries WHERE {due}", [moment, moment])
        if not row or not row[0]:  # the common case, a read: no write lock taken every poll
            return 0
        with self.store.transaction() as cursor:
            claimed = cursor.execute(
                f"UPDATE webhook_deliveries SET claimed_by = ?, claim_until = ? WHERE {due} "
                "RETURNING id, event_id, workspace_id, url, body, attempt",
                [self.runner, moment + dt.timedelta(seconds=CLAIM_SECONDS), moment, moment],
            ).fetchall()
        for delivery in sorted(claimed, key=lambda d: d[5]):
            if self._stop.is_set():
                break  # close() lets go of the rest
            self._attempt(*delivery)
        return len(claimed)

    def _attempt(self, delivery_id: str, event_id: str, workspace_id: str, url: str, body: str, attempt: int) -> None:
        payload = body.encode()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Docbench-Event-Id": event_id,
            "Docbench-Signature": sign(self.accounts.webhook_secret(workspace_id), int(time.time()), payload),
        }
        status, error = self._post(url, payload, headers)
        self._record(delivery_id, attempt, status, error)

    def _http(self) -> httpx.Client:
        if self._client is None:  # built on first send: loading the trust store takes a while
            context = ssl.create_default_context(cafile=self._cafile)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            self._client = httpx.Client(timeout=SEND_TIMEOUT, verify=context, follow_redirects=False, trust_env=False)
        return self._client

    def _post(self, url: str, payload: bytes, headers: dict[str, str]) -> tuple[int | None, str | None]:
        """The receiver's HTTP status and, unless it was 2xx, why the attempt failed."""
        try:
            target = _parse(url, NOUN, _schemes(self.allow_private), FIX)
            addresses = _resolve(target, self.allow_private, FIX)  # again: the name may resolve elsewhere now
        except FetchRefused as exc:
            return None, str(exc)
        scheme = urlsplit(target.url).scheme.lower()
        default_port = 443 if scheme == "https" else 80
        shown_host = f"[{target.host}]" if ":" in target.host else target.host
        host_header = shown_host if target.port == default_port else f"{shown_host}:{target.port}"
        extensions = {"sni_hostname": target.host} if scheme == "https" else {}
        failure = f"could not connect to {target.host[:100]}"
        for address in addresses:
            # Straight to the vetted address; Host, SNI and the certificate check use the name.
            ip = f"[{address}]" if address.version == 6 else str(address)
            pinned = f"{scheme}://{ip}:{target.port}{target.path}"
            try:
                with self._http().stream(
                    "POST", pinned, content=payload, headers={**headers, "Host": host_header}, extensions=extensions
                ) as response:  # the answer's body is never read: only its status counts
                    status = response.status_code
            except httpx.ConnectTimeout:
                return None, f"connecting to {target.host[:100]} timed out after {SEND_TIMEOUT:g} s"
            except httpx.ConnectError as exc:
                if "CERTIFICATE_VERIFY_FAILED" in str(exc):
                    return None, f"the TLS certificate of {target.host[:100]} could not be verified"
                continue  # the host's next address
            except httpx.TimeoutException:
                return None, f"no answer from {target.host[:100]} within {SEND_TIMEOUT:g} s"
            except httpx.HTTPError:
                return None, f"the server at {target.host[:100]} sent an invalid or incomplete HTTP answer"
            if 200 <= status < 300:
                return status, None
            return status, f"the receiver answered {status}; a 2xx answer acknowledges the event"
        return None, failure

    def _record(self, delivery_id: str, attempt: int, status: int | None, error: str | None) -> None:
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
            if row is None or state != "failed":  # another process took it over, or it is over
                return
            delay = dt.timedelta(seconds=RETRY_DELAYS[attempt - 1] * self.scale)
            cursor.execute(
                "INSERT INTO webhook_deliveries (id, event_id, job_id, workspace_id, url, body, attempt, due_at, "
                "state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
                [new_id("whd"), *row, attempt + 1, moment + delay, moment],
            )
        if not delivered:
            log.info("webhook attempt %d for job %s failed: %s", attempt, row[1], error)

    def close(self) -> None:
        """Stop sending and let go of this process's claims: another process, or this one
        restarted, sends them at once."""
        self._stop.set()
        self._wake.set()
        if self._sender is None:  # a process that never sent (a CLI command) holds no claim
            return
        self._sender.join(timeout=SEND_TIMEOUT + 5)
        if self._client is not None:
            self._client.close()
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE webhook_deliveries SET claim_until = NULL WHERE claimed_by = ? AND state = 'pending'",
                [self.runner],
            )
