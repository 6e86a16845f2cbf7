"""Where model files come from: a model prefix (or a synset path) is a local path, a ``file:`` URI, an
``http://`` or ``https://`` URL, or any URI that fsspec reads (``s3://``, ``gs://``, ``hdfs://``,
``abfs://``, ``memory://``, chained ``simplecache::s3://...``).

Local paths and ``file:`` URIs are read as today, by the native library from the path; URLs through
Python's standard library (certificates checked against the default trust store, which
``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` replace); other URIs through fsspec, imported only then, with the
filesystem package of the scheme (s3fs for ``s3://``, gcsfs, adlfs, ...). Failures name the location,
without its user, password or query (``redact``).

URLs: a user and password in the URL are sent as basic authentication to that host only; redirects
never go from https to http, and never carry ``Authorization`` or ``Cookie`` to another host. A remote
file (URL or fsspec) may have at most ``MAX_REMOTE_BYTES`` (``storage_options={"max_bytes": N}``
changes it), refused from its declared size before it is read where the server or filesystem gives one.
"""
from __future__ import annotations

import base64
import importlib
import io
import os
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, List, Mapping, Optional, Tuple

from .errors import InvalidArgumentError, NotFoundError, ParseError, UnsupportedError

StorageOptions = Optional[Mapping[str, Any]]

# A scheme of two letters or more followed by "://" (or fsspec's "::" chaining): "C:\\models" and
# "models/resnet:v2" stay paths.
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+(://|::)")
_HTTP = re.compile(r"^https?://", re.IGNORECASE)

# Seconds an HTTP request may wait for the server to connect or send (the whole file may take longer).
HTTP_TIMEOUT = 60.0
# The largest file read from a URL: a server cannot make the process hold more.
MAX_REMOTE_BYTES = 8 << 30
# Headers a redirect to another host never carries.
_CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def _split_url(url: str) -> Tuple[str, str, str, str]:
    """(scheme, user info, host[:port], the rest from the path's slash) of scheme://user@host/path?q, taken
    apart without validating anything: error messages are made of it."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    user, _, host = authority.rpartition("@")
    return scheme, user, host, slash + path


def redact(location: str) -> str:
    """`location` as messages show it: without a user or password, and without the query and fragment
    (where signed URLs carry their tokens)."""
    if not _REMOTE.match(location):
        return location

    def one(part: str) -> str:
        if "://" not in part:
            return part
        scheme, _, host, path = _split_url(part)
        path, query, _ = path.partition("?")
        return f"{scheme}://{host}{path.partition('#')[0]}{'?...' if query else ''}"

    return "::".join(one(part) for part in location.split("::"))


def local_path(location: str) -> Optional[str]:
    """The local path `location` names (a path as it is, a ``file:`` URI's path), None for a remote one."""
    if location[:5].lower() == "file:":
        parts = urllib.parse.urlsplit(location)
        if parts.netloc not in ("", "localhost"):
            raise UnsupportedError.from_message(
                f"{location}: a file URI names a file on this machine (file:///path), not on {parts.netloc!r}")
        return urllib.request.url2pathname(parts.path)
    return None if _REMOTE.match(location) else location


def parent(location: str) -> str:
    """The directory of a model prefix: a path for local locations, a URI for remote ones."""
    local = local_path(location)
    if local is not None:
        return os.path.dirname(local)
    head, _, _ = location.rpartition("/")
    return head if not head.endswith(":/") else head + "/"  # "s3://bucket" stays whole


def join(directory: str, name: str) -> str:
    """`name` in `directory` (as parent returns it)."""
    if local_path(directory) is not None or directory == "":
        return os.path.join(directory, name)
    return directory.rstrip("/") + "/" + name


def read(location: str, what: str, storage_options: StorageOptions = None) -> bytes:
    """The bytes of the file at `location`, `what` it is ("params file") naming it in errors."""
    data = read_if_present(location, what, storage_options)
    if data is None:
        raise NotFoundError.from_message(f"{what} not found: {redact(location)}")
    return data


def read_text(location: str, what: str, storage_options: StorageOptions = None) -> Optional[str]:
    """A UTF-8 text file's contents, None when there is no such file."""
    data = read_if_present(location, what, storage_options)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError.from_message(
            f"the {what} {redact(location)} is not UTF-8 text (byte {error.start} cannot be read)") from None


def lines(text: str) -> List[str]:
    """The non-blank lines of a text, as a text-mode file would give them (any newline convention)."""
    return [line.rstrip("\n") for line in io.StringIO(text, newline=None) if line.strip()]


def read_if_present(location: str, what: str, storage_options: StorageOptions = None) -> Optional[bytes]:
    """The bytes of the file at `location`, or None when it does not exist. Other failures (no access,
    a server error, a scheme nothing here reads) raise a QuiverError naming `location`."""
    local = local_path(location)
    if local is not None:
        try:
            with open(local, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise NotFoundError.from_message(f"cannot read the {what} {redact(location)}: {error.strerror or error}") from None
    if _HTTP.match(location):
        return _read_url(location, what, storage_options)
    return _read_fsspec(location, what, storage_options)


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects except from https to anything else; credentials stay with their host."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        old, new = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(newurl)
        if old.scheme.lower() == "https" and new.scheme.lower() != "https":
            raise urllib.error.HTTPError(req.full_url, code, f"a redirect from https to {new.scheme or 'a relative'} "
                                         "URL is refused", headers, fp)
        redirected = super().redirect_request(req, fp, code, msg, headers, newurl)
        if redirected is not None and _split_url(newurl)[2].lower() != _split_url(req.full_url)[2].lower():
            for name in [n for n in redirected.headers if n.lower() in _CREDENTIAL_HEADERS]:
                del redirected.headers[name]
        return redirected


def _read_url(url: str, what: str, storage_options: StorageOptions) -> Optional[bytes]:
    shown = redact(url)
    options = dict(storage_options or {})
    headers = {str(k): str(v) for k, v in dict(options.pop("headers", None) or {}).items()}
    limit = int(options.pop("max_bytes", MAX_REMOTE_BYTES))
    if options:
        raise InvalidArgumentError.from_message(
            f"{shown}: URLs take storage_options 'headers' and 'max_bytes' only, not {sorted(map(str, options))}")
    scheme, user, host, path = _split_url(url)
    if user:  # credentials in the URL: basic authentication for this host, not a part of the address
        name, _, password = user.partition(":")
        pair = f"{urllib.parse.unquote(name)}:{urllib.parse.unquote(password)}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        url = f"{scheme}://{host}{path}"
    # A context per request: the trust store as configured now (SSL_CERT_FILE), not at first use.
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=ssl.create_default_context()),
                                         _SafeRedirects())
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=HTTP_TIMEOUT) as response:
            declared = response.headers.get("Content-Length", "")
            return _read_within(response, int(declared) if declared.isdigit() else None, what, shown, limit)
    except InvalidArgumentError:
        raise
    except urllib.error.HTTPError as error:
        if error.code in (404, 410):
            return None
        raise NotFoundError.from_message(f"cannot read the {what} {shown}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:  # ValueError: an address urllib cannot parse
        reason = getattr(error, "reason", None) or error
        raise NotFoundError.from_message(f"cannot read the {what} {shown}: {reason}") from None


def _read_within(stream: Any, declared: Optional[int], what: str, shown: str, limit: int) -> bytes:
    """All of `stream`, refused before reading when its `declared` size (None: unknown) passes `limit`
    bytes, and while reading once what it gives does."""
    if declared is not None and declared > limit:
        raise InvalidArgumentError.from_message(
            f"the {what} {shown} is {declared} bytes, more than the {limit} allowed (storage_options max_bytes)")
    chunks: List[bytes] = []
    size = 0
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise InvalidArgumentError.from_message(
                f"the {what} {shown} is more than the {limit} bytes allowed (storage_options max_bytes)")
        chunks.append(chunk)


def _read_fsspec(location: str, what: str, storage_options: StorageOptions) -> Optional[bytes]:
    try:
        fsspec = importlib.import_module("fsspec")
    except ImportError:
        raise UnsupportedError.from_message(
            f"reading {redact(location)} needs fsspec and its package for the scheme (pip install 'quiver[fsspec]' "
            "s3fs, gcsfs, adlfs, ...); local paths, file:// and https:// URIs need neither") from None
    options = dict(storage_options or {})
    limit = int(options.pop("max_bytes", MAX_REMOTE_BYTES))
    try:
        fs, path = fsspec.core.url_to_fs(location, **options)
        declared = fs.size(path)  # None where the filesystem does not say
        with fs.open(path, "rb") as file:
            return _read_within(file, declared, what, redact(location), limit)
    except FileNotFoundError:
        return None
    except InvalidArgumentError:
        raise
    except ImportError as error:  # fsspec knows the scheme, its package is not installed
        raise UnsupportedError.from_message(f"reading {redact(location)}: {error}") from None
    except ValueError as error:  # a scheme fsspec does not know
        raise UnsupportedError.from_message(f"reading {redact(location)}: {error}") from None
    except Exception as error:  # no access, no connection, no credentials: each filesystem has its own
        reason = f"{type(error).__name__}: {error}"
        raise NotFoundError.from_message(f"cannot read the {what} {redact(location)}: {reason}") from None

