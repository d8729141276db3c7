#!/usr/bin/env bash
# test_tool.sh: the `ndx` tool's outputs and exit codes, as TAP.
# Usage: test_tool.sh PATH_TO_NDX. Exit 0: the result is printed; 1: the
# library refused (reason on stdout); 2: a malformed command line (a message on
# stderr naming the argument, nothing on stdout). No input may crash it.
set -u
ndx=${1:?usage: test_tool.sh PATH_TO_NDX}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# Runs the tool; sets rc, out, err.
run() {
  "$ndx" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

report() { # name, ok (0/1), what went wrong
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then
    echo "ok $n - $1"
  else
    failed=$((failed + 1))
    echo "not ok $n - $1"
    printf '# %s\n' "$3" "exit $rc" "stdout: $out" "stderr: $err" | sed 's/^/# /; s/^# # /# /'
  fi
}

# expect NAME RC EXACT_STDOUT -- ARGS...: exit code and the whole stdout.
expect() {
  local name=$1 want_rc=$2 want_out=$3
  shift 4
  run "$@"
  if [ "$rc" -ne "$want_rc" ]; then
    report "$name" 1 "wanted exit $want_rc"
  elif [ "$out" != "$want_out" ]; then
    report "$name" 1 "wanted stdout: $want_out"
  else
    report "$name" 0 ""
  fi
}

# contains NAME RC STDOUT_PART -- ARGS...: exit code and a part of stdout.
contains() {
  local name=$1 want_rc=$2 part=$3
  shift 4
  run "$@"
  if [ "$rc" -ne "$want_rc" ]; then
    report "$name" 1 "wanted exit $want_rc"
  elif [[ "$out" != *"$part"* ]]; then
    report "$name" 1 "wanted stdout containing: $part"
  else
    report "$name" 0 ""
  fi
}

# malformed NAME STDERR_PART -- ARGS...: exit 2, nothing on stdout, the
# message on stderr names the argument.
malformed() {
  local name=$1 part=$2
  shift 3
  run "$@"
  if [ "$rc" -ne 2 ]; then
    report "malformed: $name" 1 "wanted exit 2"
  elif [ -n "$out" ]; then
    report "malformed: $name" 1 "wanted nothing on stdout"
  elif [[ "$err" != *"$part"* ]]; then
    report "malformed: $name" 1 "wanted stderr naming: $part"
  else
    report "malformed: $name" 0 ""
  fi
}

T='shape=[3,2] strides=[1,3] offset=0' # a transpose of a C-order [2,3]
C='shape=[2,3]'                        # C order, strides and offset left out

# ---- show ---------------------------------------------------------------------
expect "show a transpose" 0 "layout      shape=[3,2] strides=[1,3] offset=0
rank        2
numel       6
span        [0, 6)
contiguous  no
fortran     yes
distinct    yes" -- show "$T"
contains "show fills in C-order strides and offset 0" 0 "shape=[2,3] strides=[3,1] offset=0" -- show "$C"
contains "show a broadcast: not distinct" 0 "distinct    no" -- show 'shape=[4,3] strides=[0,1] offset=0'
contains "show puts a layout in canonical form" 0 "shape=[1,3] strides=[0,1] offset=5" \
  -- show 'shape=[1,3] strides=[7,1] offset=5'
contains "show an empty layout" 0 "numel       0" -- show 'shape=[0,3] strides=[3,1] offset=9'

# ---- move -----------------------------------------------------------------------
contains "reshape of a transpose has no view (NDX_ENOVIEW)" 1 "NDX_ENOVIEW" -- move "$T" reshape 6
expect "reshape 2,3 -> 6" 0 "shape=[6] strides=[1] offset=0" -- move "$C" reshape 6
expect "reshape in brackets" 0 "shape=[3,2] strides=[2,1] offset=0" -- move "$C" reshape '[3,2]'
expect "broadcast" 0 "shape=[2,3,4] strides=[0,1,0] offset=0" -- move 'shape=[3,1]' broadcast 2,3,4
expect "permute" 0 "$T" -- move "$C" permute 1,0
expect "slice with negative step" 0 "shape=[2,3] strides=[10,-2] offset=9" \
  -- move 'shape=[4,5]' slice 1:2:2,4:3:-2
expect "slice with the step left out" 0 "shape=[1,2] strides=[0,1] offset=4" -- move "$C" slice 1:1,1:2
expect "window" 0 "shape=[4,3] strides=[1,1] offset=0" -- move 'shape=[6]' window 0:3:1:1
expect "window with step and dilation" 0 "shape=[2,2] strides=[2,2] offset=0" \
  -- move 'shape=[6]' window 0:2:2:2
expect "narrow" 0 "shape=[2,2] strides=[3,1] offset=1" -- move "$C" narrow 1 1 2
expect "transpose" 0 "$T" -- move "$C" transpose 0 1
expect "flip" 0 "shape=[2,3] strides=[3,-1] offset=2" -- move "$C" flip 1
expect "flip twice is the identity" 0 "shape=[2,3] strides=[3,1] offset=0" -- move "$C" flip 1 flip 1
expect "squeeze" 0 "shape=[3] strides=[1] offset=0" -- move 'shape=[1,3]' squeeze 0
expect "unsqueeze" 0 "shape=[2,1,3] strides=[3,0,1] offset=0" -- move "$C" unsqueeze 1
expect "a chain of moves" 0 "shape=[6] strides=[1] offset=0" \
  -- move "$C" transpose 0 1 transpose 0 1 reshape 6
contains "a chain stops at the refused move and names it" 1 "reshape 6: no result (NDX_ENOVIEW)" \
  -- move "$C" transpose 0 1 reshape 6 flip 0
contains "flip of an axis past the rank is refused (NDX_EINVAL)" 1 "NDX_EINVAL" -- move "$C" flip 5
contains "squeeze of an extent-3 axis is refused" 1 "NDX_EINVAL" -- move "$C" squeeze 1
contains "reshape to another element count is refused" 1 "NDX_EINVAL" -- move "$C" reshape 7
contains "slice with too few ranges is refused" 1 "NDX_EINVAL" -- move "$C" slice 0:1
contains "broadcast that does not fit is refused" 1 "NDX_EINVAL" -- move "$C" broadcast 2,4

# ---- coalesce --------------------------------------------------------------------
expect "coalesce a 4-d transpose pair to 2-d" 0 "shape=[20,6] strides=[6,1] offset=0
shape=[20,6] strides=[1,20] offset=0" \
  -- coalesce 'shape=[4,5,2,3]' 'shape=[4,5,2,3] strides=[5,1,60,20] offset=0'
expect "coalesce one contiguous layout" 0 "shape=[24] strides=[1] offset=0" \
  -- coalesce 'shape=[2,3,4]'
contains "coalesce layouts of two shapes is refused" 1 "NDX_EINVAL" -- coalesce "$C" "$T"

# ---- help -------------------------------------------------------------------------
contains "help" 0 "usage: ndx" -- help
malformed "no command prints the usage and exits 2" "usage: ndx" --

# ---- malformed command lines: exit 2, stderr names the argument -------------------
malformed "unknown command" "frobnicate" -- frobnicate
malformed "bad layout text" "shape=[3,x]" -- show 'shape=[3,x]'
malformed "layout with a negative position" "strides=[-1]" -- show 'shape=[3] strides=[-1] offset=0'
malformed "layout with a negative extent" "shape=[-2]" -- show 'shape=[-2]'
malformed "show without a layout" "missing LAYOUT" -- show
malformed "show with an extra argument" "extra" -- show "$C" extra
malformed "move without a move" "missing MOVE" -- move "$C"
malformed "move without a layout" "missing LAYOUT" -- move
malformed "unknown move" "frob" -- move "$C" frob 1
malformed "unknown move after a good one" "bogus" -- move "$C" flip 0 bogus
malformed "a bad number after a refused move" "x" -- move "$C" flip 9 flip x
malformed "reshape without its shape" "reshape needs 1 argument" -- move "$C" reshape
malformed "narrow with two of three arguments" "narrow needs 3 arguments" -- move "$C" narrow 0 1
malformed "a word for a number" "'2,x'" -- move "$C" reshape 2,x
malformed "a number past int64" "99999999999999999999" -- move "$C" reshape 99999999999999999999
malformed "an axis past int" "4294967296" -- move "$C" flip 4294967296
malformed "an empty entry" "'1,,6'" -- move "$C" reshape 1,,6
malformed "a trailing comma" "'6,'" -- move "$C" reshape 6,
malformed "an unclosed bracket" "'[2,3'" -- move "$C" reshape '[2,3'
malformed "blanks in a number" "' 6'" -- move "$C" reshape ' 6'
malformed "a slice entry with four fields" "'0:1:1:1,0:3'" -- move "$C" slice 0:1:1:1,0:3
malformed "a slice entry with one field" "'0,0:3'" -- move "$C" slice 0,0:3
malformed "a window entry with five fields" "'0:2:1:1:1'" -- move "$C" window 0:2:1:1:1
malformed "more entries than NDX_MAX_RANK" "more than 32 entries" \
  -- move "$C" reshape 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6
malformed "a list longer than read" "characters long" -- move "$C" reshape "$(printf '1,%.0s' {1..3000})6"
malformed "coalesce without a layout" "missing LAYOUT" -- coalesce
malformed "coalesce with a bad second layout" "LAYOUT 2" -- coalesce "$C" 'shape=[2,'
malformed "devices with an argument" "extra" -- devices extra
malformed "demo with an argument" "extra" -- demo extra

# ---- never crash -------------------------------------------------------------------
odd=('' ' ' '[' ']' ',' ':' '-' '+' '--' '0' '-1' '1:' ':1' '[]' '[,]' '1:2:3:4:5'
  '9223372036854775807' '-9223372036854775808' '9223372036854775808' 'shape=' 'shape=[]'
  'shape=[' 'shape=[1,2] strides=[1]' 'shape=[2] strides=[9223372036854775807]'
  'shape=[9007199254740993]' 'shape=[2] offset=-1' "$(printf 'x%.0s' {1..5000})")
crashed=""
for a in "${odd[@]}"; do
  for cmd in "show" "coalesce"; do
    run "$cmd" "$a"
    [ "$rc" -gt 2 ] && crashed+=" [$cmd '$a' -> $rc]"
  done
  for mv in reshape broadcast permute slice window narrow transpose flip squeeze unsqueeze; do
    run move 'shape=[2,1,3]' "$mv" "$a" "$a" "$a"
    [ "$rc" -gt 2 ] && crashed+=" [move $mv '$a' -> $rc]"
    run move "$a" "$mv" "$a"
    [ "$rc" -gt 2 ] && crashed+=" [move '$a' $mv -> $rc]"
  done
done
rc=0 out="" err="$crashed"
report "odd inputs exit 0, 1 or 2, never crash" "$([ -z "$crashed" ] && echo 0 || echo 1)" "crashed:$crashed"

echo "1..$n"
[ "$failed" -eq 0 ]
