#!/usr/bin/env bash
# run_libfuzzer.sh BINARY TARGET CORPUS SECONDS ARTIFACTS [libFuzzer flags...]
#
# Runs one libFuzzer binary for SECONDS on a temporary copy of CORPUS (the
# repository is never written) and reports one TAP line: ok with the
# executions and coverage, or not ok when it found a crash, a leak, a timeout
# (-timeout=10) or ran out of memory (-rss_limit_mb=2048); the input that did
# it is kept in ARTIFACTS. Exits with libFuzzer's status. Used by meson's
# suite 'fuzz' (tests/fuzz/meson.build).
set -u
bin=$1 target=$2 corpus=$3 seconds=$4 artifacts=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$artifacts"
cp -r "$corpus/." "$work/corpus/"
echo "TAP version 13"
echo "1..1"
"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/$target-" "$@" "$work/corpus" >"$work/log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1 | cut -d' ' -f2)
ft=$(grep -o 'ft: [0-9]*' "$work/log" | tail -n 1 | cut -d' ' -f2)
what="fuzz_$target::libfuzzer_${seconds}s (${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?})"
if [ $rc -eq 0 ]; then
  echo "ok 1 - $what"
else
  echo "not ok 1 - $what: exit $rc, input kept in $artifacts"
  grep -v '^#[0-9]' "$work/log" | tail -n 40 | sed 's/^/# /'
fi
exit $rc
