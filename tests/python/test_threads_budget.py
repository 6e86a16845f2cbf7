"""The compute-thread budget from Python: set_num_threads / get_num_threads, and OMP_NUM_THREADS as
Spark and Ray set it for their worker processes."""
import os
import subprocess
import sys

import quiver

# A worker process: prints its budget, then how many of its threads computed while it predicted with a
# model whose matrix products are worth many threads (64 x 1024 by 1024 x 1024): those whose CPU time
# grew by at least a tenth of the busiest one's (/proc/self/task/*/stat: utime + stime). The Python
# thread that submits is not counted: its own work per prediction (arrays in and out) is near a tenth
# of the products' on a 2-core machine, more when other processes compete for the cores.
WORKER = r"""
import os, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import quiver
from mxnet_files import params_bytes, symbol_json
nodes = [("null", "data", {}, []), ("null", "w", {}, []), ("null", "b", {}, []),
         ("FullyConnected", "fc1", {"num_hidden": "1024"}, [0, 1, 2]),
         ("null", "w2", {}, []), ("null", "b2", {}, []), ("FullyConnected", "fc2", {"num_hidden": "1024"}, [3, 4, 5])]
rng = np.random.default_rng(0)
params = {"arg:w": rng.standard_normal((1024, 1024), np.float32), "arg:b": np.zeros(1024, np.float32),
          "arg:w2": rng.standard_normal((1024, 1024), np.float32), "arg:b2": np.zeros(1024, np.float32)}
x = rng.standard_normal((64, 1024), np.float32)
def cpu_ticks():
    ticks = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[tid] = int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return ticks
with quiver.Predictor.from_bytes(symbol_json(nodes, [6]), params_bytes(params)) as p:
    p.predict(x)
    before, start = cpu_ticks(), time.perf_counter()
    while time.perf_counter() - start < 1.5:
        p.predict(x)
    grown = [t - before.get(tid, 0) for tid, t in cpu_ticks().items() if tid != str(os.getpid())]
    print(quiver.get_num_threads(), sum(g >= 0.1 * max(grown) for g in grown))
"""


def test_two_spark_style_workers_each_compute_on_one_thread():
    env = {k: v for k, v in os.environ.items() if k != "QUIVER_NUM_THREADS"}
    env["OMP_NUM_THREADS"] = "1"
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, os.path.dirname(__file__)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        budget, computing = out.split()
        assert int(budget) == 1
        assert int(computing) == 1, out  # the invocation's thread alone: no helper joined


def test_set_num_threads_changes_the_budget_at_any_time():
    start = quiver.get_num_threads()
    try:
        quiver.set_num_threads(1)
        assert quiver.get_num_threads() == 1
    finally:
        quiver.set_num_threads(start)
    assert quiver.get_num_threads() == start
    try:
        quiver.set_num_threads(0)
        raise AssertionError("a budget of 0 was taken")
    except quiver.InvalidArgumentError as e:
        assert "thread budget of 0" in str(e)
