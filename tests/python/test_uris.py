"""Models at URIs: file:// as a path, fsspec's memory filesystem, S3 (moto's server on loopback) and
HTTPS (a server on loopback with a self-signed certificate made here); missing and unreadable files
name their URI."""
from __future__ import annotations

import base64
import functools
import http.server
import shutil
import ssl
import sys
import threading
import urllib.parse
import uuid
from pathlib import Path

import numpy as np
import pytest

import quiver
from certificates import self_signed
from conftest import case, prefix
from mxnet_files import constant_outputs_model
from quiver import _files

LABELS = [f"class{i}" for i in range(10)]  # the tiny model's 10 classes


def _model_dir(directory: Path, name: str = "tiny", synset: bool = True) -> Path:
    """The tiny fixture model copied into `directory` (as `name`), with a synset.txt beside it."""
    directory.mkdir(parents=True, exist_ok=True)
    for suffix in ("-symbol.json", "-0000.params"):
        shutil.copyfile(prefix("tiny") + suffix, directory / (name + suffix))
    if synset:
        (directory / "synset.txt").write_text("\n".join(LABELS) + "\n")
    return directory


def _check_tiny(model_prefix: str, manifest, **kwargs) -> None:
    """A Classifier at `model_prefix` gives the local model's outputs, labelled by the synset beside it."""
    x, _, _ = case(manifest, "tiny", "b2_16")
    with quiver.Predictor(prefix("tiny")) as local:
        expected = local.predict(x)
    with quiver.Classifier(model_prefix, **kwargs) as remote:
        np.testing.assert_array_equal(remote.predict(x), expected)
        assert remote.labels == LABELS
        assert remote.classify(x, top_k=1)[0][0][0] == LABELS[int(np.argmax(expected[0]))]


# -- locations -----------------------------------------------------------------------------------


def test_locations_split_paths_from_uris():
    assert _files.local_path("models/resnet") == "models/resnet"
    assert _files.local_path("models/resnet:v2") == "models/resnet:v2"  # a colon is no scheme
    assert _files.local_path("C:\\models\\resnet") == "C:\\models\\resnet"
    assert _files.local_path("file:///models/my%20resnet") == "/models/my resnet"
    assert _files.local_path("file:/models/resnet") == "/models/resnet"  # Hadoop's and Java's form
    assert _files.local_path("file://localhost/models/resnet") == "/models/resnet"
    with pytest.raises(quiver.UnsupportedError, match="file://elsewhere/models"):
        _files.local_path("file://elsewhere/models/resnet")
    for remote in ("s3://bucket/resnet", "https://host/m/resnet", "simplecache::s3://b/resnet", "hdfs://nn:8020/r"):
        assert _files.local_path(remote) is None
    assert _files.parent("s3://bucket/models/resnet") == "s3://bucket/models"
    assert _files.parent("s3://bucket/resnet") == "s3://bucket"
    assert _files.parent("file:///models/resnet") == "/models"
    assert _files.parent("resnet") == ""
    assert _files.join("s3://bucket/models", "synset.txt") == "s3://bucket/models/synset.txt"
    assert _files.join("", "synset.txt") == "synset.txt"


def test_file_uris_read_as_paths(manifest, tmp_path):
    directory = _model_dir(tmp_path / "my models")
    _check_tiny((directory / "tiny").as_uri(), manifest)  # file:///.../my%20models/tiny
    with pytest.raises(quiver.NotFoundError, match="my models/nothing-symbol.json"):
        quiver.Predictor((directory / "nothing").as_uri())


# -- fsspec ----------------------------------------------------------------------------------------


@pytest.fixture
def memory_fs():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    root = f"/quiver-{uuid.uuid4().hex}"
    yield fs, root
    fs.rm(root, recursive=True)


def test_memory_filesystem_through_fsspec(manifest, memory_fs, tmp_path):
    fs, root = memory_fs
    fs.put(str(_model_dir(tmp_path / "m")) + "/", root + "/models/", recursive=True)
    _check_tiny(f"memory://{root}/models/tiny", manifest)
    with pytest.raises(quiver.NotFoundError, match=f"params file not found: memory://{root}/models/tiny-0007.params"):
        quiver.Predictor(f"memory://{root}/models/tiny", epoch=7)
    with pytest.raises(quiver.NotFoundError, match=f"synset file not found: memory://{root}/models/labels.txt"):
        quiver.Classifier(f"memory://{root}/models/tiny", synset=f"memory://{root}/models/labels.txt")
    fs.rm(f"{root}/models/synset.txt")
    with pytest.raises(quiver.NotFoundError, match=f"synset file not found: memory://{root}/models/synset.txt"):
        quiver.Classifier(f"memory://{root}/models/tiny")


def test_detector_labels_beside_a_uri_are_optional(memory_fs):
    fs, root = memory_fs
    symbol, params = constant_outputs_model([np.array([[[1], [0]]]), np.array([[[0.9], [0.8]]]),
                                             np.array([[[0, 0, 8, 8], [8, 8, 16, 16]]])])
    fs.pipe({f"{root}/det-symbol.json": symbol.encode(), f"{root}/det-0000.params": params})
    image = np.zeros((16, 16, 3), np.uint8)
    with quiver.ObjectDetector(f"memory://{root}/det", image_size=(16, 16)) as det:
        assert [label for label, _, _ in det.detect(image)] == ["1", "0"]  # no synset: class ids
    fs.pipe(f"{root}/synset.txt", b"cat\ndog\n")
    with quiver.ObjectDetector(f"memory://{root}/det", image_size=(16, 16)) as det:
        assert [label for label, _, _ in det.detect(image)] == ["dog", "cat"]


def test_fsspec_files_over_max_bytes_are_refused_with_or_without_a_declared_size(memory_fs, monkeypatch):
    fs, root = memory_fs
    symbol, params = constant_outputs_model([np.array([[1.0, 2.0]])])
    fs.pipe({f"{root}/m-symbol.json": symbol.encode(), f"{root}/m-0000.params": params})
    small = {"max_bytes": len(symbol.encode()) - 1}
    with pytest.raises(quiver.InvalidArgumentError, match=rf"is {len(symbol.encode())} bytes, more than the "):
        quiver.Predictor(f"memory://{root}/m", storage_options=small)
    monkeypatch.setattr(type(fs), "size", lambda self, path: None)  # a filesystem that declares no size
    with pytest.raises(quiver.InvalidArgumentError, match="more than the .* bytes allowed"):
        quiver.Predictor(f"memory://{root}/m", storage_options=small)
    with quiver.Predictor(f"memory://{root}/m", storage_options={"max_bytes": 1 << 20}) as p:
        np.testing.assert_array_equal(p.predict(np.zeros((1, 3, 4, 4), np.float32)), [[1.0, 2.0]])


def test_uris_without_fsspec_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now raises ImportError
    with pytest.raises(quiver.UnsupportedError, match=r"reading s3://bucket/m-symbol\.json needs fsspec"):
        quiver.Predictor("s3://bucket/m")


def test_unknown_schemes_are_unsupported():
    pytest.importorskip("fsspec")
    with pytest.raises(quiver.UnsupportedError, match=r"reading nosuchfs://bucket/m-symbol\.json"):
        quiver.Predictor("nosuchfs://bucket/m")


# -- S3: moto's server on loopback -----------------------------------------------------------------


@pytest.fixture(scope="module")
def s3_endpoint():
    pytest.importorskip("s3fs")
    server_module = pytest.importorskip("moto.server")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def test_s3_through_fsspec(manifest, s3_endpoint, tmp_path):
    import s3fs

    options = {"endpoint_url": s3_endpoint, "key": "testing", "secret": "testing"}
    s3 = s3fs.S3FileSystem(**options)
    s3.mkdir("models")
    s3.put(str(_model_dir(tmp_path / "m")) + "/", "models/cnn/", recursive=True)
    _check_tiny("s3://models/cnn/tiny", manifest, storage_options=options)
    with pytest.raises(quiver.NotFoundError, match="symbol file not found: s3://models/cnn/resnet-symbol.json"):
        quiver.Predictor("s3://models/cnn/resnet", storage_options=options)
    with pytest.raises(quiver.NotFoundError, match="s3://nobucket/cnn/tiny-symbol.json"):
        quiver.Predictor("s3://nobucket/cnn/tiny", storage_options=options)


# -- HTTPS on loopback -------------------------------------------------------------------------------


# (path, Authorization, Cookie) of each request the HTTPS server saw (None for a header not sent).
_SEEN: list = []


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the directory; anything under /private/ is forbidden (403); /down/X redirects to http://,
    /elsewhere/X to the same server under another host name (localhost for 127.0.0.1)."""

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        _SEEN.append((path, self.headers.get("Authorization"), self.headers.get("Cookie")))
        if path.startswith("/private/"):
            self.send_error(403)
        elif path.startswith("/down/") or path.startswith("/elsewhere/"):
            _, first, rest = path.split("/", 2)
            scheme, host = ("http", "127.0.0.1") if first == "down" else ("https", "localhost")
            self.send_response(302)
            self.send_header("Location", f"{scheme}://{host}:{self.server.server_address[1]}/{rest}")
            self.end_headers()
        else:
            super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def https_site(tmp_path_factory):
    """(base URL, served directory, cert.pem) of an HTTPS server on loopback."""
    root = tmp_path_factory.mktemp("site")
    cert, key = self_signed(tmp_path_factory.mktemp("tls"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(root)))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}", root, cert
    server.shutdown()
    thread.join()
    server.server_close()


def test_https_with_an_explicitly_trusted_certificate(manifest, https_site, monkeypatch):
    base, root, cert = https_site
    _model_dir(root / "models")
    _model_dir(root / "private")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust this server's certificate (and no other)
    _check_tiny(f"{base}/models/tiny", manifest)
    with pytest.raises(quiver.NotFoundError, match=f"params file not found: {base}/models/tiny-0003.params"):
        quiver.Predictor(f"{base}/models/tiny", epoch=3)
    with pytest.raises(quiver.NotFoundError, match=f"cannot read the symbol file {base}/private/tiny-symbol.json: "
                                                   "HTTP 403"):
        quiver.Predictor(f"{base}/private/tiny")


def test_https_refuses_an_untrusted_certificate(https_site, tmp_path, monkeypatch):
    base, root, _ = https_site
    other, _ = self_signed(tmp_path)  # trusted instead: not the server's
    monkeypatch.setenv("SSL_CERT_FILE", str(other))
    with pytest.raises(quiver.NotFoundError, match=f"{base}/models/tiny-symbol.json: .*CERTIFICATE_VERIFY_FAILED"):
        quiver.Predictor(f"{base}/models/tiny")


def test_locations_in_messages_lose_their_credentials_and_queries():
    assert _files.redact("https://user:pa55@host:8443/m/net?X-Amz-Signature=abc#f") == "https://host:8443/m/net?..."
    assert _files.redact("simplecache::s3://key:secret@bucket/net") == "simplecache::s3://bucket/net"
    assert _files.redact("/models/a@b/net") == "/models/a@b/net"
    with pytest.raises(quiver.NotFoundError) as caught:
        quiver.Predictor("https://user:pa55@127.0.0.1:1/models/tiny?token=t0k3n")
    assert "pa55" not in str(caught.value) and "t0k3n" not in str(caught.value)
    assert "https://127.0.0.1:1/models/tiny?..." in str(caught.value)


def test_credentials_in_a_url_go_to_its_host_only(manifest, https_site, monkeypatch):
    base, root, cert = https_site
    _model_dir(root / "models")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    authority = base.split("://", 1)[1]
    _SEEN.clear()
    _check_tiny(f"https://reader:pa%3A55@{authority}/models/tiny", manifest)
    assert {auth for _, auth, _ in _SEEN} == {"Basic " + base64.b64encode(b"reader:pa:55").decode()}
    # Redirected to another host name: the credentials (from the URL or the headers) stay behind.
    _SEEN.clear()
    with quiver.Predictor(f"https://reader:pw@{authority}/elsewhere/models/tiny",
                          storage_options={"headers": {"Cookie": "session=1"}}) as p:
        assert p.input_names
    first = [(auth, cookie) for path, auth, cookie in _SEEN if path.startswith("/elsewhere/")]
    assert first == [("Basic " + base64.b64encode(b"reader:pw").decode(), "session=1")] * 2
    assert [(auth, cookie) for path, auth, cookie in _SEEN if path.startswith("/models/")] == [(None, None)] * 2


def test_https_never_redirects_to_http(https_site, monkeypatch):
    base, root, cert = https_site
    _model_dir(root / "models")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with pytest.raises(quiver.NotFoundError, match="a redirect from https to http URL is refused"):
        quiver.Predictor(f"{base}/down/models/tiny")


def test_remote_files_have_a_size_cap_and_text_must_be_utf8(https_site, monkeypatch, tmp_path):
    base, root, cert = https_site
    _model_dir(root / "models")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with pytest.raises(quiver.InvalidArgumentError, match=r"more than the 100 allowed \(storage_options max_bytes\)"):
        quiver.Predictor(f"{base}/models/tiny", storage_options={"max_bytes": 100})
    (root / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    for location in (f"{base}/latin1.txt", str(tmp_path / "latin1.txt")):
        with pytest.raises(quiver.ParseError, match="is not UTF-8 text"):
            quiver.classifier.load_synset(location)
