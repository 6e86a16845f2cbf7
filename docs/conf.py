"""Sphinx configuration of Quiver's reference docs (scripts/build_docs.sh builds them)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

project = "Quiver"
author = "the Quiver authors"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
exclude_patterns = ["_build", "guide/*.py"]
html_theme = "alabaster"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True

import quiver  # noqa: E402  (the installed package: its version is the native library's)

release = version = quiver.__version__

# The C API page is rendered from the header at every build, so it cannot fall behind the header.
os.makedirs(os.path.join(ROOT, "docs", "_generated"), exist_ok=True)
subprocess.run([sys.executable, os.path.join(ROOT, "tools", "docs", "c_api_rst.py"),
                os.path.join(ROOT, "capi", "include", "quiver", "c_api.h"),
                os.path.join(ROOT, "docs", "_generated", "c_api.rst")], check=True)

# The operator list is docs/operators.md, written by `build/tools/quiver_list_ops --markdown` and held to
# the registry by tests/engine/ops/op_registry_test.cc; here it becomes reStructuredText for
# mxnet_compat.rst to include.
with open(os.path.join(ROOT, "docs", "operators.md")) as f:
    _operators = [line for line in f.read().splitlines() if not line.startswith("<!--")]
with open(os.path.join(ROOT, "docs", "_generated", "operators.rst"), "w") as f:
    f.write("\n".join(line.replace("`", "``") for line in _operators) + "\n")
