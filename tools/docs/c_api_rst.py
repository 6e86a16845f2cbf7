"""Renders capi/include/quiver/c_api.h as reStructuredText for the docs: every exported function with
the comment above it (the header is the manual, so the docs quote it instead of restating it).

    python tools/docs/c_api_rst.py capi/include/quiver/c_api.h OUT.rst
"""
from __future__ import annotations

import re
import sys
from typing import List, Tuple

# A C comment block followed by one QV_EXPORT declaration (which may span lines, up to its ';').
DECLARATION = re.compile(r"/\*(?P<comment>(?:[^*]|\*(?!/))*)\*/\s*QV_EXPORT\s+(?P<decl>[^;]+);", re.S)
SECTION = re.compile(r"/\* -{10,}\n \* (?P<title>[^\n]+)\n(?P<body>(?: \*[^\n]*\n)*?) \* -{10,} \*/")


def comment_text(comment: str) -> str:
    """A comment's text without its ` * ` margins."""
    lines = [re.sub(r"^\s*\* ?", "", line).rstrip() for line in comment.strip().splitlines()]
    return "\n".join(lines).strip()


def escape(text: str) -> str:
    """C comments use `*out`, `name` and `word_` freely; in reStructuredText those are markup."""
    text = re.sub(r"([\\*`|])", r"\\\1", text)
    return re.sub(r"(\w)_(?=\W|$)", r"\1\\_", text)


def entries(header: str) -> List[Tuple[int, str, str]]:
    """(offset, kind, text): section titles and declarations, in the header's order."""
    found = [(m.start(), "section", m.group("title").strip() + "\n" + comment_text(m.group("body")))
             for m in SECTION.finditer(header)]
    found += [(m.start(), "function", " ".join(m.group("decl").split()) + "\n" + comment_text(m.group("comment")))
              for m in DECLARATION.finditer(header)]
    return sorted(found)


def render(header: str) -> str:
    # The file's opening comment (its conventions) goes in a literal block, kept exactly as written.
    preamble = comment_text(header[header.index("/*") + 2: header.index("*/")])
    out = ["C API reference", "===============", "",
           "Generated from ``capi/include/quiver/c_api.h`` by ``tools/docs/c_api_rst.py``; the header's "
           "comments are the contract.", "", "::", ""]
    out += ["   " + line for line in preamble.splitlines()] + [""]
    for _, kind, text in entries(header):
        first, _, rest = text.partition("\n")
        if kind == "section":
            out += [first, "-" * len(first), ""] + ([escape(rest), ""] if rest else [])
        elif re.search(r"^\s", rest, re.M):  # tables of flags: kept as laid out, in a literal block
            out += [f".. c:function:: {first}", "", "   ::", ""] + ["      " + line if line else ""
                                                                     for line in rest.splitlines()] + [""]
        else:
            out += [f".. c:function:: {first}", ""] + ["   " + line if line else ""
                                                       for line in escape(rest).splitlines()] + [""]
    return "\n".join(out)


def main() -> int:
    header_path, out_path = sys.argv[1:3]
    with open(header_path, encoding="utf-8") as f:
        header = f.read()
    text = render(header)
    if text.count(".. c:function::") != header.count("QV_EXPORT int") + header.count("QV_EXPORT const"):
        print(f"c_api_rst: a QV_EXPORT declaration in {header_path} has no comment above it", file=sys.stderr)
        return 1
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
