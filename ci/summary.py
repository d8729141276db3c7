#!/usr/bin/env python3
"""Counts Criterion's TAP results across meson test logs and prints the plain
closing line 'N passed, N failed, N skipped'. A suite that failed without
reporting a failing test (a crash, a timeout) counts as one failure more.
A test that prints no TAP (an example program) counts once, by its result.
A FILE.tap argument is a plain TAP file (ci/memcheck's memcheck.tap): its
'ok' and 'not ok' lines count too. A missing log or file counts as a failure.

Usage: summary.py BUILD_DIR|FILE.tap [...]; exits non-zero on any failure."""
import json
import pathlib
import re
import sys

TAP = re.compile(r"^(ok|not ok)\b[^#]*(#\s*(SKIP|skip)\b)?")


def count_lines(lines):
    p = f = s = 0
    for out in lines:
        m = TAP.match(out)
        if not m:
            continue
        if m.group(2):
            s += 1
        elif m.group(1) == "ok":
            p += 1
        else:
            f += 1
    return p, f, s


def count(log):
    passed = failed = skipped = 0
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        p, f, s = count_lines((entry.get("stdout") or "").splitlines())
        if p + f + s == 0:  # a plain program (an example): its exit status is its result
            p, s = int(entry.get("result") == "OK"), int(entry.get("result") == "SKIP")
        if entry.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL") and f == 0:
            print(f"summary: {entry.get('name')} ended {entry.get('result')}", file=sys.stderr)
            f += 1
        passed, failed, skipped = passed + p, failed + f, skipped + s
    return passed, failed, skipped


def main():
    total = [0, 0, 0]
    for arg in sys.argv[1:]:
        tap = arg.endswith(".tap")
        log = pathlib.Path(arg) if tap else pathlib.Path(arg) / "meson-logs" / "testlog.json"
        if not log.exists():
            print(f"summary: no {log}", file=sys.stderr)
            total[1] += 1
            continue
        counts = count_lines(log.read_text().splitlines()) if tap else count(log)
        for i, n in enumerate(counts):
            total[i] += n
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] or total[0] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
