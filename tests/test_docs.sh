#!/usr/bin/env bash
# Runs the commands of docs/device.md section 8 (TAP): every code block of the
# docs marked `// file:` or `# file:` is built and run, and every `$ ndx`
# example of docs/semantics.md is re-run and compared with the text.
# Usage: test_docs.sh SOURCE_ROOT BUILD_DIR
set -uo pipefail
root=$1 build=$(cd "$2" && pwd)
cd "$root"
echo "1..1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script=$(awk '/^## 8\./ { in8 = 1 } in8 && /^```sh$/ { blk = 1; next }
              blk && /^```$/ { exit } blk { print }' docs/device.md)
if [ -z "$script" ]; then
  echo "not ok 1 - docs/device.md has no sh block in section 8"
  exit 0
fi
if out=$(b="$build" d="$work/docs" bash -e -c "$script" 2>&1); then
  echo "ok 1 - the docs' examples build, run and match their text"
else
  echo "not ok 1 - the docs' examples"
  printf '%s\n' "$out" | sed 's/^/# /' | tail -n 40
fi
