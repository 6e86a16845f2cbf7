"""`quiver flags`: every cached-op flag that --option takes, from the table the runtime parses them with."""
from __future__ import annotations

import argparse
import json
from typing import Any

from .. import cached_op_flags

HELP = "list the cached-op flags that --option takes, with their defaults"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("flags", help=HELP, description=HELP + " (QvListCachedOpFlags).")
    parser.add_argument("--json", action="store_true", help="print a JSON array of {name, default, help}")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    flags = cached_op_flags()
    if ns.json:
        print(json.dumps([flag._asdict() for flag in flags]))
        return 0
    width = max(len(f"{flag.name}={flag.default}") for flag in flags)
    for flag in flags:
        print(f"{flag.name}={flag.default}".ljust(width + 2) + flag.help)
    return 0
