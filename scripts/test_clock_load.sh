#!/bin/bash
# test_clock_load.sh: the guest clock under host load.  Starts busy loops on
# the host beside QEMU (3 per host CPU), boots Switchyard several times
# (calibration happens at every boot) running /tools/sleepmark, which marks
# the start and end of a 2 s nanosleep on the console, timestamps the
# markers on the host as they arrive, and checks that the sleep took
# 2 s +- 5 % of host time.  One more boot starts with a clock 25 % slow
# (clock_skew=250000): the kernel's RTC check must correct it within the
# first seconds, so that the third 2 s sleep is right again.  Prints
# KTAP, one result per boot, with the kernel's "clock:" lines as
# diagnostics.  Needs build/ to be built (./switchyard build).
#
# usage: scripts/test_clock_load.sh [BOOTS]    (default 6, plus the skewed one)
# Environment: CLOCK_LOAD_PER_CPU (busy loops per host CPU, default 3; 0 for
# no load), CLOCK_LOAD_CONFIGS (the boots' "MACHINE:CPUS" list, used in turn;
# default "microvm:2 q35:2 microvm:1 q35:4").
set -u
cd "$(dirname "$0")/.."

boots=${1:-6}
per_cpu=${CLOCK_LOAD_PER_CPU:-3}
configs=(${CLOCK_LOAD_CONFIGS:-microvm:2 q35:2 microvm:1 q35:4})
kernel=build/switchyard.elf
initrd=build/initrd.cpio

echo "KTAP version 1"
echo "1..$((boots + 1))"
if [[ ! -f $kernel || ! -f $initrd ]]; then
	for ((i = 1; i <= boots + 1; i++)); do
		echo "not ok $i sleep_2s_under_load # build/ is not built"
	done
	exit 1
fi

loaders=()
stop_load() {
	local pid
	for pid in "${loaders[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${loaders[@]}"; do
		wait "$pid" 2>/dev/null
	done
	loaders=()
}
trap stop_load EXIT

nloaders=$(($(nproc) * per_cpu))
for ((i = 0; i < nloaders; i++)); do
	( while :; do :; done ) &
	loaders+=($!)
done
echo "# host load: $nloaders busy loops on $(nproc) CPUs"

# One boot: QEMU's console is read line by line and each marker is stamped
# with the host's monotonic clock when it arrives.  Prints "RESULT host_s
# guest_ms" for the last sleep, or "ERROR why", then the kernel's clock
# lines and every sleep's figures.  The markers' arrival is the
# measurement: the reader must not wait behind the busy loops.
measure='
import os, subprocess, sys, time, threading
cmd = sys.argv[1:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
# The load is for QEMU, not for the stopwatch: this reader (not QEMU, which
# is already started) runs at a high priority where that is allowed.
try:
    os.setpriority(os.PRIO_PROCESS, 0, -19)
except OSError:
    pass
timer = threading.Timer(120, p.kill)
timer.start()
start = None
rounds = []
notes = []
tail = []
for raw in p.stdout:
    now = time.monotonic()
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    tail = (tail + [line])[-5:]
    if line.startswith("SLEEPMARK start"):
        start = now
    elif line.startswith("SLEEPMARK end") and start is not None:
        rounds.append((now - start, line.split("guest_ms=")[-1]))
        start = None
    elif line.startswith("clock:") or line.startswith("cpu:") or "KERNEL PANIC" in line:
        notes.append(line)
p.wait()
timer.cancel()
if not rounds:
    print("ERROR no markers (last line: %s)" % (tail[-1] if tail else "none"))
else:
    print("RESULT %.3f %s" % rounds[-1])
for n in notes:
    print(n)
for i, r in enumerate(rounds):
    print("sleep %d: host %.3f s, guest %s ms" % ((i + 1,) + r))
'

# check N NAME MACHINE CPUS APPEND: one boot, one KTAP result.
failures=0
check() {
	local i=$1 name=$2 machine=$3 cpus=$4 append=$5 out first host guest
	out=$(python3 -c "$measure" qemu-system-x86_64 -M "$machine" -accel tcg -cpu max \
		-m 512M -smp "$cpus" -display none -serial stdio -monitor none -nic none \
		-no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$kernel" \
		-initrd "$initrd" -append "$append")
	first=$(head -n 1 <<<"$out")
	name="$name $machine smp=$cpus"
	if [[ $first != RESULT* ]]; then
		echo "not ok $i $name # ${first#ERROR }"
		failures=$((failures + 1))
	elif [[ $append == *clock_skew* ]] && ! grep -q "RTC check.*corrected from" <<<"$out"; then
		echo "not ok $i $name # the RTC check did not correct the skewed clock"
		failures=$((failures + 1))
	else
		read -r _ host guest <<<"$first"
		# 2 s +- 5 %: 1.900 to 2.100 s of host time.
		if awk -v h="$host" 'BEGIN { exit !(h >= 1.9 && h <= 2.1) }'; then
			echo "ok $i $name # host ${host} s, guest ${guest} ms"
		else
			echo "not ok $i $name # host ${host} s (want 2 s +- 5 %), guest ${guest} ms"
			failures=$((failures + 1))
		fi
	fi
	tail -n +2 <<<"$out" | sed 's/^/# /'
}

for ((i = 1; i <= boots; i++)); do
	config=${configs[$(((i - 1) % ${#configs[@]}))]}
	check "$i" "sleep_2s_under_load boot $i" "${config%%:*}" "${config#*:}" \
		"test=none -- --run /tools/sleepmark 2"
done
# The third sleep starts about 4 s after init: the RTC check has had time.
check $((boots + 1)) "rtc_check_corrects_skewed_clock" microvm 2 \
	"clock_skew=250000 test=none -- --run /tools/sleepmark 2 3"
stop_load
[[ $failures -eq 0 ]]
