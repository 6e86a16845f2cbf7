"""The shipped native libraries load on glibc 2.28 (RHEL 8 and its clones): reads the symbol versions
every ELF file asks of the system (its version-needed table) and fails, naming the file and the symbols,
where one needs a glibc newer than the limit, or a library from the system beyond glibc's own (libstdc++
and libgcc_s among them: each shipped library carries its C++ runtime, scripts/setup_glibc228_toolchain.sh),
or where it defines one of glibc's math and memory functions without taking glibc's (capi/glibc_functions.c).

    python check_glibc_symbols.py [--max-glibc 2.28] ARTIFACT...

An ARTIFACT is a shared library, or a wheel or jar (a zip), whose every `.so` member is checked. Prints
each library's highest glibc version; exits 1 when any library breaks the rule or an artifact has none.
"""
from __future__ import annotations

import argparse
import io
import re
import sys
import zipfile
from pathlib import Path
from typing import BinaryIO, Iterator

from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection
from elftools.elf.sections import SymbolTableSection

# What a library may take from the system: glibc's own libraries (PEP 600's allowlist without libstdc++
# and libgcc_s), and its siblings shipped beside it.
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                    "ld-linux-x86-64.so.2"}


# The functions zig's compiler_rt would define in a library in place of glibc's (capi/glibc_functions.c).
GLIBC_FUNCTIONS = set(re.findall(r"^GLIBC_FUNCTION\([^,]+, (\w+),",
                                 (Path(__file__).resolve().parents[2] / "capi" / "glibc_functions.c").read_text(),
                                 re.M))


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def needed_versions(elf: ELFFile) -> Iterator[tuple[str, str]]:
    """(library, version) for every version the file needs, e.g. ("libc.so.6", "GLIBC_2.17")."""
    for section in elf.iter_sections():
        if isinstance(section, GNUVerNeedSection):
            for verneed, auxiliaries in section.iter_versions():
                for aux in auxiliaries:
                    yield verneed.name, aux.name


def needed_libraries(elf: ELFFile) -> set[str]:
    dynamic = elf.get_section_by_name(".dynamic")
    return {tag.needed for tag in dynamic.iter_tags() if tag.entry.d_tag == "DT_NEEDED"} if dynamic else set()


def functions(elf: ELFFile, section: str, defined: bool) -> set[str]:
    table = elf.get_section_by_name(section)
    if not isinstance(table, SymbolTableSection):
        return set()
    return {s.name for s in table.iter_symbols()
            if s["st_info"]["type"] == "STT_FUNC" and (s["st_shndx"] != "SHN_UNDEF") == defined}


def check_library(name: str, stream: BinaryIO, max_glibc: tuple[int, ...], siblings: set[str]) -> list[str]:
    """Prints the library's highest glibc version; returns what breaks the rule."""
    elf = ELFFile(stream)
    problems = []
    glibc = [version for _, version in needed_versions(elf) if version.startswith("GLIBC_2")]
    highest = max(glibc, key=lambda v: version_tuple(v.removeprefix("GLIBC_")), default="none")
    print(f"check_glibc_symbols: {name}: highest {highest}")
    too_new = sorted({v for v in glibc if version_tuple(v.removeprefix("GLIBC_")) > max_glibc})
    if too_new:
        problems.append(f"{name} needs {', '.join(too_new)}")
    foreign = sorted(needed_libraries(elf) - SYSTEM_LIBRARIES - siblings)
    if foreign:
        problems.append(f"{name} needs libraries it does not ship: {', '.join(foreign)}")
    # Each of glibc's functions the library defines (a wrapper) must also come from glibc: a definition
    # alone is another implementation (zig's compiler_rt) computing in place of glibc's.
    own = (functions(elf, ".symtab", True) & GLIBC_FUNCTIONS) - functions(elf, ".dynsym", False)
    if own:
        problems.append(f"{name} computes with its own copies of glibc's {', '.join(sorted(own))}")
    return problems


def shipped_libraries(path: Path) -> Iterator[tuple[str, BinaryIO, set[str]]]:
    """(name, stream, the names of the libraries shipped beside it) for a library, or for each `.so`
    member of a wheel or jar (none for an archive without libraries)."""
    if not zipfile.is_zipfile(path):
        with path.open("rb") as stream:
            yield path.name, stream, {p.name for p in path.parent.glob("*.so*")}
        return
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.namelist() if m.endswith(".so") or ".so." in m.rsplit("/", 1)[-1]]
        siblings = {m.rsplit("/", 1)[-1] for m in members}
        for member in members:
            yield f"{path.name}:{member}", io.BytesIO(archive.read(member)), siblings


def check_artifact(path: Path, max_glibc: tuple[int, ...]) -> list[str]:
    problems: list[str] = []
    libraries = 0
    for name, stream, siblings in shipped_libraries(path):
        libraries += 1
        problems += check_library(name, stream, max_glibc, siblings)
    return problems if libraries else [f"{path.name} holds no shared library"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-glibc", default="2.28")
    parser.add_argument("artifacts", nargs="+", type=Path)
    args = parser.parse_args()
    problems = []
    for artifact in args.artifacts:
        problems += check_artifact(artifact, version_tuple(args.max_glibc))
    for problem in problems:
        print(f"check_glibc_symbols: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
