"""scripts/catch_report.py: what the GPU check reads out of Catch2's XML reports, complete or cut short.

    python -m pytest tests/gpu/test_catch_report.py

The reports below are Catch2 2.13's own output (a throwaway suite run with -r xml --durations yes),
trimmed to the cases each test needs: one that ran through, one that a SIGSEGV ended (Catch2 closes
the report), and one killed by SIGKILL mid-case (the report just stops).
"""
import os
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "catch_report.py")

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<Catch name="quiver_cuda_gpu_tests">
  <Group name="quiver_cuda_gpu_tests">
    <TestCase name="passes" tags="[gpu]" filename="t.cc" line="8">
      <OverallResult success="true" durationInSeconds="0.25"/>
    </TestCase>
    <TestCase name="GPU conv matches the CPU" tags="[gpu]" filename="gpu_conv_test.cc" line="9">
      <Info>
        the answer is 3
      </Info>
      <Expression success="false" type="CHECK" filename="/src/gpu_conv_test.cc" line="9">
        <Original>
          x == 4
        </Original>
        <Expanded>
          3 == 4
        </Expanded>
      </Expression>
      <Section name="inner" filename="gpu_conv_test.cc" line="9">
        <Expression success="false" type="REQUIRE_NOTHROW" filename="gpu_conv_test.cc" line="12">
          <Original>
            op.Invoke()
          </Original>
          <Expanded>
            op.Invoke()
          </Expanded>
          <Exception filename="gpu_conv_test.cc" line="12">
            cudnnConvolutionForward failed: cuDNN CUDNN_STATUS_BAD_PARAM
          </Exception>
        </Expression>
        <OverallResults successes="0" failures="1" expectedFailures="0"/>
      </Section>
      <OverallResult success="false" durationInSeconds="1.5"/>
    </TestCase>
"""

COMPLETE = HEAD + """    <TestCase name="GPU async callbacks" tags="[gpu]" filename="t.cc" line="20">
      <OverallResult success="true" durationInSeconds="0.5"/>
    </TestCase>
    <OverallResults successes="3" failures="2" expectedFailures="0"/>
  </Group>
  <OverallResults successes="3" failures="2" expectedFailures="0"/>
</Catch>
"""

SIGNALLED = HEAD + """    <TestCase name="GPU threads crash" tags="[gpu]" filename="t.cc" line="12">
      <FatalErrorCondition filename="t.cc" line="12">
        SIGSEGV - Segmentation violation signal
      </FatalErrorCondition>
      <OverallResult success="false" durationInSeconds="3.6e-05"/>
    </TestCase>
    <OverallResults successes="1" failures="3" expectedFailures="0"/>
  </Group>
  <OverallResults successes="1" failures="3" expectedFailures="0"/>
</Catch>"""

KILLED = HEAD + """    <TestCase name="GPU graph hangs" tags="[gpu]" filename="t.cc" line="13">
      <Expression success="false" type="CHECK" filename="t.cc" line="14">
        <Original>
          ready
        </Original>
        <Expanded>
          false
        </Expanded>
      </Expression>
"""


def run(tmp_path, xml, *args, prefix=""):
    path = tmp_path / "report.xml"
    path.write_text(prefix + xml)
    proc = subprocess.run([sys.executable, SCRIPT, args[0], str(path)] + list(args[1:]), stdout=subprocess.PIPE,
                          universal_newlines=True)
    return proc.returncode, proc.stdout


def test_a_complete_report_counts_cases_and_assertions(tmp_path):
    rc, out = run(tmp_path, COMPLETE, "summary")
    assert rc == 1
    assert out.strip() == "2/3 test cases pass, 3/5 assertions; failed: GPU conv matches the CPU"


def test_a_report_without_failures_passes(tmp_path):
    passing = COMPLETE.replace('success="false"', 'success="true"')
    assert run(tmp_path, passing, "summary")[0] == 0


def test_failures_name_the_expression_its_expansion_the_exception_and_the_info(tmp_path):
    rc, out = run(tmp_path, COMPLETE, "failures", "--title", "GPU suite")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "### GPU suite"
    assert lines[1] == "- **GPU conv matches the CPU** (1.50 s)"
    assert "  - gpu_conv_test.cc:9 CHECK(x == 4) with expansion: 3 == 4" in lines
    assert "    info: the answer is 3" in lines
    assert "    threw: cudnnConvolutionForward failed: cuDNN CUDNN_STATUS_BAD_PARAM" in lines
    assert "    in section: inner" in lines
    assert not any("passes" in line for line in lines)


def test_failures_of_a_clean_report_print_nothing(tmp_path):
    passing = COMPLETE.replace('success="false"', 'success="true"')
    assert run(tmp_path, passing, "failures")[1] == ""


def test_a_signal_ends_the_run_in_its_case(tmp_path):
    rc, out = run(tmp_path, SIGNALLED, "summary", "--done", str(tmp_path / "done"))
    assert rc == 2
    assert out.strip().endswith("cut short in: GPU threads crash (SIGSEGV - Segmentation violation signal)")
    assert out.startswith("1/3 test cases pass")
    done = (tmp_path / "done").read_text().splitlines()
    assert done == ["passes", "GPU conv matches the CPU", "GPU threads crash"]
    _, failures = run(tmp_path, SIGNALLED, "failures")
    assert "- **GPU threads crash** (the run ended inside it: crash or timeout)" in failures
    assert "fatal: SIGSEGV - Segmentation violation signal" in failures


def test_a_killed_run_names_the_case_it_was_in_and_keeps_what_it_asserted(tmp_path):
    rc, out = run(tmp_path, KILLED, "summary", "--done", str(tmp_path / "done"))
    assert rc == 2
    assert out.strip() == "1/3 test cases pass; failed: GPU conv matches the CPU; cut short in: GPU graph hangs"
    assert (tmp_path / "done").read_text().splitlines()[-1] == "GPU graph hangs"
    _, failures = run(tmp_path, KILLED, "failures")
    assert "  - t.cc:14 CHECK(ready) with expansion: false" in failures


def test_a_filter_lists_each_matching_case(tmp_path):
    rc, out = run(tmp_path, COMPLETE, "summary", "--filter", "async|conv")
    assert rc == 1
    assert out.strip() == ("1/2 test cases pass: FAIL GPU conv matches the CPU (1.50 s); "
                           "ok GPU async callbacks (0.50 s)")
    assert run(tmp_path, COMPLETE, "summary", "--filter", "no such case")[0] == 4


def test_output_before_the_report_is_skipped(tmp_path):
    rc, out = run(tmp_path, COMPLETE, "summary", prefix="quiver: a line the library printed\n")
    assert rc == 1 and out.startswith("2/3 test cases pass")


@pytest.mark.parametrize("content", ["", "not run: no GPU (no CUDA-capable device is detected)\n"])
def test_no_report_is_unreadable(tmp_path, content):
    path = tmp_path / "report.xml"
    path.write_text(content)
    proc = subprocess.run([sys.executable, SCRIPT, "summary", str(path)], stdout=subprocess.PIPE,
                          universal_newlines=True)
    assert proc.returncode == 3 and proc.stdout.startswith("unreadable report")


def test_failures_are_cut_to_the_line_budget(tmp_path):
    _, out = run(tmp_path, COMPLETE, "failures", "--max-lines", "3")
    lines = out.splitlines()
    assert len(lines) == 3 and lines[-1].startswith("... ") and lines[-1].endswith("more lines in the report")


def test_later_runs_of_the_cases_that_had_not_run_count_too(tmp_path):
    rerun = tmp_path / "rerun.xml"
    rerun.write_text(COMPLETE.replace('name="passes"', 'name="GPU graph replay"'))
    rc, out = run(tmp_path, KILLED, "summary", str(rerun), "--filter", "graph")
    assert rc == 2
    assert out.strip() == "1/2 test cases pass: ok GPU graph replay (0.25 s); cut short in: GPU graph hangs"
