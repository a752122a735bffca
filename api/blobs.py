"""Content-addressed blobs, in the data dir or in S3-compatible storage, and signed expiring URLs to them.

A blob's key is the SHA-256 of its bytes plus an extension that fixes its content
type: writing the same bytes twice stores them once. Two back-ends share one interface
(`Blobs`): `LocalBlobs` keeps files under the data dir's `blobs/`, `S3Blobs` keeps
objects in a bucket (`--blob-url s3://bucket/prefix`), so web processes and workers on
other machines need no shared directory. Large objects (batch ZIPs) are written from a
file and read as a stream of chunks, never held whole in memory.

URLs are `{base}/files/<key>[/<download name>]?expires=<unix>&sig=<hmac>`; the HMAC
secret is `--secret` (shared by every process that serves) or, for one process, a file
in the data dir, so URLs stay valid across restarts until they expire.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlsplit

from .errors import ApiError, BlobStoreUnavailable, disk_write_failed

CONTENT_TYPES = {
    "pdf": "application/pdf",
    "png": "image/png",
    "jpg": "image/jpeg",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "zip": "application/zip",
}
EXTENSIONS = {v: k for k, v in CONTENT_TYPES.items()}
KEY_PATTERN = re.compile(r"^[0-9a-f]{64}\.(pdf|png|jpg|webp|svg|zip)$")
REF_PATTERN = re.compile(r"^[0-9a-f]{64}$")
CHUNK = 1024 * 1024  # what a stream yields at a time, and what hashing a file reads at a time
# Parts of one file uploaded to S3 at once (boto3's default is 10): 4 x 8 MB in memory at most.
S3_PARTS_AT_ONCE = 4


class BlobNotFound(FileNotFoundError):
    """No blob under this key (never written, or swept)."""


def check_ref(name: str) -> str:
    if not REF_PATTERN.match(name):
        raise ValueError(f"not a ref name (64 hex digits): {name!r}")
    return name


def check_key(key: str) -> str:
    if not KEY_PATTERN.match(key):
        raise ValueError(f"not a blob key: {key!r}")
    return key


def blob_key(digest: str, content_type: str) -> str:
    return f"{digest}.{EXTENSIONS[content_type]}"


def content_type_of(key: str) -> str:
    return CONTENT_TYPES[key.rsplit(".", 1)[1]]


def _hash_file(file: IO[bytes]) -> str:
    """The SHA-256 of a seekable file from where it stands, read a chunk at a time; rewinds it."""
    start = file.tell()
    digest = hashlib.sha256()
    while chunk := file.read(CHUNK):
        digest.update(chunk)
    file.seek(start)
    return digest.hexdigest()


class BlobStream:
    """An open blob: its size, then its bytes as chunks (iterate once; close when done)."""

    def __init__(self, size: int, chunks: Iterator[bytes], close: Any):
        self.size = size
        self._chunks = chunks
        self._close = close

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    def close(self) -> None:
        self._close()

    def __enter__(self) -> BlobStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Blobs(ABC):
    """Where blobs live. `location` opens the same store in another process (`open_blobs`)."""

    location: str
    # Whether reading may wait on the network: the file handler then reads off the event loop.
    remote: bool = False

    @abstractmethod
    def put(self, data: bytes, content_type: str, durable: bool = False) -> str:
        """Store bytes under their hash; returns the key. `durable` also survives a power cut,
        which originals and a generation's file need (an answer names it, and a record and a
        charge stay with it), and files made again on demand (previews) can do without. A write
        the disk does not take is a 503 (api.errors.disk_write_failed), and leaves nothing."""

    @abstractmethod
    def put_file(self, file: IO[bytes], content_type: str) -> str:
        """Store a seekable file's bytes (from its position) under their hash, read in chunks."""

    @abstractmethod
    def put_path(self, path: Path, content_type: str, sha256: str, durable: bool = False) -> str:
        """Store a file's bytes, whose SHA-256 (hex) the caller counted as it wrote them (an
        upload spooled to disk, api.spool), read from the file in chunks; returns the key.
        `durable` and a refused write as for `put`."""

    @abstractmethod
    def stream(self, key: str, chunk_size: int = CHUNK) -> BlobStream:
        """The blob's bytes as chunks of at most `chunk_size`; BlobNotFound if there is none."""

    @abstractmethod
    def exists(self, key: str) -> bool: ...

    @abstractmethod
    def delete(self, key: str) -> None:
        """Remove a blob (no error if it is gone already)."""

    @abstractmethod
    def keys(self) -> Iterator[str]:
        """Every blob's key, in no particular order."""

    @abstractmethod
    def check(self) -> None:
        """Raise BlobStoreUnavailable, with the fix in its message, if this store cannot be used."""

    @abstractmethod
    def put_ref(self, name: str, key: str) -> None:
        """Name a blob: `name` (a hex digest of what it shows, e.g. a preview's inputs) -> its key.
        Every process with the same store sees it: a cache shared by all web processes."""

    @abstractmethod
    def get_ref(self, name: str) -> str | None:
        """The key named `name`, or None."""

    def get(self, key: str) -> bytes:
        with self.stream(key) as stream:
            return b"".join(stream)


def _flush_to_disk(path: Path) -> None:
    """A file's data (fdatasync: what reading it back needs), or a folder's names, on disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        (os.fsync if path.is_dir() else os.fdatasync)(descriptor)
    finally:
        os.close(descriptor)


class LocalBlobs(Blobs):
    """Files under a directory (the data dir's `blobs/`), spread over 256 subdirectories."""

    # How many blobs this process remembers it flushed (a file's identity each: about 100 bytes).
    FLUSHED_REMEMBERED = 4096

    def __init__(self, root: Path):
        self.root = root
        self.location = str(root)
        root.mkdir(parents=True, exist_ok=True)
        # Files this process made durable, by key -> their identity then (device, inode, change
        # time): the same PDF made again is not flushed again (two flushes, most of a generate's
        # added cost), unless it is another file by now (deleted and written again meanwhile).
        self._flushed: OrderedDict[str, tuple[int, int, int]] = OrderedDict()
        self._flushed_lock = threading.Lock()

    def _remember_flushed(self, key: str, target: Path) -> None:
        found = os.stat(target)
        with self._flushed_lock:
            self._flushed[key] = (found.st_dev, found.st_ino, found.st_ctime_ns)
            self._flushed.move_to_end(key)
            while len(self._flushed) > self.FLUSHED_REMEMBERED:
                self._flushed.popitem(last=False)

    def _flushed_already(self, key: str, found: os.stat_result) -> bool:
        with self._flushed_lock:
            return self._flushed.get(key) == (found.st_dev, found.st_ino, found.st_ctime_ns)

    def path(self, key: str) -> Path:
        return self.root / check_key(key)[:2] / key

    def check(self) -> None:
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise BlobStoreUnavailable(f"the blob directory {self.root} is not writable by this user")

    def put(self, data: bytes, content_type: str, durable: bool = False) -> str:
        key = blob_key(hashlib.sha256(data).hexdigest(), content_type)
        self._store(key, lambda handle: handle.write(data), durable)
        return key

    def put_file(self, file: IO[bytes], content_type: str) -> str:
        # Copied once into a temporary file beside the blobs, hashed on the way, then renamed.
        fd, temp = tempfile.mkstemp(dir=self.root, prefix=".tmp-")
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as handle:
                while chunk := file.read(CHUNK):
                    digest.update(chunk)
                    handle.write(chunk)
            key = blob_key(digest.hexdigest(), content_type)
            target = self.path(key)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temp, target)
        except BaseException as failure:
            Path(temp).unlink(missing_ok=True)
            if isinstance(failure, OSError):
                raise disk_write_failed(failure, "the file was not saved, and nothing was charged") from None
            raise
        return key

    def put_path(self, path: Path, content_type: str, sha256: str, durable: bool = False) -> str:
        # Copied a chunk at a time, never read whole into memory.
        def copy(handle: IO[bytes]) -> None:
            with path.open("rb") as source:
                while chunk := source.read(CHUNK):
                    handle.write(chunk)

        key = blob_key(sha256, content_type)
        self._store(key, copy, durable)
        return key

    def _store(self, key: str, write: Callable[[IO[bytes]], object], durable: bool) -> None:
        """The blob `key` made by `write` into a temporary file beside it, renamed once whole:
        a reader never sees half a file and a crashed process leaves none. `durable`: the bytes
        are flushed before the rename and the name after it (the folder's too, if new), and a
        blob already there is flushed as well (written before, perhaps not flushed: a batch's
        row of the same bytes). What the disk refuses is a 503 (disk_write_failed), and leaves
        no temporary file."""
        target = self.path(key)
        try:
            try:
                found = os.stat(target)
            except FileNotFoundError:
                found = None
            if found is not None:
                if durable and not self._flushed_already(key, found):
                    _flush_to_disk(target)
                    _flush_to_disk(target.parent)
                    self._remember_flushed(key, target)
                return
            folder_made = not target.parent.exists()
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    write(handle)
                    if durable:
                        handle.flush()
                        os.fdatasync(handle.fileno())  # the data (and the size it needs read back)
                os.replace(temp, target)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
            if durable:  # the rename itself: the file's name in its folder (and the folder's, if new)
                _flush_to_disk(target.parent)
                if folder_made:
                    _flush_to_disk(self.root)
                self._remember_flushed(key, target)
        except OSError as failure:
            raise disk_write_failed(failure, "the file was not saved, and nothing was charged") from None

    def stream(self, key: str, chunk_size: int = CHUNK) -> BlobStream:
        try:
            handle = self.path(key).open("rb")
        except FileNotFoundError:
            raise BlobNotFound(key) from None
        size = os.fstat(handle.fileno()).st_size

        def chunks() -> Iterator[bytes]:
            while chunk := handle.read(chunk_size):
                yield chunk

        return BlobStream(size, chunks(), handle.close)

    def get(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            raise BlobNotFound(key) from None

    def exists(self, key: str) -> bool:
        return self.path(key).exists()

    def delete(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)

    def keys(self) -> Iterator[str]:
        for path in self.root.glob("??/*"):
            if KEY_PATTERN.match(path.name):
                yield path.name

    def _ref_path(self, name: str) -> Path:
        return self.root / "refs" / check_ref(name)[:2] / name

    def put_ref(self, name: str, key: str) -> None:
        target = self._ref_path(name)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "w") as handle:
                    handle.write(check_key(key))
                os.replace(temp, target)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError as failure:
            raise disk_write_failed(failure, "the file was not saved, and nothing was charged") from None

    def get_ref(self, name: str) -> str | None:
        try:
            key = self._ref_path(name).read_text()
        except FileNotFoundError:
            return None
        return key if KEY_PATTERN.match(key) else None


class S3Blobs(Blobs):
    """Objects in an S3-compatible bucket under a prefix: `s3://bucket/prefix`.

    Endpoint and credentials come from the standard AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY and AWS_REGION. Only standard S3 calls are made (put/get/head/
    delete object, list_objects_v2, multipart uploads through boto3's transfer manager),
    so MinIO, Ceph, R2 and the like serve it as well as AWS.
    """

    remote = True

    def __init__(self, url: str, client: Any = None):
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError(f"a blob URL is s3://bucket/prefix, not {url!r}")
        self.bucket = parts.netloc
        self.prefix = parts.path.strip("/")
        self.location = f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"
        self._given = client
        self._client: Any = None
        self._pid = 0

    @property
    def client(self) -> Any:
        """The boto3 client (thread-safe), made on first use and again in a forked child: a
        client's connections must not be shared with the process it was forked from."""
        if self._given is not None:
            return self._given
        if self._client is None or self._pid != os.getpid():
            import boto3

            # Passed explicitly: botocore reads AWS_DEFAULT_REGION but not AWS_REGION.
            self._client = boto3.session.Session().client(
                "s3",
                endpoint_url=os.environ.get("AWS_ENDPOINT_URL") or None,
                region_name=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
            )
            self._pid = os.getpid()
        return self._client

    def check(self) -> None:
        try:
            self.client.list_objects_v2(Bucket=self.bucket, Prefix=self.prefix, MaxKeys=1)
        except Exception as error:
            endpoint = os.environ.get("AWS_ENDPOINT_URL") or "AWS's default endpoint"
            raise BlobStoreUnavailable(
                f"the blob store {self.location} cannot be listed at {endpoint} ({error}); check the bucket "
                "exists and AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION"
            ) from None

    def name(self, key: str) -> str:
        """The object name of a blob key."""
        check_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _missing(self, error: Exception) -> bool:
        from botocore.exceptions import ClientError

        if not isinstance(error, ClientError):
            return False
        code = str(error.response.get("Error", {}).get("Code", ""))
        return code in {"404", "NoSuchKey", "NotFound"}

    def put(self, data: bytes, content_type: str, durable: bool = False) -> str:
        # Content-addressed: writing the same bytes again leaves the same object, so no check first.
        key = blob_key(hashlib.sha256(data).hexdigest(), content_type)
        self.client.put_object(Bucket=self.bucket, Key=self.name(key), Body=data, ContentType=content_type)
        return key

    def put_file(self, file: IO[bytes], content_type: str) -> str:
        # Hashed first (the key names the object), then uploaded in parts by boto3's transfer
        # manager: multipart above its threshold, a part at a time in memory.
        key = blob_key(_hash_file(file), content_type)
        if not self.exists(key):
            self.client.upload_fileobj(file, self.bucket, self.name(key), ExtraArgs={"ContentType": content_type})
        return key

    def put_path(self, path: Path, content_type: str, sha256: str, durable: bool = False) -> str:
        # Uploaded from the file in parts by boto3's transfer manager (multipart past its 8 MB
        # threshold), a few parts in memory at a time, never the whole file. S3 keeps what it
        # acknowledged: `durable` asks nothing more of it.
        from boto3.s3.transfer import TransferConfig

        key = blob_key(sha256, content_type)
        if not self.exists(key):
            self.client.upload_file(
                str(path),
                self.bucket,
                self.name(key),
                ExtraArgs={"ContentType": content_type},
                Config=TransferConfig(max_concurrency=S3_PARTS_AT_ONCE),
            )
        return key

    def stream(self, key: str, chunk_size: int = CHUNK) -> BlobStream:
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self.name(key))
        except Exception as error:
            if self._missing(error):
                raise BlobNotFound(key) from None
            raise
        body = answer["Body"]
        return BlobStream(int(answer["ContentLength"]), body.iter_chunks(chunk_size), body.close)

    def exists(self, key: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self.name(key))
        except Exception as error:
            if self._missing(error):
                return False
            raise
        return True

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.name(key))

    def _ref_name(self, name: str) -> str:
        ref = f"refs/{check_ref(name)}"
        return f"{self.prefix}/{ref}" if self.prefix else ref

    def put_ref(self, name: str, key: str) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self._ref_name(name), Body=check_key(key).encode())

    def get_ref(self, name: str) -> str | None:
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self._ref_name(name))
        except Exception as error:
            if self._missing(error):
                return None
            raise
        key = answer["Body"].read().decode(errors="replace")
        return key if KEY_PATTERN.match(key) else None

    def keys(self) -> Iterator[str]:
        start = f"{self.prefix}/" if self.prefix else ""
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=start)
        for page in pages:
            for item in page.get("Contents", []):
                name = item["Key"][len(start) :]
                if KEY_PATTERN.match(name):
                    yield name


@lru_cache(maxsize=8)
def open_blobs(location: str) -> Blobs:
    """The blob store at `location`: `s3://bucket/prefix`, or a directory. Cached per process, so
    render and batch workers reuse one S3 client (and its connections) for every task."""
    if location.startswith("s3://"):
        return S3Blobs(location)
    if "://" in location:
        raise ValueError(f"a blob URL is s3://bucket/prefix (or a directory), not {location!r}")
    return LocalBlobs(Path(location))


# The name this class had when it was the only back-end.
BlobStore = LocalBlobs


def copy_to(blobs: Blobs, key: str, target: IO[bytes]) -> None:
    """Write a blob into an open file a chunk at a time (a batch ZIP's entries)."""
    with blobs.stream(key) as stream:
        for chunk in stream:
            target.write(chunk)


def secret_in(path: Path) -> str:
    """A random hex secret kept in a file only its owner can read, made on first use."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def derived_secret(secret: str, purpose: str) -> bytes:
    """A key for one purpose from the shared `--secret`: file URLs and cookies never share a key."""
    return hmac.new(secret.encode(), f"docbench {purpose}".encode(), hashlib.sha256).digest()


class UrlSigner:
    """HMAC-signed, expiring URLs for files served without an API key.

    `secret` is a file in the data dir (one process: made on first use) or the shared
    `--secret` value (several processes: a URL signed by one is served by any other).
    """

    def __init__(self, secret: Path | str, base_url: str):
        if isinstance(secret, Path):
            self._secret = bytes.fromhex(secret_in(secret))
        else:
            self._secret = derived_secret(secret, "file urls")
        self.base_url = base_url.rstrip("/")

    def _signature(self, path: str, expires: int) -> str:
        return hmac.new(self._secret, f"{path}\n{expires}".encode(), hashlib.sha256).hexdigest()

    def url(self, key: str, lifetime: int, download_name: str | None = None, now: float | None = None) -> str:
        # The signature covers the decoded path, as the file handler receives it.
        signed = key if download_name is None else f"{key}/{download_name}"
        shown = key if download_name is None else f"{key}/{quote(download_name, safe='')}"
        expires = int((now or time.time()) + lifetime)
        return f"{self.base_url}/files/{shown}?expires={expires}&sig={self._signature(signed, expires)}"

    def verify(self, path: str, expires: str | None, signature: str | None, now: float | None = None) -> str:
        """The blob key of a signed path, or ApiError URL_INVALID / URL_EXPIRED."""
        if not expires or not signature or not re.fullmatch(r"[0-9]{1,12}", expires):
            raise ApiError("URL_INVALID", "this file URL is missing its signature or expiry")
        expected = self._signature(path, int(expires))
        if not hmac.compare_digest(expected, signature):
            raise ApiError("URL_INVALID", "this file URL's signature does not match")
        if int(expires) < (now or time.time()):
            raise ApiError("URL_EXPIRED", "this file URL has expired; request a new one")
        return path.split("/", 1)[0]
