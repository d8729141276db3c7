#!/usr/bin/python3
"""Draws the chart of `ndx-bench --cl`: per case, the ratio to the in-run
ceiling (a vectorized copy kernel over the same bytes) of ndx and of each peer
measured for it, with the case's target marked.

Usage: /usr/bin/python3 bench/chart.py bench-cl.csv bench-cl.png

Needs matplotlib (Debian: python3-matplotlib, installed by ci/setup); call
Debian's /usr/bin/python3, not another python3 found on PATH."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [  # CSV column, legend, colour
    ("ndx_ratio", "ndx", "#1f77b4"),
    ("naive_ratio", "naive (1 element/work-item)", "#bbbbbb"),
    ("rect_ratio", "clEnqueueCopyBufferRect", "#2ca02c"),
    ("clblast_ratio", "CLBlast Somatcopy", "#d62728"),
]
# clEnqueueCopyBuffer over the same bytes: a marker, not a peer of the copy
COPYBUF = ("copybuf_ratio", "clEnqueueCopyBuffer, same bytes", "#ff7f0e")


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("chart.py: no rows in " + sys.argv[1])
    rows.reverse()  # first case at the top

    # only the series some case has
    series = [s for s in SERIES if any(number(r.get(s[0], "")) is not None for r in rows)]
    n = len(rows)
    slot = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(11, 0.42 * n + 1.6))
    for k, (col, label, colour) in enumerate(series):
        ys, xs = [], []
        for i, r in enumerate(rows):
            v = number(r.get(col, ""))
            if v is not None:
                ys.append(i + 0.4 - slot * (k + 0.5))
                xs.append(v)
        ax.barh(ys, xs, height=slot, color=colour, label=label)
    cb = [(number(r.get(COPYBUF[0], "")), i) for i, r in enumerate(rows)]
    cb = [(x, i) for x, i in cb if x is not None]
    if cb:
        ax.scatter([x for x, _ in cb], [i for _, i in cb], marker="d", s=14, color=COPYBUF[2],
                   label=COPYBUF[1], zorder=3)
    for i, r in enumerate(rows):
        t = number(r.get("target_ratio", ""))
        if t:
            ax.plot([t, t], [i - 0.45, i + 0.45], color="black", linewidth=1.2)
    ax.plot([], [], color="black", linewidth=1.2, label="target")
    ax.set_yticks(range(n))
    ax.set_yticklabels(
        [f'{r["case"]}  [{r["path"]}]' for r in rows], fontsize=7)
    for label, r in zip(ax.get_yticklabels(), rows):
        if r.get("met") == "no":  # target missed: the label in red
            label.set_color("#c00000")
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlabel("ratio to the in-run ceiling (vectorized copy kernel, same bytes read + written)")
    ax.axvline(1.0, color="#888888", linestyle=":", linewidth=0.8)
    ax.set_title("ndx-bench --cl: ndx_cl_copy and peers against the device's copy bandwidth\n"
                 "(black tick: the case's target; label in red: target missed)", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.45 / n - 0.03), ncol=3, fontsize=7)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
