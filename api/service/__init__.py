"""The service layer: the one place with business rules (credits, plans, limits, ownership).

REST handlers, MCP tools, the workbench and the notebook API all call a `Service`.
"""

from __future__ import annotations

from ..blobs import UrlSigner, open_blobs
from ..metrics import Metrics
from ..plans import PLANS
from ..ratelimit import Decision, rate_limiter
from ..renderers import Renderers, RenderLimits
from ..sealing import server_secret
from ..settings import Settings
from ..store import open_store
from .accounts import Accounts
from .batches import Batches
from .common import Workspace
from .designs import Designs
from .generation import Generation
from .idempotency import Idempotency
from .media import Media
from .revisions import Revisions
from .revocations import RevocationInbox
from .signing import Signing
from .webhooks import Webhooks


class Service:
    def __init__(self, settings: Settings):
        self.settings = settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.store = open_store(settings)
        self.blobs = open_blobs(settings.blob_location)
        # One process keeps its secret in the data dir; several share --secret.
        self.signer = UrlSigner(settings.secret or settings.data_dir / "url-secret", settings.public_url)
        # Started on first use: a CLI command that never renders never starts a process.
        self.renderers = Renderers(settings.render_processes, self.blobs.location, RenderLimits.from_environment())
        # Counted by this process (api/metrics.py), served at /metrics unless --no-metrics.
        self.metrics = Metrics()
        self.accounts = Accounts(self.store, self.metrics)
        self.media = Media(self.store, self.blobs, self.signer, settings, self.renderers)
        self.designs = Designs(self.store, self.media)
        self.revisions = Revisions(self.store, self.designs)
        # Signing certificates, sealed with a key derived from the same secret as file URLs.
        self.signing = Signing(self.store, settings, self.renderers)
        self.generation = Generation(
            self.store,
            self.blobs,
            self.signer,
            self.accounts,
            self.designs,
            self.media,
            self.renderers,
            self.signing,
            self.metrics,
        )
        self.webhooks = Webhooks(self.store, self.accounts, settings, self.metrics)
        self.batches = Batches(
            self.store,
            self.signer,
            self.accounts,
            self.designs,
            self.media,
            self.webhooks,
            self.signing,
            self.metrics,
            secret=server_secret(settings),
            blobs=self.blobs,
        )
        self.revocations = RevocationInbox(settings.data_dir, self.accounts)
        self.idempotency = Idempotency(self.store)
        # Checked by the HTTP faces once a request's key is known (api.http); None: no limit.
        self.rate_limits = rate_limiter(settings.rate_limit, settings.redis_url)

    def admit(self, api_key: str | None) -> tuple[Workspace, Decision | None]:
        """Who calls the API (401/403 as `Accounts.api_caller` says) and, when requests are
        limited, the token its request took or was refused: the HTTP faces answer with both."""
        workspace = self.accounts.api_caller(api_key)
        return workspace, self.rate_limits.take(workspace.id) if self.rate_limits is not None else None

    def start_jobs(self) -> None:
        """Start the batch back-end (only a serving process runs jobs) and resume unfinished ones."""
        if self.settings.redis_url:
            from ..jobs.redis_backend import RedisBackend

            self.batches.backend = RedisBackend(self.settings.redis_url, self.blobs.location, self.batches)
        else:
            from ..jobs.embedded import EmbeddedBackend

            # Rows render in the same processes as generations and previews (one set per server).
            self.batches.backend = EmbeddedBackend(
                self.blobs.location, self.batches, self.renderers.pool, server_secret(self.settings)
            )
        self.batches.resume_unsettled()
        self.batches.start_leases()  # renews this process's jobs, takes over those of a process that died
        self.webhooks.start()  # sends the batch events due, this process's and those left by others
        # `docbench key revoke` cannot open DuckDB while this process holds it, so it asks this
        # process; on PostgreSQL the command revokes in the database itself, which every server reads.
        if self.store.single_writer_process:
            self.revocations.start()

    def ensure_default_workspace(self) -> str | None:
        """On first start, a `default` workspace (pro, 100 credits); returns its key once."""
        if self.accounts.list_workspaces():
            return None
        made = self.accounts.create_first_workspace("default", "pro", 100)
        return made[1] if made else None

    def close(self) -> None:
        self.revocations.stop()
        self.renderers.close()
        if self.batches.backend is not None:
            self.batches.backend.close()
        self.batches.close()  # after the back-end: no job of this process runs on once its lease is let go
        self.webhooks.close()  # after the batches: an event a job's end scheduled is left to the next process
        self.store.close()
        if self.rate_limits is not None:
            self.rate_limits.close()


__all__ = ["PLANS", "Service", "Settings", "Workspace"]
