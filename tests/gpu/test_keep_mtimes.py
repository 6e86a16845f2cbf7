"""scripts/keep_mtimes.py: a fresh copy of the tree keeps the dates of unchanged files, so a warm GPU
machine's second call rebuilds only what changed.

    python -m pytest tests/gpu/test_keep_mtimes.py
"""
import os
import shutil
import subprocess
import sys
import time

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "keep_mtimes.py")


def keep(stamp, root):
    proc = subprocess.run([sys.executable, SCRIPT, str(stamp), str(root), "--skip", "build*"], stdout=subprocess.PIPE,
                          universal_newlines=True, check=True)
    return proc.stdout.strip()


def write(path, text, mtime):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def test_a_recopied_tree_keeps_old_dates_for_unchanged_files_and_dates_changes_now(tmp_path):
    tree, stamp = tmp_path / "tree", tmp_path / "stamp.json"
    write(tree / "engine" / "a.cc", "int a;", 1000)
    write(tree / "engine" / "b.cc", "int b;", 1000)
    write(tree / "build" / "out.o", "object", 1000)
    write(tree / "build-cuda" / "out.o", "object", 1000)
    assert keep(stamp, tree) == "0 unchanged, 2 changed or new"
    first = os.stat(tree / "engine" / "a.cc").st_mtime_ns
    build_time = time.time()

    # The next call's copy: every file rewritten (new dates), one edited, one added.
    shutil.rmtree(tree / "engine")
    write(tree / "engine" / "a.cc", "int a;", build_time + 50)
    write(tree / "engine" / "b.cc", "int b = 1;", build_time - 50)  # an edit dated before the build
    write(tree / "engine" / "c.cc", "int c;", build_time - 50)
    assert keep(stamp, tree) == "1 unchanged, 2 changed or new"
    assert os.stat(tree / "engine" / "a.cc").st_mtime_ns == first
    assert os.stat(tree / "engine" / "b.cc").st_mtime > build_time - 1
    assert os.stat(tree / "engine" / "c.cc").st_mtime > build_time - 1
    assert os.stat(tree / "build" / "out.o").st_mtime == 1000  # skipped folders are left alone
    assert os.stat(tree / "build-cuda" / "out.o").st_mtime == 1000


def test_an_unreadable_stamp_counts_everything_as_new(tmp_path):
    tree, stamp = tmp_path / "tree", tmp_path / "stamp.json"
    write(tree / "a.cc", "int a;", 1000)
    stamp.write_text("{not json")
    assert keep(stamp, tree) == "0 unchanged, 1 changed or new"
    assert keep(stamp, tree) == "1 unchanged, 0 changed or new"
