"""Device tensors in and out without copies (quiver/device_array.py): DLPack and the CUDA array
interface as inputs, DeviceArray outputs (predict(..., out="device")) that export both, on the CPU in
this process and on the emulated GPU (QUIVER_EMULATED_GPU=1) in a child, where gpu(0) memory is host
memory behind a device of its own."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import quiver
from mxnet_files import exact_rows, two_output_model, write_model
from emulated_gpu import run_emulated


class DLPackOnly:
    """A host tensor that offers DLPack and nothing numpy reads directly (as some libraries' do)."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.fixture(scope="module")
def two_out(tmp_path_factory) -> str:
    return write_model(tmp_path_factory.mktemp("models") / "two_out", two_output_model(39))


def test_a_dlpack_host_tensor_is_an_input(two_out):
    data = exact_rows(3)
    with quiver.Predictor(two_out) as p:
        expected = p.predict(data)
        for got, want in zip(p.predict(DLPackOnly(data)), expected):
            np.testing.assert_array_equal(got, want)


def test_device_outputs_of_a_cpu_model_export_dlpack_without_a_copy(two_out):
    data = exact_rows(4)
    with quiver.Predictor(two_out) as p:
        fc, relu = p.predict(data)
        outputs = p.predict(data, out="device")
        assert [type(o) for o in outputs] == [quiver.DeviceArray] * 2
        assert outputs[0].device == "cpu(0)" and outputs[0].__dlpack_device__() == (1, 0)
        assert outputs[1].shape == (4, 2, 3) and outputs[1].dtype == np.float32
        assert not hasattr(outputs[0], "__cuda_array_interface__")
        first, second = np.from_dlpack(outputs[1]), np.from_dlpack(outputs[1])
        assert first.ctypes.data == second.ctypes.data  # both view the runtime's memory
        np.testing.assert_array_equal(first, relu)
        np.testing.assert_array_equal(outputs[0].numpy(), fc)
        # A DeviceArray is itself an input, read in place.
        np.testing.assert_array_equal(p.predict(outputs[1])[1], np.maximum(relu, 0))
        np.testing.assert_array_equal(p.predict_async(data, out="device").result(timeout=60)[0].numpy(), fc)


def test_device_arrays_free_their_memory_once_every_view_is_gone(two_out):
    data = exact_rows(2)
    with quiver.Predictor(two_out) as p:
        p.predict(data)
        quiver.wait_all()
        gc.collect()
        before = quiver.memory_stats().arrays_alive
        outputs = p.predict(data, out="device")
        view = np.from_dlpack(outputs[1])
        del outputs
        gc.collect()
        assert quiver.memory_stats().arrays_alive == before + 1  # the view keeps relu's array
        del view
        gc.collect()
        assert quiver.memory_stats().arrays_alive == before


def test_out_takes_host_or_device(two_out):
    with quiver.Predictor(two_out) as p:
        with pytest.raises(quiver.InvalidArgumentError, match='"host" or "device"'):
            p.predict(exact_rows(1), out="gpu")


def test_gpu_tensors_flow_between_gpu_models_without_the_host(two_out):
    result = run_emulated(f"""
        import numpy as np, quiver
        from mxnet_files import exact_rows

        class CudaArrayInterfaceOnly:  # what CuPy and Numba hand over; here over host memory
            def __init__(self, array, stream):
                self.array = array
                self.__cuda_array_interface__ = {{"shape": array.shape, "typestr": array.dtype.str,
                                                  "data": (array.ctypes.data, False), "version": 3,
                                                  "strides": None, "stream": stream}}

        data = exact_rows(5)
        with quiver.Predictor({two_out!r}) as cpu, quiver.Predictor({two_out!r}, device="gpu(0)") as gpu:
            want_fc, want_relu = cpu.predict(data)
            fc, relu = gpu.predict(data, out="device")
            assert relu.device == "gpu(0)" and relu.__dlpack_device__() == (2, 0), relu
            interface = relu.__cuda_array_interface__
            assert interface["shape"] == (5, 2, 3) and interface["typestr"] == "<f4" and interface["data"][0]
            np.testing.assert_array_equal(relu.numpy(), want_relu)
            # A gpu(0) output read by the next gpu(0) model in place: the CUDA array interface path.
            np.testing.assert_array_equal(gpu.predict(relu)[1], cpu.predict(want_relu)[1])
            # The DLPack path: a producer that offers only DLPack on a CUDA device.
            class DLPackCuda:
                def __dlpack__(self, stream=None):
                    return relu.__dlpack__(stream=stream)
                def __dlpack_device__(self):
                    return relu.__dlpack_device__()
            np.testing.assert_array_equal(gpu.predict(DLPackCuda())[0], cpu.predict(want_relu)[0])
            # A foreign library's tensor with its producer's stream.
            for stream in (None, 1):
                np.testing.assert_array_equal(gpu.predict(CudaArrayInterfaceOnly(data, stream))[0], want_fc)
            try:
                gpu.predict(CudaArrayInterfaceOnly(data.astype(np.float64), None))
            except quiver.ShapeError as error:
                assert "float64" in str(error), error
            else:
                raise AssertionError("a float64 device tensor was taken by a float32 input")
        print("chained")
    """)
    assert result.status == 0 and "chained" in result.stdout, result.stderr
