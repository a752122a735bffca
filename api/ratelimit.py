"""Rate limits per workspace (extensions.md 8, "Rate limits"): a token bucket of N requests
per second, checked by every authenticated HTTP request (REST and MCP) once its key is known.

The bucket holds at most N tokens (a burst of N is fine) and refills N per second; a request
takes one token, or is refused with 429 RATE_LIMITED and Retry-After (whole seconds until a
token is back, at least 1). Every answer to an authenticated request carries RateLimit-Limit,
RateLimit-Remaining (whole tokens left) and RateLimit-Reset (whole seconds until the bucket
is full again).

One process keeps its buckets in memory. Processes that share a Redis (--redis-url) share
the buckets there: one Lua script reads, refills, takes and writes a bucket atomically, on
Redis's clock (TIME), so processes whose clocks differ still agree. When that Redis cannot
be reached, each process limits with its own buckets until Redis answers again (it is asked
again every few seconds, and the outage logged once): a rate limit must neither turn a Redis
outage into an API outage nor wait on a dead Redis before every request.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from .blocking import may_wait

log = logging.getLogger("docbench.ratelimit")

REDIS_PREFIX = "docbench:ratelimit:"
REDIS_RETRY_SECONDS = 5.0  # while Redis is down, how long each process limits alone before asking it again


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    tokens: float  # left after this request
    rate: float  # tokens per second

    def headers(self) -> dict[str, str]:
        """The RateLimit-* headers, and Retry-After on a refusal."""
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(max(0, math.floor(self.tokens))),
            "RateLimit-Reset": str(math.ceil(max(0.0, self.limit - self.tokens) / self.rate)),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after)
        return headers

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil((1 - self.tokens) / self.rate))


class RateLimiter(Protocol):
    def take(self, workspace_id: str) -> Decision: ...

    def close(self) -> None: ...


class MemoryBuckets:
    """The buckets of one process."""

    def __init__(self, per_second: int):
        self.capacity = per_second
        self.rate = float(per_second)
        self._buckets: dict[str, tuple[float, float]] = {}  # workspace -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, workspace_id: str) -> Decision:
        moment = time.monotonic()
        with self._lock:
            tokens, when = self._buckets.get(workspace_id, (float(self.capacity), moment))
            tokens = min(self.capacity, tokens + (moment - when) * self.rate)
            allowed = tokens >= 1
            if allowed:
                tokens -= 1
            self._buckets[workspace_id] = (tokens, moment)
        return Decision(allowed, self.capacity, tokens, self.rate)

    def close(self) -> None:
        pass


# KEYS[1]: the bucket; ARGV: capacity, tokens per second. Returns {allowed (0/1), tokens left
# as a string (a Lua number returned bare would be cut to an integer)}. The key expires once a
# bucket would be full again anyway, so idle workspaces leave nothing behind.
TAKE_SCRIPT = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
"""


class RedisBuckets:
    """Buckets shared by every process on one Redis; this process's own while Redis is down."""

    def __init__(self, per_second: int, redis_url: str, retry_seconds: float = REDIS_RETRY_SECONDS):
        from redis import Redis

        self.capacity = per_second
        self.rate = float(per_second)
        # Short timeouts: every request waits for its check (on a thread, not the event loop).
        self.redis = Redis.from_url(redis_url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self.script = self.redis.register_script(TAKE_SCRIPT)
        self.fallback = MemoryBuckets(per_second)
        self._retry_seconds = retry_seconds
        self._down_until: float | None = None  # while set, Redis is not asked before this moment
        self._lock = threading.Lock()

    def take(self, workspace_id: str) -> Decision:
        from redis.exceptions import RedisError

        may_wait("the shared rate limit")
        with self._lock:
            down_until = self._down_until
        if down_until is not None and time.monotonic() < down_until:
            return self.fallback.take(workspace_id)
        try:
            allowed, tokens = self.script(keys=[REDIS_PREFIX + workspace_id], args=[self.capacity, self.rate])
        except RedisError as exc:
            with self._lock:
                if self._down_until is None:
                    log.warning(
                        "Redis cannot be reached (%s): each process limits requests on its own until it answers", exc
                    )
                self._down_until = time.monotonic() + self._retry_seconds
            return self.fallback.take(workspace_id)
        with self._lock:
            if self._down_until is not None:
                log.warning("Redis answers again: rate limits are shared again")
                self._down_until = None
        return Decision(bool(allowed), self.capacity, float(tokens), self.rate)

    def close(self) -> None:
        self.redis.close()


def rate_limiter(per_second: int | None, redis_url: str | None) -> RateLimiter | None:
    """The buckets the settings ask for, or None when requests are not limited."""
    if not per_second:
        return None
    if redis_url:
        return RedisBuckets(per_second, redis_url)
    return MemoryBuckets(per_second)
