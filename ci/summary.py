#!/usr/bin/env python3
"""Counts Criterion's TAP results across meson test logs and prints the plain
closing line 'N passed, N failed, N skipped'. A suite that failed without
reporting a failing test (a crash, a timeout) counts as one failure more.

Usage: summary.py BUILD_DIR [BUILD_DIR ...]; exits non-zero on any failure."""
import json
import pathlib
import re
import sys

TAP = re.compile(r"^(ok|not ok)\b[^#]*(#\s*(SKIP|skip)\b)?")


def count(log):
    passed = failed = skipped = 0
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        p = f = s = 0
        for out in (entry.get("stdout") or "").splitlines():
            m = TAP.match(out)
            if not m:
                continue
            if m.group(2):
                s += 1
            elif m.group(1) == "ok":
                p += 1
            else:
                f += 1
        if entry.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL") and f == 0:
            print(f"summary: {entry.get('name')} ended {entry.get('result')}", file=sys.stderr)
            f += 1
        passed, failed, skipped = passed + p, failed + f, skipped + s
    return passed, failed, skipped


def main():
    total = [0, 0, 0]
    for build in sys.argv[1:]:
        log = pathlib.Path(build) / "meson-logs" / "testlog.json"
        if not log.exists():
            print(f"summary: no {log}", file=sys.stderr)
            total[1] += 1
            continue
        for i, n in enumerate(count(log)):
            total[i] += n
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] or total[0] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
