"""Plans and the features they include (spec 4.1): defined once, read by the service's
checks, the `Me` response model (and so OpenAPI and MCP) and the CLI's choices."""

from __future__ import annotations

USE_API_KEYS = "useApiKeys"  # calling the API at all: REST, MCP, the workbench, the notebook
BATCH_GENERATE = "batchGenerate"  # submitting and following batch jobs
FEATURES = (USE_API_KEYS, BATCH_GENERATE)

PLANS: dict[str, dict[str, bool]] = {
    "free": {USE_API_KEYS: False, BATCH_GENERATE: False},
    "starter": {USE_API_KEYS: True, BATCH_GENERATE: False},
    "pro": {USE_API_KEYS: True, BATCH_GENERATE: True},
}
