"""`quiver info`: what a model takes, gives and holds, read without running it."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import capi
from ..errors import InvalidArgumentError, QuiverError, UnsupportedError
from . import args as cli_args
from . import progress
from .bench_report import size
from .model_files import Param, element_count, free_arrays, load_params, nodes, read_symbol

HELP = "describe a model: inputs, outputs, operators, what the runtime fuses, parameters, unsupported operators"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "info", help=HELP, description=HELP + ". Nothing runs. With --shape for every input the plan for "
        "that shape is compiled too, which checks the shape. Exit status 1 when the runtime cannot run the model.")
    cli_args.add_model(parser, "an input's shape, batch first (repeatable); compiles the plan to check it")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    text = read_symbol(ns.prefix)
    symbol, unsupported = _load_symbol(text)
    graph: Dict[str, Any] = json.loads(text)  # the runtime parsed it (or failed only on operators)
    try:
        with progress.waiting("reading parameters"):
            handles, params = load_params(ns.prefix, ns.epoch)
        try:
            report = _describe(graph, symbol, params, unsupported, dict(ns.shape))
            report["fused"] = None
            if symbol is not None:
                compile_shapes = ns.shape if ns.shape and len(ns.shape) == len(report["inputs"]) else None
                with progress.waiting("compiling" if compile_shapes else "fusing"):
                    description, plan = _create(symbol, handles, params, compile_shapes, dict(ns.option))
                report["fused"] = _fusions(description)
                if plan is not None:
                    report["plan"] = plan
        finally:
            free_arrays(handles)
    finally:
        if symbol is not None:
            capi.QvSymbolFree(symbol)
    print(json.dumps(report, indent=2) if ns.json else _text(ns.prefix, report))
    return 1 if unsupported else 0


def _load_symbol(text: str) -> Tuple[Any, List[Dict[str, str]]]:
    """The runtime's symbol, or None and every node it refuses to run (it names only the first)."""
    try:
        return capi.QvSymbolCreateFromJSON(text), []
    except UnsupportedError:
        return None, _unsupported_nodes(json.loads(text))


def _unsupported_nodes(graph: Dict[str, Any]) -> List[Dict[str, str]]:
    """Asks the runtime about each node alone: a one-node graph with the node's operator and attributes,
    fed by made-up variables. The C API has no list of operators; the loader is the authority."""
    found = []
    for node in nodes(graph):
        if not isinstance(node, dict) or node.get("op") == "null":
            continue
        inputs = node.get("inputs") or []
        probe = {"nodes": [{"op": "null", "name": f"probe_input{i}", "inputs": []} for i in range(len(inputs))]
                 + [{**node, "inputs": [[i, 0, 0] for i in range(len(inputs))]}],
                 "arg_nodes": list(range(len(inputs))), "heads": [[len(inputs), 0, 0]]}
        try:
            capi.QvSymbolFree(capi.QvSymbolCreateFromJSON(json.dumps(probe)))
        except UnsupportedError as error:
            found.append({"node": str(node.get("name")), "op": str(node.get("op")), "message": error.message})
        except QuiverError:
            pass  # complaints about the made-up inputs, not about the operator
    return found


def _describe(graph: Dict[str, Any], symbol: Any, params: List[Param], unsupported: List[Dict[str, str]],
              shapes: Dict[str, Tuple[int, ...]]) -> Dict[str, Any]:
    ops = Counter(str(n.get("op")) for n in nodes(graph) if n.get("op") != "null")
    param_names = {p.name for p in params}
    if symbol is not None:
        variables, outputs = capi.QvSymbolListInputs(symbol), capi.QvSymbolListOutputs(symbol)
    else:  # the runtime refused the graph: name what the JSON itself says
        variables = [str(n.get("name")) for n in nodes(graph) if n.get("op") == "null"]
        outputs = [f"{nodes(graph)[h[0]].get('name')}_output" for h in graph.get("heads", [])]
    data = [v for v in variables if v not in param_names]
    unknown = sorted(set(shapes) - set(data))
    if unknown:
        raise InvalidArgumentError.from_message(f"--shape names {unknown}, which the model does not take "
                                                f"(its inputs: {data})")
    return {
        "inputs": [_input(name, graph, params, shapes.get(name)) for name in data],
        "outputs": outputs,
        "operators": dict(sorted(ops.items(), key=lambda item: (-item[1], item[0]))),
        "parameters": {"arrays": len(params), "elements": sum(element_count(p.shape) for p in params),
                       "bytes": sum(p.nbytes for p in params),
                       "dtypes": sorted({p.dtype for p in params})},
        "unsupported": unsupported,
    }


def _input(name: str, graph: Dict[str, Any], params: List[Param], given: Optional[Tuple[int, ...]]
           ) -> Dict[str, Any]:
    """An input's dtype (the runtime takes float32 unless told otherwise) and shape: given, or what the
    first layer's weight says (channels or features); spatial sizes stay free ("H", "W")."""
    if given is not None:
        return {"name": name, "dtype": "float32", "shape": list(given), "source": "--shape"}
    weights = {p.name: p.shape for p in params}
    all_nodes = nodes(graph)
    ids = [i for i, n in enumerate(all_nodes) if n.get("op") == "null" and n.get("name") == name]
    for node in all_nodes:
        inputs = node.get("inputs") or []
        if not ids or not inputs or inputs[0][0] != ids[0] or len(inputs) < 2:
            continue
        weight = weights.get(str(all_nodes[inputs[1][0]].get("name")))
        attrs = {**node.get("param", {}), **node.get("attr", {}), **node.get("attrs", {})}
        if weight is None:
            continue
        if node.get("op") == "Convolution" and len(weight) >= 3:
            spatial = ["H", "W", "D"][: len(weight) - 2]
            channels = weight[1] * int(attrs.get("num_group", 1))
            return {"name": name, "dtype": "float32", "shape": ["N", channels, *spatial],
                    "source": f"weight of '{node.get('name')}'"}
        if node.get("op") == "FullyConnected" and len(weight) == 2:
            return {"name": name, "dtype": "float32", "shape": ["N", weight[1]],
                    "source": f"weight of '{node.get('name')}'"}
    return {"name": name, "dtype": "float32", "shape": None, "source": "unknown: give --shape"}


def _create(symbol: Any, handles: List[Any], params: List[Param],
            shapes: Optional[Sequence[Tuple[str, Tuple[int, ...]]]], options: Dict[str, str]
            ) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """Creates the op once: its description (QvCachedOpDescribe) and, given a shape for every input, the
    plan compiled for them (which checks them against every layer) with the memory it holds."""
    flags: Dict[str, str] = {}
    if shapes is not None:
        flags = {"data_shapes": ";".join(f"{n}:({','.join(map(str, s))})" for n, s in shapes), **options}
    before = capi.QvGetMemoryStats()[0]
    op = capi.QvCreateCachedOpEx(symbol, {p.name: h for p, h in zip(params, handles)}, flags, 1)
    try:
        held = capi.QvGetMemoryStats()[0] - before
        description: Dict[str, Any] = json.loads(capi.QvCachedOpDescribe(op))
    finally:
        capi.QvFreeCachedOp(op)
    plan = None if shapes is None else {"shapes": {n: list(s) for n, s in shapes}, "bytes_held": held}
    return description, plan


def _fusions(description: Dict[str, Any]) -> Dict[str, Any]:
    """What the runtime's inference passes merged: per pattern (the node that runs, then the file's nodes
    fused into it, by operator) how often it occurs, and each node that runs others inside it."""
    merged = [n for n in description["nodes"] if n["fused"]]
    patterns = Counter(" + ".join([n["op"], *(f["op"] for f in n["fused"])]) for n in merged)
    return {"patterns": dict(sorted(patterns.items(), key=lambda item: (-item[1], item[0]))),
            "nodes": [{"node": n["name"], "op": n["op"], "fused": n["fused"]} for n in merged]}


def _text(prefix: str, report: Dict[str, Any]) -> str:
    lines = [f"model {prefix}", "inputs:"]
    for i in report["inputs"]:
        shape = "unknown" if i["shape"] is None else "(" + ", ".join(map(str, i["shape"])) + ")"
        lines.append(f"  {i['name']}  {i['dtype']}  {shape}  [{i['source']}]")
    lines.append("outputs:")
    lines += [f"  {name}" for name in report["outputs"]]
    lines.append(f"operators ({sum(report['operators'].values())} nodes):")
    lines += [f"  {count:5d}  {op}" for op, count in report["operators"].items()]
    fused = report["fused"]
    if fused is None:
        lines.append("fused: unknown (the runtime cannot load the graph)")
    else:
        count = sum(len(n["fused"]) for n in fused["nodes"])
        lines.append(f"fused: {count} nodes run inside {len(fused['nodes'])} others" + (":" if count else ""))
        lines += [f"  {n:5d}  {pattern}" for pattern, n in fused["patterns"].items()]
    p = report["parameters"]
    lines.append(f"parameters: {p['elements']:,} in {p['arrays']} arrays, {size(p['bytes'])} "
                 f"({', '.join(p['dtypes']) or 'none'})")
    if report["unsupported"]:
        lines.append("unsupported by this runtime:")
        lines += [f"  node '{u['node']}': {u['op']}" for u in report["unsupported"]]
    else:
        lines.append("unsupported by this runtime: none")
    if "plan" in report:
        shapes = ", ".join(f"{n}:({','.join(map(str, s))})" for n, s in report["plan"]["shapes"].items())
        lines.append(f"plan for {shapes}: compiled, holds {size(report['plan']['bytes_held'])} with its parameters")
    return "\n".join(lines)
