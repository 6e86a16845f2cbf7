"""`quiver flags` and --option's help: the runtime's own flag table (QvListCachedOpFlags), not a copy."""
from __future__ import annotations

import quiver
from cli_runner import quiver as run_quiver


def test_flags_lists_the_runtime_table_with_defaults():
    table = quiver.cached_op_flags()
    names = [flag.name for flag in table]
    assert {"device", "precision", "max_batch_size", "cuda_graphs", "max_plans"} <= set(names)
    assert all(flag.help for flag in table)
    assert dict((f.name, f.default) for f in table)["max_inflight"] == "64"

    as_json = run_quiver("flags", "--json").json()
    assert [flag["name"] for flag in as_json] == names
    text = run_quiver("flags")
    assert text.status == 0
    lines = text.stdout.splitlines()
    assert len(lines) == len(table)
    for line, flag in zip(lines, table):
        assert line.startswith(f"{flag.name}={flag.default}") and line.endswith(flag.help)


def test_option_help_names_every_flag():
    help_text = " ".join(run_quiver("info", "--help").stdout.split())
    for flag in quiver.cached_op_flags():
        assert flag.name in help_text
