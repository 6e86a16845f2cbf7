"""Whether MXNet 1.9.1 can make the bfloat16 AMP fixtures on this CPU, and what says so when it cannot.

MXNet 1.9.1's bundled oneDNN (v2.4) runs bfloat16 convolutions only on AVX-512 (its avx512_core level:
AVX-512 F, BW, VL and DQ; emulated there, native with avx512_bf16). On an AVX2-only CPU (AMD Zen 2 and 3,
Intel before Skylake-SP) it refuses them ("could not create a primitive descriptor iterator"), so the
fixtures cannot be made there. DNNL_MAX_CPU_ISA (the variable that oneDNN reads; Quiver's oneDNN 3 reads
it too, after ONEDNN_MAX_CPU_ISA) hides AVX-512 as such a CPU would: DNNL_MAX_CPU_ISA=AVX2.

    python tests/amp/bf16_cpu.py --out DIR

(scripts/setup_mxnet_venv.sh's python; tests/amp/make_fixtures.sh runs it before each generator) runs a
one-convolution bfloat16 AMP model in MXNet. Where MXNet refuses it and this CPU lacks what it needs, it
writes DIR/ABSENT (why, one line) and DIR/manifest.json with no models and "absent" giving that reason,
and the generator is not run. Any other failure, or a refusal on a CPU that has what MXNet needs, is an
error. The tests import absent_reason() to report such a set as not run, never as passed or failed.
"""
from __future__ import annotations

import argparse
import json
import os

# oneDNN v2.4's avx512_core, the lowest level at which it runs bfloat16 convolutions.
NEEDED_FLAGS = ("avx512f", "avx512bw", "avx512vl", "avx512dq")
# DNNL_MAX_CPU_ISA values below avx512_core (oneDNN v2.4 reads them in upper case only).
LIMITS_BELOW_AVX512_CORE = ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX512_MIC", "AVX512_MIC_4OPS")


def cpu_flags() -> set:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def mxnet_bf16_blocker() -> str | None:
    """Why MXNet 1.9.1's oneDNN cannot run bfloat16 on this CPU as it is now (its flags and
    DNNL_MAX_CPU_ISA), or None where it can."""
    missing = [f for f in NEEDED_FLAGS if f not in cpu_flags()]
    if missing:
        return ("this CPU lacks %s (AVX-512), which MXNet 1.9.1's oneDNN needs to run bfloat16"
                % ", ".join(missing))
    limit = os.environ.get("DNNL_MAX_CPU_ISA", "")
    if limit in LIMITS_BELOW_AVX512_CORE:
        return ("DNNL_MAX_CPU_ISA=%s hides AVX-512 (avx512_core), which MXNet 1.9.1's oneDNN needs to run "
                "bfloat16, as on an AVX2-only CPU" % limit)
    return None


def absent_reason(manifest: dict) -> str | None:
    """For the tests: why a fixture set made absent by design (its manifest has "absent") is not run on
    this CPU, or None when the set is not absent, or when this CPU could make it (a stale marker: the
    tests then find no fixtures and fail where fixtures are required)."""
    if "absent" not in manifest or mxnet_bf16_blocker() is None:
        return None
    return "not run: MXNet cannot make these bfloat16 fixtures here: " + manifest["absent"]


def probe() -> None:
    """Runs a bfloat16 AMP convolution in MXNet through the Module API, as the generators do."""
    import mxnet as mx
    from mxnet.contrib import amp

    conv = mx.sym.Convolution(mx.sym.var("data"), num_filter=4, kernel=(3, 3), name="conv")
    args = {"conv_weight": mx.nd.ones((4, 3, 3, 3)), "conv_bias": mx.nd.zeros((4,))}
    sym, args, auxs = amp.convert_model(conv, args, {}, target_dtype="bfloat16", cast_optional_params=True)
    module = mx.mod.Module(sym, data_names=["data"], label_names=None, context=mx.cpu())
    module.bind(data_shapes=[("data", (1, 3, 8, 8))], for_training=False)
    module.set_params(args, auxs)
    module.forward(mx.io.DataBatch([mx.nd.ones((1, 3, 8, 8))]), is_train=False)
    module.get_outputs()[0].asnumpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    out = parser.parse_args().out
    import mxnet as mx

    try:
        probe()
        return
    except mx.base.MXNetError as e:
        blocker = mxnet_bf16_blocker()
        if blocker is None or "could not create a primitive descriptor" not in str(e):
            raise  # not the refusal of a CPU without AVX-512: a real failure
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "ABSENT"), "w") as f:
        f.write(blocker + "\n")
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"generator": "tests/amp/bf16_cpu.py", "mxnet_version": mx.__version__, "models": [],
                   "absent": blocker}, f, indent=2)
    print("amp fixtures: not made: " + blocker, flush=True)


if __name__ == "__main__":
    main()
