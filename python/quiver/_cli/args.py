"""Arguments every subcommand shares: the model prefix, its epoch, input shapes and cached-op flags."""
from __future__ import annotations

import argparse
import sys
from typing import Dict, List, NoReturn, Optional, Sequence, Tuple

from .. import cached_op_flags
from ..data_desc import DataDesc

Shape = Tuple[str, Tuple[int, ...]]


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming what was wrong (exit 2), like runtime errors."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def shape(text: str) -> Shape:
    """`data:1,3,224,224` -> ("data", (1, 3, 224, 224))."""
    name, sep, dims = text.rpartition(":")
    try:
        values = tuple(int(d) for d in dims.split(","))
    except ValueError:
        values = ()
    if not sep or not name or not values or any(d <= 0 for d in values):
        raise argparse.ArgumentTypeError(f"bad shape '{text}': expected NAME:D1,D2,... with positive sizes")
    return name, values


def option(text: str) -> Tuple[str, str]:
    """`key=value` -> (key, value): one cached-op flag."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"bad option '{text}': expected KEY=VALUE")
    return key, value


def add_model(parser: argparse.ArgumentParser, shape_help: str, prefix_optional: bool = False) -> None:
    parser.add_argument("prefix", nargs="?" if prefix_optional else None,
                        help="model path prefix: PREFIX-symbol.json and PREFIX-EPOCH.params")
    parser.add_argument("--epoch", type=int, default=0, help="the epoch in the .params file name (default 0)")
    parser.add_argument("--shape", type=shape, action="append", default=[], metavar="NAME:D1,D2,...",
                        help=shape_help)
    known = ", ".join(flag.name for flag in cached_op_flags())
    parser.add_argument("--option", type=option, action="append", default=[], metavar="KEY=VALUE",
                        help=f"a cached-op flag passed to the runtime as is (repeatable), e.g. max_inflight=8; "
                             f"the flags: {known} (`quiver flags` describes them)")


def input_descs(shapes: Sequence[Shape], batch_size: Optional[int] = None) -> Optional[List[DataDesc]]:
    """DataDescs for --shape arguments (None when there are none); batch_size replaces axis 0."""
    if not shapes:
        return None
    descs = []
    for name, dims in shapes:
        if batch_size is not None:
            dims = (batch_size,) + dims[1:]
        descs.append(DataDesc(name, dims, layout="NCHW" if len(dims) == 4 else ""))
    return descs


def options(pairs: Sequence[Tuple[str, str]]) -> Dict[str, str]:
    return dict(pairs)
