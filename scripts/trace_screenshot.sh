#!/usr/bin/env bash
# A picture of a Quiver trace (QvProfilerDumpTrace, `quiver profile --trace`): one track of it in
# speedscope's time-order view, rendered by headless Chromium. For the docs (docs/profiling.rst); the
# picture is committed, so nothing here runs in CI.
#
#   bash scripts/trace_screenshot.sh TRACE.json OUT.png [TRACK [SPANS]]
#
# TRACK picks the track shown: a GPU stream's name ("gpu(0) stream 1") or a thread's number; by default
# (or "") the track with the most spans. speedscope shows one track at a time, so the others are left
# out. SPANS keeps only the track's first SPANS spans by start (one invocation's, say), so that the
# steps' names are legible.
# Needs chromium (Debian's package) and npm; speedscope (pinned) is installed once under
# ${QUIVER_CACHE:-$HOME/.cache/quiver}/speedscope.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 TRACE.json OUT.png [TRACK [SPANS]]" >&2; exit 2; }
trace="$(realpath "$1")"
out="$(realpath "$2")"
track="${3:-}"
spans="${4:-0}"
SPEEDSCOPE_VERSION=1.22.2
cache="${QUIVER_CACHE:-$HOME/.cache/quiver}/speedscope"
command -v chromium >/dev/null || { echo "trace_screenshot: needs chromium (apt-get install chromium)" >&2; exit 1; }
if [ ! -f "$cache/$SPEEDSCOPE_VERSION/node_modules/speedscope/dist/release/index.html" ]; then
  mkdir -p "$cache/$SPEEDSCOPE_VERSION"
  npm install --prefix "$cache/$SPEEDSCOPE_VERSION" --no-audit --no-fund "speedscope@$SPEEDSCOPE_VERSION" >&2
fi

site="$(mktemp -d)"
server=""
trap 'rm -rf "$site"; [ -n "$server" ] && kill "$server" 2>/dev/null' EXIT
cp -r "$cache/$SPEEDSCOPE_VERSION/node_modules/speedscope/dist/release/." "$site/"
python3 - "$trace" "$site/trace.json" "$track" "$spans" <<'EOF'
import collections, json, sys
trace, out, wanted, first = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
events = json.load(open(trace))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
spans = [e for e in events if e.get("ph") == "X"]
counts = collections.Counter(e["tid"] for e in spans)
if not wanted:
    tid = counts.most_common(1)[0][0]
else:
    tid = next((t for t, n in names.items() if n == wanted), None)
    if tid is None and wanted.isdigit():
        tid = int(wanted)
    if tid not in counts:
        sys.exit("trace_screenshot: no track %r in %s (tracks: %s)" % (wanted, trace, sorted(
            str(names.get(t, t)) for t in counts)))
kept = sorted((e for e in spans if e["tid"] == tid), key=lambda e: e["ts"])
kept = kept[:first] if first > 0 else kept
for e in kept:
    e.pop("args", None)  # speedscope writes them after the name, which then no longer fits its bar
meta = [e for e in events if e.get("ph") == "M" and e["tid"] == tid]
json.dump({"traceEvents": meta + kept, "displayTimeUnit": "ms"}, open(out, "w"))
print("trace_screenshot: track %s, %d of its %d spans" % (names.get(tid, "thread %d" % tid), len(kept), counts[tid]),
      file=sys.stderr)
EOF
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
sleep 1
timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,300 \
  --virtual-time-budget=8000 --screenshot="$out" \
  "http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/trace.json" 2>/dev/null >&2
echo "$out"
