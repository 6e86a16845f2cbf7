"""The runtime's profiler, for every Predictor of the process (QvProfilerStart and the calls beside it).

While it is on, each prediction records a span from its start to its end, each request that waited in a
queue a span for the wait, and each operator of the plan a span with its node name, operator type, input
shapes and fused nodes (on a GPU timed by CUDA events, on a track per stream). Spans stay in memory until
``clear()``::

    with quiver.profiler.profile("trace.json"):     # Chrome trace: chrome://tracing or ui.perfetto.dev
        predictor.predict(x)
    print(quiver.profiler.table(top=10))            # the nodes that took longest, with their share
"""
from __future__ import annotations

import contextlib
import json
import os
from typing import Any, Dict, Iterator, Optional, Union

from . import capi


def start() -> None:
    """Starts recording (spans kept so far stay)."""
    capi.QvProfilerStart()


def stop() -> None:
    """Stops recording; the spans stay until clear()."""
    capi.QvProfilerStop()


def clear() -> None:
    """Drops every span kept."""
    capi.QvProfilerClear()


def trace() -> Dict[str, Any]:
    """The spans as a Chrome trace: ``{"traceEvents": [...], ...}``, times in microseconds."""
    result: Dict[str, Any] = json.loads(capi.QvProfilerGetTrace())
    return result


def dump(path: Union[str, "os.PathLike[str]"]) -> None:
    """Writes the Chrome trace to `path`."""
    capi.QvProfilerDumpTrace(os.fspath(path))


def aggregate() -> Dict[str, Any]:
    """Totals per operator type ("operators") and per node ("nodes", which also say the "kernel" that
    computed the node where the runtime chose one, else ""), each row with count, total_us, mean_us
    and share (of all operator time), longest first; and "invocations" and "queue" totals."""
    result: Dict[str, Any] = json.loads(capi.QvProfilerGetAggregate())
    return result


def table(top: int = 20) -> str:
    """aggregate() as text: the `top` nodes (with their kernels) and operator types that took longest."""
    stats = aggregate()
    inv = stats["invocations"]
    lines = [f"{inv['count']} invocation(s), mean {inv['mean_us'] / 1000:.3f} ms"]
    if stats["queue"]["count"]:
        lines[0] += f"; queue wait mean {stats['queue']['mean_us'] / 1000:.3f} ms"
    if not stats["nodes"]:
        lines.append("no operator spans (the profiler was off while the models ran)")
        return "\n".join(lines)
    for title, key, rows in (("node", "node", stats["nodes"]), ("operator", "op", stats["operators"])):
        width = max(len(title), *(len(r[key]) for r in rows[:top]))
        kernels = key == "node"
        lines += ["", f"{title:<{width}}  {'count':>7}  {'total ms':>10}  {'mean us':>10}  {'share':>6}"
                  + ("  kernel" if kernels else "")]
        for r in rows[:top]:
            lines.append(f"{r[key]:<{width}}  {r['count']:>7}  {r['total_us'] / 1000:>10.3f}  "
                         f"{r['mean_us']:>10.1f}  {100 * r['share']:>5.1f}%"
                         + (f"  {r['kernel']}" if kernels else ""))
    return "\n".join(lines)


@contextlib.contextmanager
def profile(trace_path: Optional[Union[str, "os.PathLike[str]"]] = None) -> Iterator[None]:
    """Clears, records what runs inside the block, stops; writes the trace to `trace_path` if given."""
    clear()
    start()
    try:
        yield
    finally:
        stop()
        if trace_path is not None:
            dump(trace_path)
