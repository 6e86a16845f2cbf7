"""Writes small MXNet .params files (NDArray lists) in every layout Quiver reads, as fuzzing seeds.

    python3 tests/fuzz/make_params_seeds.py OUT_DIR

The bytes follow MXNet's NDArray::Save (src/ndarray/ndarray.cc) and dmlc's serializers, written here
with struct alone so that the seeds do not depend on the reader they exercise.
"""
import struct
import sys
from pathlib import Path

LIST_MAGIC = 0x112
V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
CPU, GPU = 1, 2
# (type flag, struct code) for float32, float64, float16, uint8, int32, int8, int64
TYPES = [(0, "f"), (1, "d"), (2, "e"), (3, "B"), (4, "i"), (5, "b"), (6, "q")]


def shape64(shape):
    return struct.pack("<i", len(shape)) + b"".join(struct.pack("<q", d) for d in shape)


def array(layout, shape, flag, code, dev=CPU):
    count = 1
    for d in shape:
        count *= d
    values = [i % 5 for i in range(count)]
    data = struct.pack("<%d%s" % (count, code), *values)
    context = struct.pack("<ii", dev, 0)
    if layout == "legacy":
        head = struct.pack("<I", len(shape)) + b"".join(struct.pack("<I", d) for d in shape)
    elif layout == "v1":
        head = struct.pack("<I", V1) + shape64(shape)
    else:
        head = struct.pack("<Ii", V2 if layout == "v2" else V3, 0) + shape64(shape)
    return head + context + struct.pack("<i", flag) + data


def params_file(layout, arrays, names):
    out = struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays)) + b"".join(arrays)
    out += struct.pack("<Q", len(names))
    for name in names:
        raw = name.encode()
        out += struct.pack("<Q", len(raw)) + raw
    return out


def main(out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for layout in ("legacy", "v1", "v2", "v3"):
        arrays = [array(layout, (2, 3), 0, "f"), array(layout, (4,), 0, "f", dev=GPU)]
        (out / ("%s_named.params" % layout)).write_bytes(
            params_file(layout, arrays, ["arg:conv0_weight", "aux:bn0_moving_var"]))
        (out / ("%s_unnamed.params" % layout)).write_bytes(params_file(layout, arrays[:1], []))
    every_type = [array("v2", (3, 1), flag, code) for flag, code in TYPES]
    (out / "v2_every_dtype.params").write_bytes(
        params_file("v2", every_type, ["arg:t%d" % flag for flag, _ in TYPES]))
    (out / "empty_list.params").write_bytes(params_file("v2", [], []))


if __name__ == "__main__":
    main(sys.argv[1])
