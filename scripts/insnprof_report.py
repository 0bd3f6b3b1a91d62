#!/usr/bin/env python3
"""insnprof_report: instructions per operation, by function.

    insnprof_report.py --counts FILE --console LOG --kernel NAME
                       --ksyms SYMFILE|console [--usyms ELF] [--nm NM] [--top K]
                       [--tsv OUT]

Reads what the insnprof plugin wrote (tools/insnprof/insnprof.c: per
window, "PC COUNT" lines), the RESULT hotpath lines of the same boot's
console (which window is which operation, and how many operations it
held), and a symbol table: an ELF (read with nm), a System.map, or
"console": the KSYM lines of hotpath -K in the same console (the guest's
/proc/kallsyms).  Prints,
for each operation, the instructions per operation, the kernel's share
and user space's, and the functions that executed them, most first.

With --tsv it also writes one row per (operation, function): kernel, op,
ops, function, instructions (total in the window), per_op; the rows with
function "TOTAL", "KERNEL" and "USER" carry the sums.  The budget check
(scripts/check-budgets) reads that file.
"""

import argparse
import bisect
import re
import subprocess
import sys

KERNEL_BASE = {"x86_64": 0xFFFF800000000000, "ppc64": 0xC000000000000000}


def read_console_symbols(path):
    """The KSYM lines hotpath -K printed (the guest's /proc/kallsyms)."""
    syms = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("KSYM "):
                parts = line.split()
                if len(parts) == 3:
                    syms.append((int(parts[1], 16), parts[2]))
    syms.sort()
    return syms


def read_symbols(path, nm="nm"):
    """Sorted (address, name) of the text symbols of an ELF or System.map."""
    syms = []
    try:
        with open(path, "rb") as f:
            is_elf = f.read(4) == b"\x7fELF"
    except OSError as e:
        sys.exit("insnprof_report: %s" % e)
    if is_elf:
        out = subprocess.run([nm, "-n", "--defined-only", path], capture_output=True,
                             text=True, check=True).stdout
        lines = out.splitlines()
    else:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    for line in lines:
        parts = line.split()
        if len(parts) < 3 or parts[1] not in "tTwW":
            continue
        try:
            syms.append((int(parts[0], 16), parts[2]))
        except ValueError:
            continue
    syms.sort()
    return syms


class Symbolizer:
    def __init__(self, syms):
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            return None
        return self.names[i]


def read_windows(path):
    """{window id: {pc: count}} and the target name."""
    windows, cur, target = {}, None, "x86_64"
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "target":
                target = parts[1]
            elif parts[0] == "window":
                cur = {}
                windows[int(parts[1])] = cur
            elif parts[0] == "end" or parts[0] == "slots":
                cur = None
            elif cur is not None:
                cur[int(parts[0], 16)] = int(parts[1])
    return windows, target


def read_results(path):
    """{window id: (op, ops)} from the console's RESULT hotpath lines."""
    res = {}
    pat = re.compile(r"RESULT hotpath op=(\S+) window=(\d+) ops=(\d+)")
    with open(path, errors="replace") as f:
        for line in f:
            m = pat.search(line)
            if m:
                res[int(m.group(2))] = (m.group(1), int(m.group(3)))
    return res


def attribute(counts, ksym, usym, kbase):
    """{function: instructions}, kernel total, user total."""
    by_fn, ktotal, utotal = {}, 0, 0
    for pc, n in counts.items():
        if pc >= kbase:
            ktotal += n
            name = ksym.name(pc) or "[kernel %#x]" % (pc & ~0xFFF)
        else:
            utotal += n
            name = "user:" + ((usym.name(pc) if usym else None) or "?")
        by_fn[name] = by_fn.get(name, 0) + n
    return by_fn, ktotal, utotal


def annotate(a, fn, counts, ops):
    """FUNCTION's disassembly (objdump of the --ksyms ELF), each line with
    how many times per op it ran."""
    try:
        out = subprocess.run([a.objdump, "-d", "--no-show-raw-insn", "--disassemble=" + fn,
                              a.ksyms], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("  (cannot disassemble %s: %s)" % (fn, e))
        return
    print("  %s, per op:" % fn)
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if not m:
            continue
        n = counts.get(int(m.group(1), 16), 0)
        print("  %8.2f  %s" % (n / ops, m.group(2)) if n else "  %8s  %s" % ("", m.group(2)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--ksyms", required=True)
    ap.add_argument("--usyms")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--tsv")
    ap.add_argument("--annotate", action="append", default=[],
                    help="FUNCTION: its instructions with counts per op (needs an ELF --ksyms)")
    ap.add_argument("--objdump", default="objdump")
    a = ap.parse_args()

    windows, target = read_windows(a.counts)
    results = read_results(a.console)
    kbase = KERNEL_BASE["ppc64" if target.startswith("ppc") else "x86_64"]
    if a.ksyms == "console":
        ksym = Symbolizer(read_console_symbols(a.console))
    else:
        ksym = Symbolizer(read_symbols(a.ksyms, a.nm))
    usym = Symbolizer(read_symbols(a.usyms, a.nm)) if a.usyms else None
    tsv = open(a.tsv, "w") if a.tsv else None
    if tsv:
        tsv.write("kernel\top\tops\tfunction\tinstructions\tper_op\n")
    if not windows:
        sys.exit("insnprof_report: no windows in %s (did the program run?)" % a.counts)
    for wid in sorted(windows):
        if wid not in results:
            print("insnprof_report: window %d has no RESULT line; skipped" % wid, file=sys.stderr)
            continue
        op, ops = results[wid]
        if ops <= 0:
            continue
        by_fn, ktotal, utotal = attribute(windows[wid], ksym, usym, kbase)
        total = ktotal + utotal
        print("%s %s: %.1f instructions per op (kernel %.1f, user %.1f; %d ops)"
              % (a.kernel, op, total / ops, ktotal / ops, utotal / ops, ops))
        print("  %10s %6s  %s" % ("per op", "share", "function"))
        ranked = sorted(by_fn.items(), key=lambda kv: (-kv[1], kv[0]))
        for name, n in ranked[:a.top]:
            print("  %10.1f %5.1f%%  %s" % (n / ops, 100.0 * n / total, name))
        rest = sum(n for _, n in ranked[a.top:])
        if rest:
            print("  %10.1f %5.1f%%  (%d more functions)"
                  % (rest / ops, 100.0 * rest / total, len(ranked) - a.top))
        for fn in a.annotate:
            annotate(a, fn, windows[wid], ops)
        print()
        print("PROFILE kernel=%s op=%s ops=%d insns_per_op=%.1f kernel_per_op=%.1f user_per_op=%.1f"
              % (a.kernel, op, ops, total / ops, ktotal / ops, utotal / ops))
        print()
        if tsv:
            for name, n in [("TOTAL", total), ("KERNEL", ktotal), ("USER", utotal)] + ranked:
                tsv.write("%s\t%s\t%d\t%s\t%d\t%.2f\n" % (a.kernel, op, ops, name, n, n / ops))
    if tsv:
        tsv.close()


if __name__ == "__main__":
    main()
