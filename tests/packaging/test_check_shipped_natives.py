"""check_shipped_natives.py, the size and stripping rule the shipped artifacts are held to
(tests/packaging/test_old_glibc.sh), fails where it must: on libraries with DWARF or without a build id
and debug link, and on archives over their size."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

CHECKER = Path(__file__).with_name("check_shipped_natives.py")


def run_checker(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER), *map(str, paths)], capture_output=True, text=True)


def library(folder: Path, *flags: str) -> Path:
    """A one-function shared library built by the system compiler with `flags`."""
    source = folder / "f.c"
    source.write_text("int f(int x) { return x + 1; }\n")
    out = folder / "libf.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", *flags, "-o", str(out), str(source)], check=True)
    return out


def split(path: Path) -> None:
    """What cmake/split_debug.cmake does after a link."""
    subprocess.run(["objcopy", "--only-keep-debug", str(path), f"{path}.debug"], check=True)
    subprocess.run(["objcopy", "--strip-debug", f"--add-gnu-debuglink={path}.debug", str(path)], check=True)


@pytest.fixture(autouse=True)
def _tools() -> None:
    missing = [tool for tool in ("cc", "objcopy") if shutil.which(tool) is None]
    assert not missing, f"these tests build libraries with {missing}"


def test_a_library_split_as_cmake_does_passes(tmp_path: Path) -> None:
    lib = library(tmp_path, "-g", "-Wl,--build-id=sha1")
    split(lib)
    result = run_checker(lib)
    assert result.returncode == 0, result.stdout + result.stderr


def test_debug_information_or_a_missing_build_id_or_link_is_refused(tmp_path: Path) -> None:
    with_dwarf = library(tmp_path, "-g", "-Wl,--build-id=sha1")
    result = run_checker(with_dwarf)
    assert result.returncode == 1
    assert "libf.so carries debug information (.debug_" in result.stderr
    assert "libf.so lacks .gnu_debuglink" in result.stderr
    os.remove(with_dwarf)
    no_id = library(tmp_path, "-Wl,--build-id=none")
    result = run_checker(no_id)
    assert result.returncode == 1 and "lacks .note.gnu.build-id, .gnu_debuglink" in result.stderr


def test_archives_over_their_size_or_without_libraries_are_refused(tmp_path: Path) -> None:
    lib = library(tmp_path, "-g", "-Wl,--build-id=sha1")
    split(lib)
    wheel = tmp_path / "quiver-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        archive.write(lib, "quiver/libf.so")
        archive.writestr("quiver/padding.bin", os.urandom(26 << 20))  # past the wheel's 25 MB
    result = run_checker(wheel)
    assert result.returncode == 1 and "quiver-1.0.0-py3-none-any.whl is 26.0 MB, over its 25 MB" in result.stderr
    assert "debug information" not in result.stderr
    jar = tmp_path / "empty.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    result = run_checker(jar)
    assert result.returncode == 1 and "empty.jar holds no shared library" in result.stderr
