"""What `quiver bench` reports, from the samples: latency percentiles, throughput and memory held."""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from .load_test import Measurement


def summary(measurement: Measurement, first_s: float, batch_size: int, held_bytes: int, arrays_alive: int
            ) -> Dict[str, Any]:
    latencies_ms = np.array([s.latency_s for s in measurement.samples]) * 1e3
    count = len(latencies_ms)
    percentiles = np.percentile(latencies_ms, [50, 90, 99]) if count else [float("nan")] * 3
    return {
        "first_inference_ms": first_s * 1e3,
        "count": count,
        "duration_s": measurement.wall_s,
        "latency_ms": {"p50": float(percentiles[0]), "p90": float(percentiles[1]), "p99": float(percentiles[2]),
                       "mean": float(latencies_ms.mean()) if count else float("nan"),
                       "min": float(latencies_ms.min()) if count else float("nan"),
                       "max": float(latencies_ms.max()) if count else float("nan")},
        "throughput": {"invocations_per_s": count / measurement.wall_s,
                       "samples_per_s": count * batch_size / measurement.wall_s},
        "memory": {"bytes_in_use": held_bytes, "peak_bytes_in_use": measurement.peak_bytes,
                   "arrays_alive": arrays_alive},
    }


def text(report: Dict[str, Any]) -> str:
    return "\n".join([*_measured(report), *(_runtime(report["stats"]) if "stats" in report else [])])


def _measured(report: Dict[str, Any]) -> List[str]:
    lat, thr, mem = report["latency_ms"], report["throughput"], report["memory"]
    return [
        f"model:            {report['model']}",
        f"inputs:           {', '.join(f'{n}:{tuple(s)}' for n, s in report['inputs'].items())}",
        f"clients:          {report['clients']}",
        f"precision:        {report['precision']}",
        f"first inference:  {report['first_inference_ms']:.2f} ms",
        f"count:            {report['count']} invocations in {report['duration_s']:.2f} s",
        "latency:",
        f"  p50:            {lat['p50']:.2f} ms",
        f"  p90:            {lat['p90']:.2f} ms",
        f"  p99:            {lat['p99']:.2f} ms",
        f"  mean / min / max: {lat['mean']:.2f} / {lat['min']:.2f} / {lat['max']:.2f} ms",
        f"throughput:       {thr['samples_per_s']:.2f} samples/s ({thr['invocations_per_s']:.2f} invocations/s)",
        f"memory held:      {size(mem['bytes_in_use'])} after the run, peak {size(mem['peak_bytes_in_use'])} "
        f"({mem['arrays_alive']} arrays alive)",
    ]


def _runtime(stats: Dict[str, Any]) -> List[str]:
    """The runtime's statistics of the model (QvCachedOpGetStats), warm-up included."""
    requests, queue, run, batches, plans = (stats[k] for k in ("requests", "queue_wait_us", "run_us", "batches",
                                                               "plans"))
    sizes = ", ".join(f"{rows}: {count}" for rows, count in sorted(batches["sizes"].items(), key=lambda i: int(i[0])))
    return [
        "runtime statistics:",
        f"  requests:       {requests['admitted']} admitted, {requests['completed']} completed, {requests['failed']} "
        f"failed, {requests['cancelled']} cancelled, {requests['deadline_exceeded']} past their deadline, "
        f"{requests['rejected_busy']} refused busy",
        f"  queue wait:     p50 {queue['p50']} us, p99 {queue['p99']} us ({queue['count']} waits)",
        f"  run:            p50 {run['p50']} us, p99 {run['p99']} us ({run['count']} runs)",
        f"  batches:        {batches['count']} ({batches['rows']} rows, {batches['padding_rows']} padding; by rows: "
        f"{sizes or 'none'}; {batches['oversize']} over max_batch_size)",
        f"  plans:          {plans['compiled']} compiled, {plans['cached']} kept, {plans['evicted']} evicted",
    ]


def size(nbytes: int) -> str:
    """Bytes in the largest binary unit that keeps the number at 1 or more."""
    value, unit = float(nbytes), "B"
    for bigger in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}" if unit != "B" else f"{nbytes} B"
