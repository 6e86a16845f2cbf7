"""`quiver bench --plot`: the latency histogram and the throughput over time, as one PNG."""
from __future__ import annotations

import os
from typing import Any, Dict

import numpy as np

from ..errors import NotFoundError
from .load_test import Measurement


def draw(path: str, measurement: Measurement, report: Dict[str, Any], batch_size: int) -> None:
    try:
        import matplotlib
    except ImportError:
        raise NotFoundError.from_message(
            "--plot needs matplotlib, an optional extra: pip install 'quiver[plot]'") from None
    matplotlib.use("Agg")  # files only: no display needed
    from matplotlib import pyplot

    latencies_ms = np.array([s.latency_s for s in measurement.samples]) * 1e3
    ends = np.array([s.end_s for s in measurement.samples])
    figure, (histogram, timeline) = pyplot.subplots(1, 2, figsize=(11, 4), layout="constrained")
    # A few stragglers would squeeze the body of the distribution into one bar: cut at the 99.9th percentile.
    cut = float(np.percentile(latencies_ms, 99.9))
    shown = latencies_ms[latencies_ms <= cut]
    histogram.hist(shown, bins=min(50, max(5, len(shown) // 5)), color="#4c72b0")
    for name, style in (("p50", "-"), ("p90", "--"), ("p99", ":")):
        value = report["latency_ms"][name]
        histogram.axvline(value, color="black", linestyle=style, label=f"{name} {value:.2f} ms")
    histogram.set(xlabel="latency (ms)", ylabel="invocations",
                  title=f"latency ({len(latencies_ms) - len(shown)} slowest above {cut:.2f} ms not shown)")
    histogram.legend()

    # Bins of a twentieth of the run (at least 0.25 s) smooth single completions into a rate.
    width = max(0.25, measurement.wall_s / 20)
    edges = np.append(np.arange(0.0, measurement.wall_s - width / 2, width), measurement.wall_s)
    counts, _ = np.histogram(ends, bins=edges)
    timeline.plot((edges[:-1] + edges[1:]) / 2, counts * batch_size / np.diff(edges), marker="o", color="#dd8452")
    timeline.axhline(report["throughput"]["samples_per_s"], color="black", linestyle="--",
                     label=f"mean {report['throughput']['samples_per_s']:.1f}/s")
    timeline.set(xlabel="time (s)", ylabel="samples/s", title="throughput", ylim=(0, None))
    timeline.legend()
    figure.suptitle(f"{os.path.basename(report['model'])}: {report['clients']} client(s), "
                    f"{', '.join(f'{n}:{tuple(s)}' for n, s in report['inputs'].items())}")
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
