"""check_glibc_symbols.py, the rule the shipped artifacts are held to (tests/packaging/test_old_glibc.sh),
fails where it must: on the library the system compiler builds for the tests, which needs this machine's
glibc and its libstdc++."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import quiver

CHECKER = Path(__file__).with_name("check_glibc_symbols.py")


def run_checker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER), *args], capture_output=True, text=True)


def test_a_library_built_against_this_glibc_is_refused_naming_its_symbols() -> None:
    library = Path(quiver.__file__).with_name("libquiver.so.1")
    result = run_checker(str(library))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "libquiver.so.1 needs GLIBC_2.29, " in result.stderr  # up to 2.34 on Debian 12's glibc 2.36
    assert "libstdc++.so.6" in result.stderr


def test_the_limit_is_a_parameter() -> None:
    library = Path(quiver.__file__).with_name("libquiver.so.1")
    result = run_checker("--max-glibc", "99.0", str(library))
    assert "needs GLIBC" not in result.stderr
    assert "needs libraries it does not ship: libgcc_s.so.1, libstdc++.so.6" in result.stderr


def test_an_archive_without_libraries_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "empty.jar"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    result = run_checker(str(archive))
    assert result.returncode == 1
    assert "empty.jar holds no shared library" in result.stderr
