#!/usr/bin/env python3
"""Reads a Catch2 (v2) XML report, also one cut short by a crash or a timeout, for scripts/gpu_check.sh.

  catch_report.py summary REPORT [MORE...] [--filter REGEX] [--done FILE]
      One line: "N/M test cases pass" (with a filter: each matching case, ok or FAIL, and its seconds;
      without: the assertions and the failed cases' names). A report cut short names the case that was
      running ("cut short in: NAME", with the signal when Catch2 caught one) and counts it as failed: the
      cases after it never ran. MORE are reports of later runs of some of the cases (one at a time,
      after a crash): their cases count too. --done writes the names of the cases the reports hold, the
      cut-short ones included, one per line (the rerun skips them).
      Exit status: 0 all pass, 1 a failure, 2 cut short, 3 unreadable, 4 no (matching) case.
  catch_report.py failures REPORT [--title TITLE] [--max-lines N]
      Markdown: each failed case with its seconds, then each failed assertion (file:line, the expression
      and its expansion), exception, FAIL message and fatal signal, with the INFO/CAPTURE messages Catch2
      attached to it; at most N lines (default 80). Prints nothing when nothing failed.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET

CHUNK = 1 << 16


class Report:
    """What possibly truncated reports hold: their complete test cases, and those a run ended in."""

    @classmethod
    def merged(cls, paths):
        """The first report, with the cases of the others added (later runs of cases it did not hold)."""
        first = cls(paths[0])
        for path in paths[1:]:
            more = cls(path)
            first.cases += more.cases
            first.cut += more.cut
        return first

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        start = data.find(b"<?xml")
        if start < 0:
            start = data.find(b"<Catch")
        if start < 0:
            raise ValueError("no Catch2 XML in %s" % path)
        parser = ET.XMLPullParser(events=("start", "end"))
        self.cases = []          # complete TestCase elements
        self.cut = []            # the TestCase elements a run ended in (a crash, a kill, a timeout)
        self.totals = None       # the run's OverallResults, when the report is complete
        self.complete = False
        open_case = None
        depth = 0
        try:
            for offset in range(start, len(data), CHUNK):
                parser.feed(data[offset:offset + CHUNK])
                for event, element in parser.read_events():
                    if event == "start":
                        depth += 1
                        if element.tag == "TestCase":
                            open_case = element
                        continue
                    depth -= 1
                    if element.tag == "TestCase":
                        self.cases.append(element)
                        open_case = None
                    elif element.tag == "OverallResults" and depth == 1:
                        self.totals = element
                    elif depth == 0:
                        self.complete = True
        except ET.ParseError:
            pass  # a report cut short: what was parsed stands
        if not self.complete and open_case is not None:
            self.cut.append(open_case)
        else:
            # A fatal signal (a crash, or the timeout's SIGTERM) ends the run inside its case: Catch2
            # still closes the report, but the cases after it never ran.
            fatal = [c for c in self.cases if c.find("FatalErrorCondition") is not None][:1]
            self.cut += fatal
            self.cases = [c for c in self.cases if c not in fatal]

    @staticmethod
    def passed(case):
        result = case.find("OverallResult")
        return result is not None and result.get("success") == "true"

    @staticmethod
    def seconds(case):
        result = case.find("OverallResult")
        return float(result.get("durationInSeconds", 0)) if result is not None else 0.0


def cut_note(case):
    fatal = case.find("FatalErrorCondition")
    return "cut short in: %s%s" % (case.get("name")[:70], " (%s)" % text(fatal) if fatal is not None else "")


def summary(report, pattern):
    def matches(case):
        return not pattern or pattern.search(case.get("name", "") + " " + case.get("tags", ""))

    cases = [c for c in report.cases if matches(c)]
    cuts = [c for c in report.cut if matches(c)]
    if not cases and not cuts:
        print("no %stest cases%s" % ("matching " if pattern else "", "" if report.complete else " (report cut short)"))
        return 4
    failed = [c for c in cases if not Report.passed(c)]
    line = "%d/%d test cases pass" % (len(cases) - len(failed), len(cases) + len(cuts))
    notes = [cut_note(c) for c in cuts]
    if pattern:
        items = ["%s %s (%.2f s)" % ("ok" if Report.passed(c) else "FAIL", c.get("name")[:70], Report.seconds(c))
                 for c in cases]
        line += ": " + "; ".join(items + notes)
    else:
        if report.totals is not None:
            ok, bad = int(report.totals.get("successes", 0)), int(report.totals.get("failures", 0))
            line += ", %d/%d assertions" % (ok, ok + bad)
        if failed:
            line += "; failed: " + "; ".join(c.get("name")[:70] for c in failed[:4])
            if len(failed) > 4:
                line += "; and %d more" % (len(failed) - 4)
        if notes:
            line += "; " + "; ".join(notes)
        elif not report.complete:
            line += "; report cut short between cases"
    print(line)
    if cuts or not report.complete:
        return 2
    return 1 if failed else 0


def where(element):
    return "%s:%s" % (element.get("filename", "?").split("/")[-1], element.get("line", "?"))


def text(element):
    return " ".join((element.text or "").split())


def failure_lines(case):
    """Lines describing each failure inside a test case, in report order."""
    lines = []

    def walk(parent, sections):
        infos = []
        for child in parent:
            tag = child.tag
            if tag == "Section":
                walk(child, sections + [child.get("name", "")])
                infos = []
            elif tag == "Info":
                infos.append(text(child))
            elif tag == "Expression" and child.get("success") == "false":
                head = "  - %s %s(%s)" % (where(child), child.get("type", ""), text(child.find("Original")))
                expanded = text(child.find("Expanded"))
                if expanded and expanded != text(child.find("Original")):
                    head += " with expansion: " + expanded
                lines.append(head)
                for exception in child.findall("Exception"):
                    lines.append("    threw: " + text(exception))
                lines.extend("    info: " + i for i in infos)
                if sections:
                    lines.append("    in section: " + " / ".join(sections))
                infos = []
            elif tag in ("Exception", "Failure", "FatalErrorCondition"):
                kind = {"Exception": "exception", "Failure": "FAIL", "FatalErrorCondition": "fatal"}[tag]
                lines.append("  - %s %s: %s" % (where(child), kind, text(child)))
                lines.extend("    info: " + i for i in infos)
                if sections:
                    lines.append("    in section: " + " / ".join(sections))
                infos = []
            elif tag == "Expression":
                infos = []

    walk(case, [])
    return lines


def failures(report, title, max_lines):
    bad = [c for c in report.cases if not Report.passed(c)] + report.cut
    if not bad:
        return
    out = ["### " + title] if title else []
    for case in bad:
        cut = case in report.cut
        out.append("- **%s** (%s)" % (case.get("name"), "the run ended inside it: crash or timeout" if cut else
                                       "%.2f s" % Report.seconds(case)))
        out.extend(failure_lines(case) or ["  - (no assertion recorded)"])
    if len(out) > max_lines:
        out = out[:max_lines - 1] + ["... %d more lines in the report" % (len(out) - max_lines + 1)]
    print("\n".join(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["summary", "failures"])
    parser.add_argument("reports", nargs="+", metavar="report")
    parser.add_argument("--filter")
    parser.add_argument("--done")
    parser.add_argument("--title", default="")
    parser.add_argument("--max-lines", type=int, default=80)
    args = parser.parse_args()
    try:
        report = Report.merged(args.reports)
    except (OSError, ValueError) as e:
        print("unreadable report (%s)" % e)
        return 3
    if args.done:
        with open(args.done, "w") as f:
            names = [c.get("name") for c in report.cases + report.cut]
            f.write("".join(n + "\n" for n in names))
    if args.command == "summary":
        return summary(report, re.compile(args.filter, re.I) if args.filter else None)
    failures(report, args.title, args.max_lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
