"""ONNX Runtime behind KServe's model server, for bench/compare_serving.sh: the same engine and protocol as
`quiver serve`, with ONNX Runtime running the same model's ONNX export. KServe has no ONNX Runtime server
of its own in Python, so this is the equivalent a KServe user writes: a kserve.Model whose predict runs
InferenceSession.run in the server's thread pool (ONNX Runtime releases the GIL while it runs; concurrent
runs of one session are allowed), one request per run, as KServe leaves batching to the caller.

    python bench/serving_onnx_model.py MODEL.onnx --name NAME --http-port 8080 --grpc-port 8081 [--threads 2]
"""
import argparse
import asyncio
import sys

import numpy as np
import onnxruntime as ort


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx")
    parser.add_argument("--name", required=True)
    parser.add_argument("--http-port", type=int, default=8080)
    parser.add_argument("--grpc-port", type=int, default=8081)
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime's intra-op threads")
    ns = parser.parse_args()
    sys.argv = sys.argv[:1]  # kserve reads sys.argv when imported
    from kserve import Model, ModelServer
    from kserve.protocol.infer_type import InferOutput, InferResponse

    options = ort.SessionOptions()
    options.intra_op_num_threads = ns.threads
    session = ort.InferenceSession(ns.onnx, options, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    output_names = [o.name for o in session.get_outputs()]

    class OnnxModel(Model):
        def load(self) -> bool:
            self.ready = True
            return True

        async def predict(self, payload, headers=None, response_headers=None):
            data = np.ascontiguousarray(payload.inputs[0].as_numpy(), dtype=np.float32)
            loop = asyncio.get_running_loop()
            results = await loop.run_in_executor(None, session.run, output_names, {input_name: data})
            outputs = []
            for name, value in zip(output_names, results):
                output = InferOutput(name=name, shape=list(value.shape), datatype="FP32")
                output.set_data_from_numpy(value, binary_data=True)
                outputs.append(output)
            return InferResponse(response_id=payload.id or "", model_name=self.name, infer_outputs=outputs,
                                 use_binary_outputs=payload.use_binary_outputs)

    model = OnnxModel(ns.name)
    model.load()
    ModelServer(http_port=ns.http_port, grpc_port=ns.grpc_port, enable_latency_logging=False).start([model])


if __name__ == "__main__":
    main()
