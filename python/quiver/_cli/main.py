"""`quiver SUBCOMMAND ...`: the entry point of the console script and of `python -m quiver`."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from ..errors import QuiverError
from . import args as cli_args
from . import bench, calibrate, check, classify, detect, flags, info, profile, segment, serve


def parser() -> argparse.ArgumentParser:
    top = cli_args.Parser(prog="quiver",
                          description="Quiver: inspect, check, benchmark, run and calibrate MXNet models.")
    top.add_argument("--version", action="version", version=f"quiver {_version()}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                  parser_class=cli_args.Parser)
    for module in (info, check, bench, profile, classify, detect, segment, calibrate, serve, flags):
        module.add_parser(commands)
    return top


def main(argv: Optional[List[str]] = None) -> int:
    ns = parser().parse_args(argv)
    try:
        status: int = ns.run(ns)
        return status
    except QuiverError as error:
        return _fail(ns.command, error.message or type(error).__name__)
    except BrokenPipeError:  # the reader (`| head`) left: nothing more to say, and nowhere to say it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:  # an image or output path: the message names the file
        return _fail(ns.command, f"{error.strerror or error}: {error.filename}" if error.filename else str(error))
    except KeyboardInterrupt:
        return 130


def _fail(command: str, message: str) -> int:
    # One line, so that scripts and logs show the whole cause.
    print(f"quiver {command}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _version() -> str:
    from .. import __version__
    return __version__
