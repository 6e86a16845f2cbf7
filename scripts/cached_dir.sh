# Sourced by the fixture scripts (scripts/make_fixtures.sh, tests/conformance/make_fixtures.sh):
#
#   cached_dir DIR STAMP KEY FORCE GENERATE...
#
# Prints DIR on stdout once it holds a complete set for KEY (the generator's SHA-256). DIR is reused
# when it has manifest.json and DIR/STAMP holds KEY, unless FORCE is 1. Otherwise `GENERATE... TMP`
# fills a temporary sibling TMP, which replaces DIR only once complete (an interrupted run never
# leaves a half-written DIR). Concurrent callers queue on DIR.lock and the later ones find DIR fresh.
# A generator that finds its set cannot be made on this CPU (MXNet's bfloat16 needs AVX-512) writes
# TMP/ABSENT (why) and a manifest saying so instead: such a set is stamped with KEY and the CPU's
# signature (its flags and the oneDNN ISA limits in the environment), and reused only where both match,
# so a CPU that can make the set makes it. Logs go to stderr, prefixed with $CACHED_DIR_LOG (the
# caller's name).

_cached_dir_log() { echo "${CACHED_DIR_LOG:-cached_dir}: $*" >&2; }

# What decides whether a set can be made here: the CPU's flags and the ISA limits oneDNN reads.
_cached_dir_cpu() {
  { grep -m1 '^flags' /proc/cpuinfo; echo "${ONEDNN_MAX_CPU_ISA:-} ${DNNL_MAX_CPU_ISA:-}"; } | sha256sum | cut -d' ' -f1
}

_cached_dir_stamp() {  # DIR KEY: what DIR's stamp must hold
  if [ -f "$1/ABSENT" ]; then echo "$2 absent on cpu $(_cached_dir_cpu)"; else echo "$2"; fi
}

_cached_dir_fresh() {  # DIR STAMP KEY FORCE
  [ "$4" != 1 ] && [ -f "$1/manifest.json" ] && [ "$(cat "$1/$2" 2>/dev/null)" = "$(_cached_dir_stamp "$1" "$3")" ]
}

cached_dir() {
  local dir="$1" stamp="$2" key="$3" force="$4"
  shift 4
  if _cached_dir_fresh "$dir" "$stamp" "$key" "$force"; then
    _cached_dir_log "up to date in $dir"
    echo "$dir"
    return 0
  fi
  mkdir -p "$(dirname "$dir")"
  exec 8>"$dir.lock"
  flock 8
  if _cached_dir_fresh "$dir" "$stamp" "$key" "$force"; then
    _cached_dir_log "up to date in $dir"
    echo "$dir"
    return 0
  fi
  rm -rf "$dir".tmp.* "$dir".old.*  # left over from a killed run (we hold the lock)
  local tmp start old
  tmp="$(mktemp -d "$dir.tmp.XXXXXX")"
  # The trap outlives this function: the caller's shell exits right after it.
  trap "rm -rf '$tmp'" EXIT
  _cached_dir_log "generating $dir (generator sha256 $key) ..."
  start=$(date +%s)
  "$@" "$tmp" >&2
  _cached_dir_stamp "$tmp" "$key" >"$tmp/$stamp"
  chmod 755 "$tmp"
  # Renames are atomic: move the old directory aside, the new one in, then delete the old one.
  if [ -e "$dir" ]; then
    old="$(mktemp -u "$dir.old.XXXXXX")"
    mv "$dir" "$old"
    rm -rf "$old"
  fi
  mv "$tmp" "$dir"
  _cached_dir_log "ready in $dir ($(( $(date +%s) - start )) s, $(du -sh "$dir" | cut -f1))"
  echo "$dir"
}
