"""scripts/gpu_check.sh's stage c against stand-in suites: how a crash, a hang and a flood of output are
reported, without a GPU (the real suites need one).

    python -m pytest tests/gpu/test_gpu_check.py

The stand-in GPU suite speaks Catch2's command line and writes Catch2's XML: run whole, it passes one
case, fails one, and is killed inside the third (the report just stops, as after a SIGKILL); run one
case at a time, a fourth passes, a fifth hangs and a sixth is never reached (the one-by-one rerun stops
at its first timeout). The stand-in host suite passes after printing 5 MiB to stderr.
"""
import os
import stat
import subprocess
import sys
import textwrap

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

GPU_SUITE = textwrap.dedent('''\
    #!{python}
    import os, signal, sys, time
    NAMES = ["GPU ok", "GPU conv [3x3], stride 2", "GPU concurrent crash", "GPU threads later ok", "GPU graph hang", "GPU never reached"]
    HEAD = '<?xml version="1.0" encoding="UTF-8"?>\\n<Catch name="gpu">\\n  <Group name="gpu">\\n'

    def case(name, ok, body=""):
        return ('    <TestCase name="%s" tags="[gpu]" filename="t.cc" line="1">\\n%s'
                '      <OverallResult success="%s" durationInSeconds="0.5"/>\\n    </TestCase>\\n'
                % (name, body, "true" if ok else "false"))

    FAILURE = ('      <Expression success="false" type="CHECK" filename="/src/gpu_conv_test.cc" line="42">\\n'
               '        <Original>\\n          err &lt;= bound\\n        </Original>\\n'
               '        <Expanded>\\n          0.5 &lt;= 1e-05\\n        </Expanded>\\n      </Expression>\\n')

    def crash(partial):
        sys.stdout.write(partial)
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    args = sys.argv[1:]
    if args == ["--list-test-names-only"]:
        print("\\n".join(NAMES))
        sys.exit(0)
    spec = [a for a in args if not a.startswith("-") and a not in ("xml", "yes")]
    if not spec:
        sys.stdout.write(HEAD + case(NAMES[0], True) + case(NAMES[1], False, FAILURE))
        crash('    <TestCase name="GPU concurrent crash" tags="[gpu]" filename="t.cc" line="9">\\n')
    name = spec[0].replace("\\\\", "")
    if name not in NAMES[3:]:
        sys.stdout.write("unexpected spec: " + spec[0])
        sys.exit(2)
    if name == "GPU graph hang":
        sys.stdout.write(HEAD + '    <TestCase name="GPU graph hang" tags="[gpu]" filename="t.cc" line="9">\\n')
        sys.stdout.flush()
        time.sleep(60)
    sys.stdout.write(HEAD + case(name, True) + "  </Group>\\n</Catch>\\n")
    ''')

HOST_SUITE = textwrap.dedent('''\
    #!{python}
    import sys
    for _ in range(5 * 1024):
        sys.stderr.write("y" * 1023 + "\\n")
    sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\\n<Catch name="host">\\n  <Group name="host">\\n'
                     '    <TestCase name="host ok" filename="t.cc" line="1">\\n'
                     '      <OverallResult success="true" durationInSeconds="0.1"/>\\n    </TestCase>\\n'
                     '    <OverallResults successes="3" failures="0" expectedFailures="0"/>\\n  </Group>\\n'
                     '  <OverallResults successes="3" failures="0" expectedFailures="0"/>\\n</Catch>\\n')
    ''')


def install(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace("{python}", sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_a_crash_a_hang_and_a_flood_of_output_are_each_reported(tmp_path):
    work, out = tmp_path / "work", tmp_path / "out"
    suites = work / "build" / "tests" / "engine" / "backends" / "cuda"
    install(suites / "quiver_cuda_gpu_tests", GPU_SUITE)
    install(suites / "quiver_cuda_host_tests", HOST_SUITE)
    env = dict(os.environ, OUT=str(out), QUIVER_GPU_CHECK_WORK=str(work), QUIVER_GPU_CHECK_STAGES="c e",
               QUIVER_GPU_CHECK_PYTHON=sys.executable, QUIVER_GPU_CHECK_CASE_S="3", QUIVER_GPU_CHECK_DRY="1")
    proc = subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpu_check.sh")], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    table = (out / "gpu_check.md").read_text()
    row_c = next(line for line in table.splitlines() if line.startswith("| c. "))
    assert "fail: the suite exited 137 |" in row_c
    assert "1/3 test cases pass; failed: GPU conv [3x3], stride 2; cut short in: GPU concurrent crash" in row_c
    assert ("one by one, the 3 cases that had not run: 1/2 pass (failed: GPU graph hang); "
            "stopped at a timeout in: GPU graph hang") in row_c
    assert "host suite: 1/1 test cases pass, 3/3 assertions" in row_c
    row_e = next(line for line in table.splitlines() if line.startswith("| e. "))
    assert ("| fail | 1/3 test cases pass: ok GPU threads later ok (0.50 s); cut short in: GPU concurrent crash; "
            "cut short in: GPU graph hang |") in row_e  # the concurrency cases, the ones rerun one by one too
    failures = table[table.index("## Failures"):]
    assert "- **GPU conv [3x3], stride 2** (0.50 s)" in failures
    assert "  - gpu_conv_test.cc:42 CHECK(err <= bound) with expansion: 0.5 <= 1e-05" in failures
    assert "- **GPU concurrent crash** (the run ended inside it: crash or timeout)" in failures
    assert "- **GPU graph hang** (the run ended inside it: crash or timeout)" in failures
    assert (out / "gpu_suite.xml").read_text().rstrip().endswith('line="9">')
    log = out / "gpu_check.log"
    assert log.stat().st_size < 5 << 20  # the host suite's 5 MiB of stderr were cut to 4
    assert "bytes left out ...]" in log.read_text()
    assert "[timed out after 3 s]" in log.read_text()
