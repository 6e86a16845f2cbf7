"""Prometheus text exposition of models' statistics (``Predictor.stats()``), for a service's /metrics.

    from quiver.metrics import prometheus_text
    body = prometheus_text({"resnet": resnet.stats(), "bert": bert.stats()})

Counters end in ``_total``; queue waits and run times are summaries in seconds (quantiles 0.5, 0.9 and
0.99, and a count); batch sizes are one counter per size up to max_batch_size, and one for the requests
over it (each run alone). Every series carries a ``model`` label."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping

_REQUEST_OUTCOMES = ("completed", "failed", "cancelled", "deadline_exceeded")

# Series with one value per model: (name, type, help, where in the statistics).
_PER_MODEL = (
    ("quiver_requests_admitted_total", "counter", "Requests admitted (the submission returned success).",
     ("requests", "admitted")),
    ("quiver_requests_rejected_busy_total", "counter", "Submissions refused by max_inflight or max_queue.",
     ("requests", "rejected_busy")),
    ("quiver_batch_padding_rows_total", "counter", "Zero rows added to batches to reach a compiled size.",
     ("batches", "padding_rows")),
    ("quiver_batches_oversize_total", "counter", "Requests over max_batch_size, each run alone.",
     ("batches", "oversize")),
    ("quiver_plans_compiled_total", "counter", "Plans compiled (one per input shape).", ("plans", "compiled")),
    ("quiver_plans_evicted_total", "counter", "Plans dropped by the max_plans bound.", ("plans", "evicted")),
    ("quiver_plans_cached", "gauge", "Plans kept now.", ("plans", "cached")),
)
_DURATIONS = (
    ("queue_wait_us", "quiver_queue_wait_seconds",
     "Time from submission to the start of the request's batch (ops with a request queue)."),
    ("run_us", "quiver_run_seconds", "Time a run took, from its start to its end."),
)
_QUANTILES = (("0.5", "p50"), ("0.9", "p90"), ("0.99", "p99"))


def prometheus_text(models: Mapping[str, Dict[str, Any]]) -> str:
    """The statistics of each model (name -> ``Predictor.stats()``) in Prometheus' text format 0.0.4."""
    lines: List[str] = []

    def family(name: str, kind: str, help_text: str) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")

    def sample(name: str, labels: Dict[str, str], value: float) -> None:
        text = ",".join(f'{key}="{_escape(val)}"' for key, val in labels.items())
        lines.append(f"{name}{{{text}}} {value:g}")

    for name, kind, help_text, (group, field) in _PER_MODEL:
        family(name, kind, help_text)
        for model, s in models.items():
            sample(name, {"model": model}, s[group][field])
    family("quiver_requests_ended_total", "counter", "Requests ended, by outcome.")
    for model, s in models.items():
        for outcome in _REQUEST_OUTCOMES:
            sample("quiver_requests_ended_total", {"model": model, "outcome": outcome}, s["requests"][outcome])
    for key, name, help_text in _DURATIONS:
        family(name, "summary", help_text)
        for model, s in models.items():
            for quantile, field in _QUANTILES:
                sample(name, {"model": model, "quantile": quantile}, s[key][field] / 1e6)
            sample(name + "_count", {"model": model}, s[key]["count"])
    family("quiver_batches_total", "counter", "Batches run, by the rows of requests they held.")
    for model, s in models.items():
        for size, count in sorted(s["batches"]["sizes"].items(), key=lambda item: int(item[0])):
            sample("quiver_batches_total", {"model": model, "rows": size}, count)
    return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
