"""A GPU model's results reach Python: numpy outputs of predict, predict_async and the classifiers, the
`quiver` command, and no leak over thousands of calls. Each test runs in a child interpreter with
QUIVER_EMULATED_GPU=1, which gives this CPU-only build a gpu(0) in host memory behind a device of its
own (engine/backends/emulated_gpu): its arrays can only be read by copy, as a real GPU's."""
from __future__ import annotations

from conftest import prefix
from emulated_gpu import run_emulated


def test_gpu_predictions_equal_the_cpus_bit_for_bit(manifest):
    result = run_emulated("""
        import numpy as np, quiver
        from conftest import FIXTURES, case, prefix
        import json
        x, _, _ = case(json.loads((FIXTURES / "manifest.json").read_text()), "tiny", "b2_16")
        with quiver.Predictor(prefix("tiny")) as cpu, quiver.Predictor(prefix("tiny"), device="gpu(0)") as gpu:
            expected = cpu.predict(x)
            got = gpu.predict(x)
            assert isinstance(got, np.ndarray) and got.flags.owndata and got.flags.writeable
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(gpu.predict_async(x).result(timeout=60), expected)
            for rows in (1, 3):  # any batch size: a plan per shape on the device
                np.testing.assert_array_equal(gpu.predict(x[:1].repeat(rows, 0)), cpu.predict(x[:1].repeat(rows, 0)))
        print("equal")
    """)
    assert result.status == 0 and "equal" in result.stdout, result.stderr


def test_a_gpu_classifier_gives_the_cpus_labels(manifest):
    result = run_emulated("""
        import json, quiver
        from conftest import FIXTURES, case, prefix
        images, _, _ = case(json.loads((FIXTURES / "manifest.json").read_text()), "digits_cnn", "test_set")
        synset = FIXTURES / "digits_cnn_synset.txt"
        with quiver.Classifier(prefix("digits_cnn"), synset=synset) as cpu, \\
             quiver.Classifier(prefix("digits_cnn"), synset=synset, device="gpu(0)") as gpu:
            assert gpu.classify(images[:16], top_k=3) == cpu.classify(images[:16], top_k=3)
        print("same labels")
    """)
    assert result.status == 0 and "same labels" in result.stdout, result.stderr


def test_the_cli_checks_a_model_on_the_gpu(manifest):
    result = run_emulated("", "check", prefix("tiny"), "--shape", "data:1,3,16,16", "--option", "device=gpu(0)")
    assert result.status == 0, result.stderr


def test_thousands_of_gpu_predictions_leak_nothing(manifest):
    result = run_emulated("""
        import gc, json, quiver
        from conftest import FIXTURES, case, prefix
        x, _, _ = case(json.loads((FIXTURES / "manifest.json").read_text()), "tiny", "b2_16")
        with quiver.Predictor(prefix("tiny"), device="gpu(0)") as gpu:
            for i in range(3000):
                if i == 200:
                    quiver.wait_all(); gc.collect()
                    before = quiver.memory_stats()
                gpu.predict(x) if i % 2 else gpu.predict_async(x).result(timeout=60)
            quiver.wait_all(); gc.collect()
            after = quiver.memory_stats()
        print(before, after)
        assert after.arrays_alive == before.arrays_alive, (before, after)
        assert after.bytes_in_use <= before.bytes_in_use + 64 * 1024, (before, after)
    """)
    assert result.status == 0, result.stderr


def test_only_gpu0_exists_on_the_emulated_gpu(manifest):
    result = run_emulated("""
        import quiver
        from conftest import prefix
        try:
            quiver.Predictor(prefix("tiny"), device="gpu(1)")
        except quiver.DeviceError as error:
            assert "gpu(1)" in str(error) and "QUIVER_EMULATED_GPU" in str(error), error
            print("refused")
    """)
    assert result.status == 0 and "refused" in result.stdout, result.stderr
