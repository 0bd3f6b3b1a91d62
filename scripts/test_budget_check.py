#!/usr/bin/env python3
"""Self-test of scripts/budget_check.py: small budgets and profiles with
known verdicts.  Prints KTAP."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "budget_check.py")
HEADER = "kernel\top\tops\tfunction\tinstructions\tper_op\n"


def profile(rows):
    """rows: {op: {function: per_op}} as insnprof_report's TSV."""
    out = HEADER
    for op, fns in rows.items():
        for fn, v in fns.items():
            out += "switchyard\t%s\t1000\t%s\t%d\t%.2f\n" % (op, fn, v * 1000, v)
    return out


def run(budgets, ref, now, *extra):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, text in (("b.tsv", budgets), ("r.tsv", ref), ("n.tsv", now)):
            p = os.path.join(d, name)
            with open(p, "w") as f:
                f.write(text)
            paths.append(p)
        r = subprocess.run([sys.executable, CHECK] + paths + list(extra),
                           capture_output=True, text=True)
        return r.returncode, r.stdout


BUDGETS = "# comment\nnull\t100\tthe null call\nswitch\t1000\ta switch\n"
REF = profile({"null": {"TOTAL": 98, "entry": 60, "getppid": 38},
               "switch": {"TOTAL": 990, "schedule": 500, "entry": 490}})

cases = []


def case(name, ok):
    cases.append((name, ok))


# Within budget: two oks, exit 0.
rc, out = run(BUDGETS, REF, REF)
case("within_budget_passes", rc == 0 and out.count("\nok ") == 2 and "not ok" not in out)

# 2 % over the budget is inside the 3 % slack.
rc, out = run(BUDGETS, REF, profile({"null": {"TOTAL": 102, "entry": 64, "getppid": 38},
                                     "switch": {"TOTAL": 990}}))
case("slack_of_three_percent", rc == 0 and "ok 1 budget_null" in out)

# 5 % over fails, and names what grew and what is new.
now = profile({"null": {"TOTAL": 98},
               "switch": {"TOTAL": 1050, "schedule": 520, "entry": 490, "rseq_work": 40}})
rc, out = run(BUDGETS, REF, now)
case("over_budget_fails", rc == 1 and "not ok 2 budget_switch" in out and "ok 1 budget_null" in out)
case("failure_names_growth", "schedule: 500.0 -> 520.0 per op (+20.0)" in out)
case("failure_names_new_function", "rseq_work: 40.0 per op, new" in out)
# The new function grew most: it comes first.
case("growth_ordered", out.find("rseq_work") < out.find("schedule: 500.0"))

# An operation the profile lacks is a failure, not a pass.
rc, out = run(BUDGETS, REF, profile({"null": {"TOTAL": 98}}))
case("missing_operation_fails", rc == 1 and "not ok 2 budget_switch # no figure" in out)

# --slack 0: 1 % over fails.
rc, out = run(BUDGETS, REF, profile({"null": {"TOTAL": 101}, "switch": {"TOTAL": 900}}),
              "--slack", "0")
case("slack_option", rc == 1 and "not ok 1 budget_null" in out)

print("KTAP version 1")
print("1..%d" % len(cases))
failed = 0
for i, (name, ok) in enumerate(cases, 1):
    print("%s %d %s" % ("ok" if ok else "not ok", i, name))
    failed += not ok
sys.exit(1 if failed else 0)
