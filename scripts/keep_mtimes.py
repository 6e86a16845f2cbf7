#!/usr/bin/env python3
"""Makes an incremental build survive a fresh copy of the tree: files whose content is what it was when
STAMP was written get back the modification time they had then; changed and new files are dated now.

  keep_mtimes.py STAMP ROOT [--skip NAME ...]

The device tool copies the working tree anew for every call while a warm machine keeps its build
folder, so a copy that does not keep modification times would make ninja rebuild everything, and one
that keeps them could date an edit before the last build. Prints "N unchanged, M changed or new".
Folders whose name matches a --skip pattern (fnmatch, anywhere under ROOT) are not walked; .git never is.
"""
import argparse
import fnmatch
import hashlib
import json
import os
import sys
import time


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stamp")
    parser.add_argument("root")
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args()
    skip = list(args.skip) + [".git"]
    try:
        with open(args.stamp) as f:
            before = json.load(f)
    except (OSError, ValueError):
        before = {}
    now = time.time_ns()
    after, unchanged, changed = {}, 0, 0
    for folder, dirs, files in os.walk(args.root):
        dirs[:] = sorted(d for d in dirs if not any(fnmatch.fnmatch(d, pattern) for pattern in skip))
        for name in sorted(files):
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            rel = os.path.relpath(path, args.root)
            sha = digest(path)
            old = before.get(rel)
            mtime = old[1] if old and old[0] == sha else now
            if old and old[0] == sha:
                unchanged += 1
            else:
                changed += 1
            os.utime(path, ns=(mtime, mtime))
            after[rel] = [sha, mtime]
    tmp = args.stamp + ".tmp"
    with open(tmp, "w") as f:
        json.dump(after, f)
    os.replace(tmp, args.stamp)
    print("%d unchanged, %d changed or new" % (unchanged, changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
