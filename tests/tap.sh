# tap.sh: the TAP helpers of the test scripts that source it
# (test_install.sh, test_recipe.sh, test_examples_readme.sh). They count in
# $n and $failed; check and run write a command's output to $tmp/log, so the
# script sets $tmp first.
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # NAME [LOG]: the log's last 40 lines as comments
  n=$((n + 1))
  failed=$((failed + 1))
  echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/# /' "$2" | tail -n 40
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # NAME COMMAND...: one test, the command's output in $tmp/log
  local name=$1
  shift
  if "$@" >"$tmp/log" 2>&1; then ok "$name"; else not_ok "$name" "$tmp/log"; fi
}
run() { # NAME COMMAND...: as check, for a program that needs an OpenCL device: exit 77 says there is none (a skip)
  local name=$1 rc
  shift
  "$@" >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then ok "$name"; elif [ $rc -eq 77 ]; then skip "$name" "no OpenCL device";
  else not_ok "$name (exit $rc)" "$tmp/log"; fi
}
