#!/usr/bin/env bash
# test_tool.sh: the `ndx` tool's outputs and exit codes, as TAP.
# Usage: test_tool.sh PATH_TO_NDX. Exit 0: the result is printed; 1: the
# library refused (reason on stdout); 2: a malformed command line (a message on
# stderr naming the argument, nothing on stdout). No input may crash it.
# The `ndx copy` tests need an OpenCL device (PoCL in CI; POCL_CACHE_DIR is
# inherited); `ndx bench` finds ndx-bench in the build tree; the JSON layout
# tests skip, after checking the message, in a build without DLPack; in a
# build without OpenCL the copy tests become checks that `copy` and `devices`
# refuse clearly. Every example of every --help (the tool's and each
# command's: the lines "  $ ndx ...", tools/tool.h) is run: it must exit 0
# and print the lines shown under it.
set -u
ndx=${1:?usage: test_tool.sh PATH_TO_NDX}
have_cl=yes
"$ndx" help | grep -q "built without OpenCL" && have_cl=no
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

skip() { # name, why
  n=$((n + 1))
  echo "ok $n - $1 # SKIP $2"
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
  -- move 'shape=[4,5]' slice 'start=[1,4] count=[2,3] step=[2,-2]'
expect "slice with the step left out" 0 "shape=[1,2] strides=[0,1] offset=4" \
  -- move "$C" slice 'start=[1,1] count=[1,2]'
expect "slice: 2 elements from 2 backwards (Python's 2:2:-1 has none)" 0 \
  "shape=[2] strides=[-1] offset=2" -- move 'shape=[5]' slice 'start=[2] count=[2] step=[-1]'
expect "slice: fields in any order, blanks in the lists" 0 "shape=[2,3] strides=[10,-2] offset=9" \
  -- move 'shape=[4,5]' slice ' step=[ 2, -2 ]  count=[2,3]   start=[1,4] '
expect "slice: fields as separate words" 0 "shape=[2,3] strides=[-10,-2] offset=19" \
  -- move 'shape=[4,5]' slice 'start=[1,4]' 'count=[2,3]' step=[2,-2] flip 0
expect "slice of rank 0" 0 "shape=[] strides=[] offset=3" -- move 'shape=[] offset=3' slice 'start=[] count=[]'
expect "window" 0 "shape=[4,3] strides=[1,1] offset=0" \
  -- move 'shape=[6]' window 'axis=[0] size=[3] step=[1] dilation=[1]'
expect "window with step and dilation" 0 "shape=[2,2] strides=[2,2] offset=0" \
  -- move 'shape=[6]' window 'dilation=[2] size=[2] axis=[0] step=[2]'
expect "windows on two axes, step and dilation left out" 0 "shape=[3,6,2,3] strides=[8,1,8,1] offset=0" \
  -- move 'shape=[4,8]' window axis=[0,1] size=[2,3]
expect "no window" 0 "shape=[6] strides=[1] offset=0" -- move 'shape=[6]' window 'axis=[] size=[]'
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
contains "slice with too few ranges is refused" 1 "NDX_EINVAL" -- move "$C" slice 'start=[0] count=[1]'
contains "a refused slice is named as typed" 1 \
  "slice start=[0] count=[4] step=[2]: no result (NDX_EINVAL): ndx_apply: axis 0: start 0, count 4, step 2 leaves extent 5" \
  -- move 'shape=[5]' slice 'start=[0] count=[4] step=[2]'
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
malformed "the old slice form says how to write it now" \
  "slice '2:2:-1' is the old START:COUNT:STEP form (COUNT elements, not Python's start:stop:step), no longer read; write slice 'start=[2] count=[2] step=[-1]'" \
  -- move 'shape=[5]' slice 2:2:-1
malformed "the old slice form, step left out" "write slice 'start=[0,1] count=[1,2]'" -- move "$C" slice 0:1,1:2
malformed "the old window form says how to write it now" \
  "window '0:3:2:2' is the old AXIS:SIZE:STEP:DILATION form (not a Python slice), no longer read; write window 'axis=[0] size=[3] step=[2] dilation=[2]'" \
  -- move 'shape=[10]' window 0:3:2:2
malformed "the old empty window list" "write window 'axis=[] size=[]'" -- move 'shape=[6]' window '[]'
malformed "a slice with four old fields: no field named" \
  "slice '0:1:1:1,0:3': no field named; write the fields start, count and step as NAME=[..], one entry per axis, e.g. slice 'start=[0,3] count=[2,4] step=[1,-1]'" \
  -- move "$C" slice 0:1:1:1,0:3
malformed "a window of five old fields: no field named" "write the fields axis, size, step and dilation as NAME=[..]" \
  -- move "$C" window 0:2:1:1:1
malformed "slice: an unknown field" "slice 'start=[1] cnt=[2]': unknown field 'cnt' (the fields are start, count and step)" \
  -- move 'shape=[5]' slice 'start=[1] cnt=[2]'
malformed "slice: a field given twice" "start is given twice" -- move 'shape=[5]' slice 'start=[1] count=[1] start=[2]'
malformed "slice: no count" "slice 'start=[1]': no count=[..] (a slice needs start=[..] and count=[..])" \
  -- move 'shape=[5]' slice 'start=[1]'
malformed "window: no size" "no size=[..] (a window needs axis=[..] and size=[..])" -- move 'shape=[5]' window axis=[0]
malformed "slice: lists of two lengths" "start=[..] has 2 entries, count=[..] 1: one each per axis" \
  -- move "$C" slice 'start=[0,1] count=[1]'
malformed "window: lists of two lengths" "axis=[..] has 1 entry, step=[..] 2: one each per window" \
  -- move "$C" window 'axis=[1] size=[2] step=[1,1]'
malformed "slice: a list without brackets" "start=1: a field's list is written in brackets, as start=[1]" \
  -- move 'shape=[5]' slice 'start=1 count=[2]'
malformed "slice: not a number" "count=[..] entry 2, 'x', is not a 64-bit integer" -- move "$C" slice 'start=[0,0] count=[1,x]'
malformed "window: an axis past int32" "axis=[..] entry 1, '4294967296', is not an integer in [-2147483648, 2147483647]" \
  -- move "$C" window 'axis=[4294967296] size=[2]'
malformed "slice: an empty entry" "start=[..] entry 2 is empty" -- move "$C" slice 'start=[1,] count=[1,1]'
malformed "slice: an unclosed list" "start=[ is not closed by ']'" -- move 'shape=[5]' slice 'start=[1 count=[1]'
malformed "slice: fields without a blank between" "'count=[1]' follows start=[..] without a blank" \
  -- move 'shape=[5]' slice 'start=[1]count=[1]'
malformed "slice: a word that names no field" "'x' is no field" -- move 'shape=[5]' slice 'start=[1] count=[1] x'
malformed "slice: more than 32 entries" "start=[..] has more than 32 entries" \
  -- move "$C" slice "start=[$(printf '0,%.0s' {1..32})0] count=[1]"
malformed "slice: fields longer than read" "at most 4095 are read" \
  -- move "$C" slice "start=[0]" "count=[$(printf '1%.0s' {1..5000})]"
malformed "more entries than NDX_MAX_RANK" "more than 32 entries" \
  -- move "$C" reshape 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6
malformed "a list longer than read" "characters long" -- move "$C" reshape "$(printf '1,%.0s' {1..3000})6"
malformed "coalesce without a layout" "missing LAYOUT" -- coalesce
malformed "coalesce with a bad second layout" "LAYOUT 2" -- coalesce "$C" 'shape=[2,'
malformed "devices with an argument" "extra" -- devices extra
malformed "demo with an argument" "extra" -- demo extra

# ---- help for the tool and every command -------------------------------------------
contains "--help prints the usage" 0 "usage: ndx COMMAND" -- --help
contains "-h prints the usage" 0 "usage: ndx COMMAND" -- -h
for cmd in show move coalesce pack copy gather scatter bench devices demo help; do
  contains "$cmd --help" 0 "usage: ndx $cmd" -- "$cmd" --help
  contains "$cmd -h" 0 "usage: ndx $cmd" -- "$cmd" -h
  contains "help $cmd" 0 "usage: ndx $cmd" -- help "$cmd"
done
contains "bench --help shows ndx-bench's options too" 0 "usage: ndx-bench" -- bench --help
malformed "help of an unknown command" "unknown command 'frob'" -- help frob
malformed "help with two commands" "extra argument 'copy'" -- help pack copy
malformed "--help with an extra argument" "extra argument 'x'" -- show --help x
malformed "a command's misuse points to its usage" "ndx pack --help" -- pack

# ---- every example of every --help runs ----------------------------------------------
# The marker (tools/tool.h): a line "  $ ndx ..." is an example command, continued
# while it ends with "\"; the lines after it up to a blank line are its whole
# stdout (two-space indent removed). Each example must exit 0 and print them.
case $ndx in /*) ndx_abs=$ndx ;; */*) ndx_abs=$PWD/$ndx ;; *) ndx_abs=$(command -v "$ndx") ;; esac
ndx() { command "$ndx_abs" "$@"; } # the examples call `ndx`, in $tmp
help_examples() { # "" for the tool's own usage, else a command
  local cmd=$1 text name lines i count=0 line cmdline want shown desc
  if [ -z "$cmd" ]; then text=$("$ndx" --help) name="ndx --help"; else text=$("$ndx" "$cmd" --help) name="ndx $cmd --help"; fi
  mapfile -t lines <<<"$text"
  i=0
  while [ $i -lt ${#lines[@]} ]; do
    line=${lines[$i]}
    i=$((i + 1))
    [[ "$line" == "  \$ ndx "* ]] || continue
    cmdline=${line#"  \$ "}
    while [[ "$cmdline" == *\\ && $i -lt ${#lines[@]} ]]; do
      cmdline+=$'\n'"${lines[$i]}"
      i=$((i + 1))
    done
    want="" shown=no
    while [ $i -lt ${#lines[@]} ] && [ -n "${lines[$i]}" ] && [[ "${lines[$i]}" != "  \$ "* ]]; do
      want+="${want:+$'\n'}${lines[$i]#  }" shown=yes
      i=$((i + 1))
    done
    count=$((count + 1))
    desc=$(printf '%s' "$cmdline" | tr -s ' \n\\' ' ') # one line, for TAP
    out=$(cd "$tmp" && eval "$cmdline" 2>"$tmp/err")
    rc=$? err=$(cat "$tmp/err")
    if [ "$rc" -ne 0 ]; then
      report "$name: example $count runs: $desc" 1 "wanted exit 0"
    elif [ $shown = yes ] && [ "$out" != "$want" ]; then
      report "$name: example $count prints what it shows: $desc" 1 "wanted stdout: $want"
    else
      report "$name: example $count runs${want:+ and prints what it shows}: $desc" 0 ""
    fi
  done
  rc=$count out="" err=""
  if [ $have_cl = no ] && [[ " copy gather scatter devices " == *" $cmd "* ]]; then
    skip "$name has an example" "no OpenCL in this build"
  else
    report "$name has an example" "$([ $count -gt 0 ] && echo 0 || echo 1)" "no '  \$ ndx' line"
  fi
}
for cmd in "" show move coalesce pack copy gather scatter bench devices demo help; do
  help_examples "$cmd"
done

# ---- show --json ---------------------------------------------------------------------
expect "show --json" 0 '{"shape":[3,2],"strides":[1,3],"byte_offset":20,"dtype":{"code":"uint","bits":32,"lanes":1}}' \
  -- show --json 'shape=[3,2] strides=[1,3] offset=5'
expect "show --json --bits 4: byte_offset in bytes" 0 '{"shape":[2],"strides":[1],"byte_offset":1,"dtype":{"code":"uint","bits":4,"lanes":1}}' \
  -- show --json --bits 4 'shape=[2] offset=2'
contains "show --json of a nibble view starting inside a byte has no JSON form" 1 "starts inside a byte" \
  -- show --json --bits=4 'shape=[2] offset=3'
expect "show --json of an empty layout" 0 '{"shape":[0,3],"strides":[0,0],"byte_offset":0,"dtype":{"code":"uint","bits":32,"lanes":1}}' \
  -- show --json 'shape=[0,3] strides=[3,1] offset=9'
expect "show --json of rank 0" 0 '{"shape":[],"strides":[],"byte_offset":28,"dtype":{"code":"uint","bits":32,"lanes":1}}' \
  -- show --json 'shape=[] offset=7'
malformed "show --bits 3" "not an element width" -- show --bits 3 "$C"
malformed "show --bits without a value" "--bits needs a value" -- show "$C" --bits
malformed "show with an unknown option" "unknown option '--frob'" -- show --frob "$C"

# ---- JSON layouts (DLPack-like; need a build with DLPack and jansson) ----------------
run show '{"shape":[1]}'
if [[ "$err" == *"built without DLPack"* || "$err" == *"built without jansson"* ]]; then
  report "JSON without DLPack or jansson: a clear error, exit 2" "$([ "$rc" -eq 2 ] && [ -z "$out" ] && echo 0 || echo 1)" "wanted exit 2"
  skip "JSON layout tests" "this ndx was built without DLPack or jansson"
else
  J='{"shape":[3,2],"strides":[1,3],"byte_offset":20,"dtype":{"code":"float","bits":32,"lanes":1}}'
  contains "JSON layout" 0 "layout      shape=[3,2] strides=[1,3] offset=5" -- show "$J"
  contains "JSON: strides left out are C order" 0 "shape=[2,3] strides=[3,1] offset=0" -- show '{"shape":[2,3]}'
  contains "JSON: strides null are C order" 0 "shape=[2,3] strides=[3,1] offset=0" \
    -- show ' {"strides": null, "shape" : [2, 3]}'$'\n'
  contains "JSON: byte_offset counts bytes of the dtype" 0 "shape=[2] strides=[1] offset=4" \
    -- show '{"shape":[2],"byte_offset":8,"dtype":{"code":"int","bits":16}}'
  contains "JSON: lanes make one element" 0 "shape=[2] strides=[1] offset=1" \
    -- show '{"shape":[2],"byte_offset":16,"dtype":{"code":2,"bits":32,"lanes":4}}'
  contains "JSON: without dtype, --bits sizes byte_offset" 0 "offset=16" \
    -- show --bits 4 '{"shape":[2],"byte_offset":8}'
  contains "JSON: escapes in keys" 0 "shape=[4] strides=[1]" -- show '{"sh\u0061pe":[4]}'
  expect "JSON round trip keeps the dtype" 0 "$J" -- show --json "$J"
  contains "JSON round trip of a flip through show --json" 0 "layout      shape=[2,3] strides=[3,-1] offset=2" \
    -- show "$("$ndx" show --json 'shape=[2,3] strides=[3,-1] offset=2')"
  printf '%s' "$J" >"$tmp/layout.json"
  contains "JSON from @FILE" 0 "shape=[3,2] strides=[1,3] offset=5" -- show "@$tmp/layout.json"
  expect "JSON in move" 0 "shape=[6] strides=[1] offset=0" -- move '{"shape":[3,2],"strides":[1,3]}' transpose 0 1 reshape 6
  expect "JSON in coalesce" 0 "shape=[6] strides=[1] offset=0" -- coalesce '{"shape":[2,3]}'
  malformed "JSON: deep nesting" "show: LAYOUT: JSON: \"shape\" entry 0 must be an integer, found an array" \
    -- show "{\"shape\":$(printf '[%.0s' {1..40})$(printf ']%.0s' {1..40})}"
  malformed "JSON: deep nesting, unclosed" "show: LAYOUT: not JSON: line 1, column 10241, byte 10241: maximum parsing depth reached" -- show "$(printf '{"a":%.0s' {1..5000})"
  malformed "JSON: a number past int64" "show: LAYOUT: not JSON: line 1, column 30, byte 30: too big integer near '99999999999999999999'" \
    -- show '{"shape":[99999999999999999999]}'
  malformed "JSON: INT64_MIN - 1" "show: LAYOUT: not JSON: line 1, column 30, byte 30: too big negative integer" -- show '{"shape":[-9223372036854775809]}'
  malformed "JSON: INT64_MAX is read exactly (and refused by the library)" \
    "ndx_dlpack_import" -- show '{"shape":[9223372036854775807]}'
  malformed "JSON: a fraction" "show: LAYOUT: JSON: \"shape\" entry 0 must be an integer, found the real number 2.5" -- show '{"shape":[2.5]}'
  malformed "JSON: an exponent" "\"shape\" entry 0 must be an integer, found the real number 1000.0" -- show '{"shape":[1e3]}'
  malformed "JSON: 2.0 is not an integer either" "\"shape\" entry 1 must be an integer, found the real number 2.0" -- show '{"shape":[3,2.0]}'
  malformed "JSON: a leading zero" "show: LAYOUT: not JSON: line 1, column 11, byte 11: invalid token" -- show '{"shape":[02]}'
  malformed "JSON: a trailing comma in an array" "show: LAYOUT: not JSON: line 1, column 13, byte 13: unexpected token near ']'" -- show '{"shape":[2,]}'
  malformed "JSON: a trailing comma in an object" "show: LAYOUT: not JSON: line 1, column 14, byte 14: string or '}' expected near '}'" -- show '{"shape":[2],}'
  malformed "JSON: a key given twice" "show: LAYOUT: not JSON: line 1, column 20, byte 20: duplicate object key near '\"shape\"'" -- show '{"shape":[2],"shape":[3]}'
  malformed "JSON: trailing garbage" "show: LAYOUT: not JSON: line 1, column 15, byte 15: end of file expected near 'x'" -- show '{"shape":[2]} x'
  malformed "JSON: two values" "show: LAYOUT: not JSON: line 1, column 14, byte 14: end of file expected near '{'" -- show '{"shape":[2]}{"shape":[2]}'
  malformed "JSON: missing shape" "no \"shape\"" -- show '{"strides":[1]}'
  malformed "JSON: ndim 33" "\"shape\" has 33 entries, at most 32" \
    -- show "{\"shape\":[$(printf '1,%.0s' {1..32})1]}"
  malformed "JSON: strides of another length" "\"strides\" has 1 entry, \"shape\" 2" \
    -- show '{"shape":[2,3],"strides":[1]}'
  malformed "JSON: an unknown key" "unknown key \"data\"" -- show '{"shape":[2],"data":0}'
  malformed "JSON: shape not an array" "\"shape\" must be an array of integers, found a string" \
    -- show '{"shape":"2"}'
  malformed "JSON: a string in shape" "entry 1 must be an integer, found a string" -- show '{"shape":[2,"3"]}'
  printf '[1]' >"$tmp/array.json"
  malformed "JSON: not an object" "a layout is an object" -- show "@$tmp/array.json"
  printf '{"shape":[%s1]}' "$(printf '1,%.0s' {1..70000})" >"$tmp/big.json"
  malformed "JSON: a 70001-entry shape from @FILE" "\"shape\" has 70001 entries, at most 32" -- show "@$tmp/big.json"
  malformed "JSON: an unclosed object" "show: LAYOUT: not JSON: line 1, column 12, byte 12: '}' expected near end of file" -- show '{"shape":[2]'
  malformed "JSON: a negative byte_offset" "\"byte_offset\" is -1" -- show '{"shape":[2],"byte_offset":-1}'
  malformed "JSON: a negative extent (ndx_dlpack_import)" "ndx_dlpack_import" -- show '{"shape":[-2]}'
  malformed "JSON: a 24-bit dtype" "24 bits wide" -- show '{"shape":[2],"dtype":{"code":"float","bits":24}}'
  malformed "JSON: byte_offset inside an element" "not a whole number" -- show '{"shape":[2],"byte_offset":2}'
  malformed "JSON: an unknown type code" "\"code\" \"flt\" is not a DLPack type code" \
    -- show '{"shape":[2],"dtype":{"code":"flt","bits":32}}'
  malformed "JSON: dtype without code" "no \"code\"" -- show '{"shape":[2],"dtype":{"bits":8}}'
  malformed "JSON: dtype bits past uint8" "\"bits\" is 256" -- show '{"shape":[2],"dtype":{"code":1,"bits":256}}'
  malformed "JSON: a raw control byte" "show: LAYOUT: not JSON: line 1, column 5, byte 5: control character 0x9" -- show $'{"sha\tpe":[2]}'
  malformed "JSON: invalid UTF-8" "show: LAYOUT: not JSON: line 1, column 2, byte 2: unable to decode byte 0xc3" -- show $'{"\xc3\x28":[2]}'
  malformed "JSON: a lone surrogate" "show: LAYOUT: not JSON: line 1, column 9, byte 9: invalid Unicode '\\uD800'" -- show '{"\ud800":[2]}'
  malformed "JSON: \\u0000 in a key" "show: LAYOUT: not JSON: line 1, column 10, byte 10: NUL byte in object key not supported" -- show '{"a\u0000":[2]}'
  malformed "JSON: \\u0000 in a string" "show: LAYOUT: not JSON: line 1, column 49, byte 49: \\u0000 is not allowed" \
    -- show '{"shape":[2],"dtype":{"bits":8,"code":"int\u0000"}}'
  malformed "JSON: an unknown escape" "show: LAYOUT: not JSON: line 1, column 4, byte 4: invalid escape" -- show '{"\x":[2]}'
  malformed "JSON: single quotes" "show: LAYOUT: not JSON: line 1, column 2, byte 2: string or '}' expected near '''" -- show "{'shape':[2]}"
  malformed "JSON: true for a shape" "found true" -- show '{"shape":true}'
  malformed "JSON: a missing @FILE" "show: LAYOUT: cannot open '$tmp/none.json'" -- show "@$tmp/none.json"
  malformed "JSON: a directory for @FILE" "show: LAYOUT: cannot read '$tmp'" -- show "@$tmp"
  printf '{"shape":[2,\n  3],\n "strides": [1, x]}' >"$tmp/bad.json"
  malformed "JSON: an error in @FILE names the file and the line" \
    "show: LAYOUT: not JSON in $tmp/bad.json: line 3, column 17, byte 36: invalid token near 'x'" -- show "@$tmp/bad.json"
  malformed "JSON: a real stride" "\"strides\" entry 1 must be an integer, found the real number 1.5" \
    -- show '{"shape":[2,2],"strides":[2,1.5]}'
  malformed "JSON: the error names the argument" "pack: LAYOUT 2: not JSON" -- pack "$C" '{"shape":'
  odd_json=('{' '}' '{"' '{"shape"' '{"shape":' '{"shape":[' '{"shape":[-' '{"shape":[-]}' '{"shape":[1' '"x"' '1'
    'null' '{"shape":[1]}}' '{"shape":[1]},' '{"shape":nul}' '{"shape":[1e]}' '{"shape":[.5]}' '{"shape":[+1]}'
    '{"shape":[0x10]}' '{"shape":[1],"dtype":{}}' '{"shape":[1],"dtype":[]}' '{"shape":[1],"strides":{}}'
    '{"shape":[9007199254740993]}' '{"shape":[3],"strides":[-9223372036854775808]}' '{"\uDBFF\uDFFF":1}'
    '{"\uD800\u0041":1}' '{"a":"\u12"}' "{\"shape\":[$(printf '1,%.0s' {1..30000})1]}")
  crashed=""
  for a in "${odd_json[@]}"; do # every command reads layouts through one reader
    run show "$a"
    [ "$rc" -gt 2 ] && crashed+=" [show '${a:0:40}' -> $rc]"
  done
  rc=0 out="" err="$crashed"
  report "odd JSON exits 0, 1 or 2, never crashes" "$([ -z "$crashed" ] && echo 0 || echo 1)" "crashed:$crashed"
fi

# ---- pack ----------------------------------------------------------------------------
# Known values from ndx_pack.h: 32-byte head, then int32 words offset, extent,
# magic = floor(2^32 (2^l - d) / d) + 1 with l = ceil(log2 d), shift l, strides.
expect "pack of one C-order layout: the head, the words, the bytes" 0 "version   1
size      52
rank      1
nops      1
bits      32
wide      0 (int32 words)
numel     6
extent    [6]
magic     [1431655766]
shift     [3]
operand 0 offset 0
  strides [1]
bytes     52
  0000  01 00 00 00 34 00 00 00  01 00 00 00 01 00 00 00
  0010  20 00 00 00 00 00 00 00  06 00 00 00 00 00 00 00
  0020  00 00 00 00 06 00 00 00  56 55 55 55 03 00 00 00
  0030  01 00 00 00" -- pack 'shape=[2,3]'
run pack --copy --bits 4 'shape=[3,2]' 'shape=[3,2] strides=[1,3]'
want="size      80
rank      2
nops      2
bits      4
wide      0 (int32 words)
numel     6
extent    [3,2]
magic     [1431655766,1]
shift     [2,1]
operand 0 (dst) offset 0
  strides [2,1]
operand 1 (src) offset 0
  strides [1,3]
bytes     80"
[ "$rc" -eq 0 ] && [[ "$out" == *"$want"* ]]
report "pack --copy of a 4-bit transpose" $? "wanted: $want"
contains "pack --wide: int64 words, magic for 2^64" 0 "wide      1 (int64 words)
numel     6
extent    [6]
magic     [6148914691236517206]" -- pack --wide 'shape=[2,3]'
contains "pack: magic numbers are unsigned (int32 words)" 0 "magic     [2576980378]" -- pack 'shape=[5]'
contains "pack: magic numbers are unsigned (int64 words)" 0 "magic     [11068046444225730970]" \
  -- pack --wide 'shape=[5]'
contains "pack --wide: 32 + 8 * 5 bytes" 0 "size      72" -- pack --wide 'shape=[2,3]'
contains "pack: more than 2^31 elements takes int64 words" 0 "wide      1" -- pack --bits 8 'shape=[3000000000]'
contains "pack of two layouts coalesced together" 0 "operand 1 offset 0
  strides [1,3]" -- pack 'shape=[3,2]' 'shape=[3,2] strides=[1,3]'
contains "pack of layouts of two shapes is refused (NDX_EINVAL)" 1 "pack: no result (NDX_EINVAL)" -- pack "$C" "$T"
if [[ "$("$ndx" show '{"shape":[1]}' 2>&1)" != *"without DLPack"* ]]; then
  contains "pack takes its width from a JSON dtype" 0 "bits      16" \
    -- pack '{"shape":[4],"dtype":{"code":"float","bits":16}}'
  malformed "pack: a dtype against --bits" "has 16-bit elements (its dtype), --bits says 8" \
    -- pack --bits 8 '{"shape":[4],"dtype":{"code":"float","bits":16}}'
  malformed "pack --copy: dtypes that differ" "pack: SRC has 16-bit elements, pack: DST 32-bit ones" \
    -- pack --copy '{"shape":[4],"dtype":{"code":"float","bits":32}}' '{"shape":[4],"dtype":{"code":"float","bits":16}}'
fi
malformed "pack without a layout" "pack: missing LAYOUT" -- pack
malformed "pack --copy with one layout" "--copy takes DST and SRC, 1 layout given" -- pack --copy "$C"
malformed "pack of 9 layouts" "more than 8 layouts" -- pack "$C" "$C" "$C" "$C" "$C" "$C" "$C" "$C" "$C"
malformed "pack --bits 3" "'3' is not an element width" -- pack --bits 3 "$C"
malformed "pack --bits 256" "'256' is not an element width" -- pack --bits=256 "$C"
malformed "pack with an unknown option" "unknown option '--bogus'" -- pack --bogus "$C"
malformed "pack with a bad layout" "pack: LAYOUT 2" -- pack "$C" 'shape=[2'

# ---- copy on an OpenCL device (PoCL in CI) ------------------------------------------
if [ $have_cl = no ]; then
  for cmd in copy convert gather scatter devices; do
    run $cmd
    [ "$rc" -eq 1 ] && [[ "$err" == *"ndx $cmd: this ndx was built without OpenCL"* ]]
    report "$cmd without OpenCL: exit 1, the message says the build has none" $? "wanted exit 1"
  done
  contains "help says which commands this build lacks" 0 "copy, convert, gather, scatter and devices are not" -- help
  contains "demo without OpenCL: the host side, and why no device side" 0 "built without OpenCL" -- demo
else
# checked_ok CMD NAME PATH LINE -- ARGS: `ndx CMD ARGS` exits 0, prints the
# path, LINE and "OK" last.
checked_ok() {
  local cmd=$1 name=$2 path=$3 line=$4
  shift 5
  run "$cmd" "$@"
  if [ "$rc" -ne 0 ]; then
    report "$cmd: $name" 1 "wanted exit 0"
  elif [[ "$out" != *"path      $path"* ]]; then
    report "$cmd: $name" 1 "wanted path $path"
  elif [[ "$out" != *"$line"* ]]; then
    report "$cmd: $name" 1 "wanted: $line"
  elif [ "$(tail -n 1 <<<"$out")" != "OK" ]; then
    report "$cmd: $name" 1 "wanted OK last"
  else
    report "$cmd: $name" 0 ""
  fi
}
# copy_ok NAME PATH BYTES_LINE -- ARGS, convert_ok likewise: checked_ok copy, convert.
copy_ok() { checked_ok copy "$@"; }
convert_ok() { checked_ok convert "$@"; }
copy_ok "transpose 32-bit" transpose "checked   2400 bytes of dst's buffer: 2400 hold elements" \
  -- 'shape=[20,30]' 'shape=[20,30] strides=[1,20]'
copy_ok "flip" gather "elements  24 of 32 bits" -- 'shape=[4,6]' 'shape=[4,6] strides=[6,-1] offset=5'
copy_ok "flip of the destination" "" "OK" -- 'shape=[4,6] strides=[-6,1] offset=18' 'shape=[4,6]'
copy_ok "broadcast" rows "elements  12 of 32 bits" -- 'shape=[3,4]' 'shape=[3,4] strides=[0,1]'
copy_ok "4-bit transpose" "" "elements  15 of 4 bits" -- --bits 4 'shape=[3,5]' 'shape=[3,5] strides=[1,3]'
copy_ok "1-bit permute" "" "elements  60 of 1 bits" \
  -- --bits=1 'shape=[3,4,5]' 'shape=[3,4,5] strides=[1,15,3]'
contains "copy prints its kernels' shape" 0 "shape     " -- copy 'shape=[4,6]' 'shape=[4,6] strides=[1,4]'
NDX_CL_SHAPE=gpu copy_ok "transpose 32-bit, gpu shape" transpose "shape     gpu" \
  -- 'shape=[20,30]' 'shape=[20,30] strides=[1,20]'
NDX_CL_SHAPE=gpu copy_ok "1-bit permute, gpu shape" "" "shape     gpu" \
  -- --bits=1 'shape=[3,4,5]' 'shape=[3,4,5] strides=[1,15,3]'
NDX_CL_SHAPE=tpu contains "copy with a bad NDX_CL_SHAPE: refused, naming it" 1 "NDX_CL_SHAPE" \
  -- copy 'shape=[4,6]' 'shape=[4,6] strides=[1,4]'
contains "devices prints each device's shape" 0 "    shape " -- devices
copy_ok "bytes between elements stay as they were" "" \
  "checked   9 bytes of dst's buffer: 5 hold elements, 4 must stay as they were" \
  -- --bits 8 'shape=[5] strides=[2]' 'shape=[5]'
copy_ok "4-bit strided destination: the other nibbles stay" bytes "elements  4 of 4 bits" \
  -- --bits 4 'shape=[4] strides=[3] offset=1' 'shape=[4] strides=[-1] offset=3'
copy_ok "128-bit transposed read" "" "elements  6 of 128 bits" -- --bits 128 'shape=[2,3]' 'shape=[2,3] strides=[1,4]'
copy_ok "an empty copy" empty "elements  0 of 32 bits" -- 'shape=[0,3]' 'shape=[0,3]'
copy_ok "on device 0" transpose "OK" -- --device 0 'shape=[3,2]' 'shape=[3,2] strides=[1,3]'
if [[ "$("$ndx" show '{"shape":[1]}' 2>&1)" != *"without DLPack"* ]]; then
  copy_ok "JSON layouts with a float16 dtype" "" "elements  6 of 16 bits" \
    -- '{"shape":[2,3]}' '{"shape":[2,3],"strides":[1,2],"dtype":{"code":"float","bits":16}}'
fi
contains "copy to a destination that is not distinct is refused" 1 "copy: no result (NDX_EINVAL)" \
  -- copy 'shape=[3,4] strides=[0,1]' 'shape=[3,4]'
contains "copy between two shapes is refused" 1 "copy: no result (NDX_EINVAL)" -- copy "$C" "$T"
contains "copy --device past the last device" 1 "copy: no device: no device 99" -- copy --device 99 "$C" "$C"
malformed "copy without SRC" "copy: missing SRC" -- copy "$C"
malformed "copy without layouts" "copy: missing DST and SRC" -- copy
malformed "copy with three layouts" "extra argument" -- copy "$C" "$C" "$C"
malformed "copy --device x" "copy: --device: 'x' is not an integer" -- copy --device x "$C" "$C"
malformed "copy --bits 3" "not an element width" -- copy --bits 3 "$C" "$C"
malformed "copy with an unknown option" "unknown option '--fast'" -- copy --fast "$C" "$C"
malformed "copy with a bad DST" "copy: DST" -- copy 'shape=[' "$C"
convert_ok "f32 transposed into bf16" transpose "elements  24, f32 to bf16" \
  -- --from f32 --to bf16 'shape=[4,6]' 'shape=[4,6] strides=[1,4]'
convert_ok "bf16 flipped into f32" gather "elements  24, bf16 to f32" \
  -- --from bf16 --to f32 'shape=[4,6]' 'shape=[4,6] strides=[6,-1] offset=5'
convert_ok "f32 into every other f4e2m1fn nibble" bytes \
  "checked   5 bytes of dst's buffer: 5 hold elements, 0 must stay as they were" \
  -- --from f32 --to f4e2m1fn 'shape=[5] strides=[2] offset=1' 'shape=[5]'
NDX_CL_SHAPE=gpu convert_ok "i8 into f32, gpu shape" rows "shape     gpu" \
  -- --from i8 --to f32 'shape=[3,40]' 'shape=[3,40] strides=[41,1]'
contains "convert between two shapes is refused, naming ndx_cl_convert" 1 "ndx_cl_convert: src_l" \
  -- convert --from f32 --to f16 "$C" "$T"
malformed "convert without --to" "convert: --to: no type" -- convert --from f32 "$C" "$C"
malformed "convert to an unknown type" "f24" -- convert --from f32 --to f24 "$C" "$C"
# gather NAME LAST_LINE EXIT -- ARGS: the exit code and the last line.
index_run() {
  local name=$1 last=$2 code=$3
  shift 4
  run "$@"
  if [ "$rc" -ne "$code" ]; then
    report "$1: $name" 1 "wanted exit $code"
  elif [ "$(tail -n 1 <<<"$out")" != "$last" ]; then
    report "$1: $name" 1 "wanted $last last"
  else
    report "$1: $name" 0 ""
  fi
}
index_run "rows of a table by a broadcast index" OK 0 -- gather --axis 0 \
  'shape=[4,3]' 'shape=[10,3]' 'shape=[4,3] strides=[1,0]'
index_run "take_along_axis, 64-bit indices, wrapped" OK 0 -- gather --axis 1 --index-bits 64 --wrap \
  'shape=[5,7]' 'shape=[5,9] strides=[1,5]' 'shape=[5,7]'
index_run "4-bit rows" OK 0 -- gather --bits 4 --axis 0 'shape=[6,5]' 'shape=[9,5]' 'shape=[6,5] strides=[1,0]'
index_run "an index past the table writes nothing" "REFUSED: nothing written" 1 -- gather --axis 0 \
  --values 1,2,10 'shape=[3,3]' 'shape=[10,3]' 'shape=[3,3] strides=[1,0]'
index_run "INT64_MIN writes nothing" "REFUSED: nothing written" 1 -- gather --axis 0 --index-bits 64 \
  --values -9223372036854775808 'shape=[3,3]' 'shape=[10,3]' 'shape=[3,3] strides=[1,0]'
index_run "duplicate slots: the last wins" OK 0 -- scatter --axis 0 --values 5,1,5 \
  'shape=[8,2]' 'shape=[3,2]' 'shape=[3,2] strides=[1,0]'
index_run "unique 1-bit slots" OK 0 -- scatter --bits 1 --unique --axis 0 --values 7,0,3 \
  'shape=[8,9]' 'shape=[3,9]' 'shape=[3,9] strides=[1,0]'
contains "gather with mismatched shapes is refused" 1 "gather: no result (NDX_EINVAL)" \
  -- gather --axis 0 'shape=[4,3]' 'shape=[10,2]' 'shape=[4,3]'
malformed "gather without --axis" "gather: missing --axis" -- gather "$C" "$C" "$C"
malformed "scatter without INDEX" "scatter: missing INDEX" -- scatter --axis 0 "$C" "$C"
malformed "gather --unique is a scatter's" "unknown option '--unique'" -- gather --unique --axis 0 "$C" "$C" "$C"
malformed "gather --index-bits 48" "--index-bits is 48" -- gather --index-bits 48 --axis 0 "$C" "$C" "$C"
fi

# ---- bench ---------------------------------------------------------------------------
contains "bench runs ndx-bench (--host --quick --reps 1)" 0 "allocations during the timed layout calls" \
  -- bench --host --quick --reps 1
run bench --bogus
[ "$rc" -eq 2 ] && [[ "$err" == *"ndx-bench: unknown argument '--bogus'"* ]]
report "bench passes its arguments and exit status on" $? "wanted ndx-bench's exit 2"
NDX_BENCH=/nonexistent/ndx-bench run bench --host
[ "$rc" -eq 1 ] && [[ "$err" == *"cannot run \$NDX_BENCH '/nonexistent/ndx-bench'"* ]]
report "bench: a missing ndx-bench is a clear error, exit 1" $? "wanted exit 1 and the message"

# ---- never crash -------------------------------------------------------------------
odd=('' ' ' '[' ']' ',' ':' '-' '+' '--' '0' '-1' '1:' ':1' '[]' '[,]' '1:2:3:4:5'
  '9223372036854775807' '-9223372036854775808' '9223372036854775808' 'shape=' 'shape=[]'
  'shape=[' 'shape=[1,2] strides=[1]' 'shape=[2] strides=[9223372036854775807]'
  'shape=[9007199254740993]' 'shape=[2] offset=-1' "$(printf 'x%.0s' {1..5000})"
  '=' '=[1]' 'start=' 'start=[' 'start=[]' 'count=[1' 'axis=[0] size=[' 'step=[1,,]' 'start=[1]]'
  "start=[$(printf '1,%.0s' {1..40})1] count=[$(printf '9%.0s' {1..70})]")
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
