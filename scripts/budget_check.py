#!/usr/bin/env python3
"""budget_check: compare a profile with the instruction budgets.

    budget_check.py BUDGETS.tsv REFERENCE.tsv PROFILE.tsv [--slack PCT]

BUDGETS.tsv (tests/budgets/ARCH.tsv) holds one line per operation:
"OP<TAB>BUDGET<TAB>what it covers", BUDGET in instructions per operation
under ./switchyard profile.  PROFILE.tsv is what that command just wrote
(scripts/insnprof_report.py --tsv: per operation and function, the
instructions per operation), REFERENCE.tsv the same for the tree the
budgets were set on (tests/budgets/ARCH.profile.tsv).

Prints KTAP, one result per operation: ok when the measured figure is at
most the budget plus the slack (default 3 %).  A failure names the
functions that grew most against the reference, and those that are new,
so that whoever made the path longer sees where.  Exits 1 on a failure.
"""

import argparse
import sys


def read_budgets(path):
    budgets = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) < 2:
                sys.exit("budget_check: %s: bad line %r" % (path, line))
            budgets.append((parts[0], float(parts[1]), parts[2] if len(parts) > 2 else ""))
    return budgets


def read_profile(path):
    """{op: {function: per_op}} from an insnprof_report --tsv file."""
    prof = {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < len(header):
                continue
            op, fn = parts[col["op"]], parts[col["function"]]
            prof.setdefault(op, {})[fn] = float(parts[col["per_op"]])
    return prof


def growth(now, ref, top=6):
    """Lines naming the functions whose share of the operation grew most."""
    rows = []
    for fn, v in now.items():
        if fn in ("TOTAL", "KERNEL", "USER"):
            continue
        d = v - ref.get(fn, 0.0)
        if d > 0.5:
            rows.append((d, fn, v, fn not in ref))
    rows.sort(reverse=True)
    out = []
    for d, fn, v, new in rows[:top]:
        if new:
            out.append("%s: %.1f per op, new" % (fn, v))
        else:
            out.append("%s: %.1f -> %.1f per op (+%.1f)" % (fn, v - d, v, d))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("budgets")
    ap.add_argument("reference")
    ap.add_argument("profile")
    ap.add_argument("--slack", type=float, default=3.0)
    a = ap.parse_args()

    budgets = read_budgets(a.budgets)
    ref = read_profile(a.reference)
    now = read_profile(a.profile)
    failed = 0
    print("KTAP version 1")
    print("1..%d" % len(budgets))
    for i, (op, budget, _what) in enumerate(budgets, 1):
        limit = budget * (1 + a.slack / 100.0)
        if op not in now or "TOTAL" not in now[op]:
            failed += 1
            print("not ok %d budget_%s # no figure in %s" % (i, op, a.profile))
            continue
        total = now[op]["TOTAL"]
        was = ref.get(op, {}).get("TOTAL")
        since = " (reference %.1f)" % was if was is not None else ""
        if total <= limit:
            print("ok %d budget_%s # %.1f instructions per op, budget %.0f%s"
                  % (i, op, total, budget, since))
            continue
        failed += 1
        print("not ok %d budget_%s # %.1f instructions per op, over the budget of %.0f "
              "by %.1f %% (slack %.0f %%)%s"
              % (i, op, total, budget, 100.0 * (total / budget - 1), a.slack, since))
        for line in growth(now[op], ref.get(op, {})):
            print("# %s grew: %s" % (op, line))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
