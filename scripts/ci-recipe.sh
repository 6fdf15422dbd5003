#!/bin/sh
# A CI job for txc programs (docs/ci.md): check each program, compile it
# (with the compile cache), compare its manifest with the last release's,
# and run the boundary tests of its contract.
#
# Usage: scripts/ci-recipe.sh [options] PROGRAM...
#
#   --out DIR           where the artifacts and reports go (default: ci-out)
#   --baseline DIR      the last release's manifests, DIR/<name>.manifest.json;
#                       a program without one is not diffed
#   --calls FILE        calls that must pass (e.g. the shapes a service uses),
#                       checked against every program's manifest; a calls file
#                       per program is DIR/<name>.calls.json with --calls-dir
#   --calls-dir DIR     see --calls
#   --allow-breaking    report breaking changes without failing
#   --txc PATH          the txc binary (default: $TXC, or txc on PATH)
#   --callcheck PATH    also run the boundary calls against the compiled
#                       object with txc-callcheck (a txc test tool; default:
#                       $TXC_CALLCHECK, off when empty)
#   -- FLAGS...         passed to txc compile, e.g. --target x86_64-linux-gnu
#                       --cpu x86-64-v3 -O3 (give --target and --cpu so that
#                       manifests do not depend on the CI machine)
#
# The compile cache is $TXC_CACHE_DIR if set (--cache-dir in FLAGS also
# works); keep it between CI runs.
#
# Exit status: 0 when everything passed; otherwise the first failure's txc
# exit code (4 invalid program, 5 not representable, 6 target, 7 a call does
# not pass or the boundary tests disagree, 8 breaking change, ...).
set -u

out=ci-out
baseline=
calls=
calls_dir=
allow_breaking=
txc=${TXC:-txc}
callcheck=${TXC_CALLCHECK:-}
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --calls-dir) calls_dir=$2; shift 2 ;;
    --allow-breaking) allow_breaking=--allow-breaking; shift ;;
    --txc) txc=$2; shift 2 ;;
    --callcheck) callcheck=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "ci-recipe.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
programs=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  programs="$programs $1"
  shift
done
[ "${1:-}" = -- ] && shift
if [ -z "$programs" ]; then
  echo "usage: ci-recipe.sh [options] PROGRAM... [-- COMPILE FLAGS]" >&2
  exit 2
fi
mkdir -p "$out" || exit 3

status=0
fail() {
  # Keeps the first failure's exit code.
  [ "$status" -eq 0 ] && status=$1
}
step() {
  echo "== $*"
}

for program in $programs; do
  name=$(basename "$program" .json)
  base=$out/$name

  # 1. Check: parse and verify; SARIF for code-scanning annotations.
  step "$name: check"
  "$txc" check "$program" --diagnostics-format sarif 2> "$base.check.sarif"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$program: txc check failed (exit $rc); see $base.check.sarif"
    fail $rc
    continue
  fi

  # 2. Compile: object, header and manifest (from the cache when possible).
  step "$name: compile"
  "$txc" compile "$program" -o "$base.o" --header "$base.h" \
    --manifest "$base.manifest.json" "$@"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail $rc
    continue
  fi

  # 3. Compatibility with the last release.
  if [ -n "$baseline" ] && [ -f "$baseline/$name.manifest.json" ]; then
    step "$name: diff against $baseline/$name.manifest.json"
    "$txc" diff "$baseline/$name.manifest.json" "$base.manifest.json" \
      --format json $allow_breaking > "$base.diff.json"
    rc=$?
    "$txc" diff "$baseline/$name.manifest.json" "$base.manifest.json" \
      --allow-breaking 2> /dev/null
    [ $rc -ne 0 ] && fail $rc
  fi

  # 4. Boundary tests: the contract's boundary calls, labelled with their
  #    expected outcome, evaluated on the manifest (and on the object).
  step "$name: boundary tests"
  "$txc" testgen "$base.manifest.json" -o "$base.calls.json" || {
    fail $?
    continue
  }
  "$txc" verify "$base.manifest.json" --shapes-file "$base.calls.json" \
    --check-expected --format json > "$base.verify.json"
  rc=$?
  [ $rc -ne 0 ] && fail $rc
  if [ -n "$callcheck" ]; then
    "$callcheck" "$base.o" "$base.manifest.json" --calls "$base.calls.json" \
      --check-expected --format json > "$base.object.json" || fail 7
    if ! cmp -s "$base.verify.json" "$base.object.json"; then
      echo "$name: the object and txc verify disagree on the boundary calls"
      fail 7
    else
      echo "$name: the object and txc verify agree on every boundary call"
    fi
  fi

  # 5. The calls that must keep working.
  for file in "$calls" "${calls_dir:+$calls_dir/$name.calls.json}"; do
    [ -n "$file" ] && [ -f "$file" ] || continue
    step "$name: required calls $file"
    "$txc" verify "$base.manifest.json" --shapes-file "$file"
    rc=$?
    [ $rc -ne 0 ] && fail $rc
  done
done

if [ -n "${TXC_CACHE_DIR:-}" ]; then
  step "compile cache"
  "$txc" cache stats
fi
if [ "$status" -eq 0 ]; then
  echo "ci-recipe: all programs passed"
else
  echo "ci-recipe: failed (exit $status)"
fi
exit $status
