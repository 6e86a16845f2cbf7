"""The shipped artifacts are small and their natives stripped: each wheel or jar within its size limit
(a wheel 25 MB, a jar 30 MB), and each shared library in it without DWARF (no `.debug_*` section) but
with what a stack trace and a debugger need: the dynamic symbol table, a GNU build id and a
`.gnu_debuglink` naming the split-off debug file (cmake/split_debug.cmake).

    python check_shipped_natives.py ARTIFACT...

Prints each artifact's size and each library's; exits 1 naming every artifact or library that breaks
the rule.
"""
from __future__ import annotations

import sys
from pathlib import Path

from elftools.elf.elffile import ELFFile

from check_glibc_symbols import shipped_libraries

MAX_MB = {".whl": 25, ".jar": 30}
NEEDED_SECTIONS = (".dynsym", ".note.gnu.build-id", ".gnu_debuglink")


def check_library(name: str, elf: ELFFile, size: int) -> list[str]:
    sections = {section.name for section in elf.iter_sections()}
    print(f"check_shipped_natives: {name}: {size / 2**20:.1f} MB")
    problems = []
    debug = sorted(s for s in sections if s.startswith((".debug_", ".zdebug_")))
    if debug:
        problems.append(f"{name} carries debug information ({', '.join(debug)})")
    missing = [s for s in NEEDED_SECTIONS if s not in sections]
    if missing:
        problems.append(f"{name} lacks {', '.join(missing)}")
    return problems


def check_artifact(path: Path) -> list[str]:
    size = path.stat().st_size
    limit = MAX_MB.get(path.suffix)
    if limit:  # an archive; a library alone is reported by check_library
        print(f"check_shipped_natives: {path.name}: {size / 2**20:.1f} MB (limit {limit} MB)")
    problems = [f"{path.name} is {size / 2**20:.1f} MB, over its {limit} MB"] if limit and size > limit << 20 else []
    libraries = 0
    for name, stream, _ in shipped_libraries(path):
        libraries += 1
        stream.seek(0, 2)
        library_size = stream.tell()
        stream.seek(0)
        problems += check_library(name, ELFFile(stream), library_size)
    return problems if libraries else problems + [f"{path.name} holds no shared library"]


def main() -> int:
    problems = [problem for artifact in sys.argv[1:] for problem in check_artifact(Path(artifact))]
    for problem in problems:
        print(f"check_shipped_natives: {problem}", file=sys.stderr)
    return 1 if problems or len(sys.argv) < 2 else 0


if __name__ == "__main__":
    sys.exit(main())
