#!/usr/bin/env python3
"""Lowers the budgets of tests/budgets/ARCH.tsv to what a profile measured.

usage: scripts/budget_ratchet.py BUDGETS.tsv PROFILE.tsv

After a change that made a hot path cheaper, `./switchyard profile
--budgets --set-reference` writes the new reference profile; this sets
each operation's budget to its measured instructions per op rounded up to
a multiple of 5, so the next change that adds work is noticed.  Budgets
only go down: one that the profile exceeds is left for a person to raise,
saying why.  Prints each change.
"""
import math
import sys


def measured(profile_path):
    per_op = {}
    with open(profile_path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if len(cols) >= 6 and cols[3] == 'TOTAL':
                per_op[cols[1]] = float(cols[5])
    return per_op


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    budgets_path, profile_path = argv
    per_op = measured(profile_path)
    out = []
    with open(budgets_path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if line.startswith('#') or len(cols) < 2 or cols[0] not in per_op:
                out.append(line)
                continue
            old = int(cols[1])
            new = int(math.ceil(per_op[cols[0]] / 5.0) * 5)
            if new < old:
                print('%s: %d -> %d (measured %.1f)' % (cols[0], old, new, per_op[cols[0]]))
                cols[1] = str(new)
            out.append('\t'.join(cols) + '\n')
    with open(budgets_path, 'w') as f:
        f.writelines(out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
