#!/bin/bash
# test_clock_load.sh: the guest clock under host load.  Starts busy loops on
# the host beside QEMU (3 per host CPU), boots Switchyard several times
# (calibration happens at every boot) running /tools/sleepmark, which marks
# the start and end of a 2 s nanosleep on the console, timestamps the
# markers on the host as they arrive, and checks that the sleep took
# 2 s +- 5 % of host time.  Prints KTAP, one result per boot, with the
# kernel's "clock:" lines as diagnostics.  Needs build/ to be built
# (./switchyard build).
#
# usage: scripts/test_clock_load.sh [BOOTS]    (default 6)
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
echo "1..$boots"
if [[ ! -f $kernel || ! -f $initrd ]]; then
	for ((i = 1; i <= boots; i++)); do
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
# with the host's monotonic clock when it arrives.  Prints
# "RESULT host_s guest_ms" or "ERROR why", then the kernel's clock lines.
measure='
import subprocess, sys, time, threading
cmd = sys.argv[1:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
timer = threading.Timer(90, p.kill)
timer.start()
start = end = None
guest = "?"
clock = []
tail = []
for raw in p.stdout:
    now = time.monotonic()
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    tail = (tail + [line])[-5:]
    if line.startswith("SLEEPMARK start"):
        start = now
    elif line.startswith("SLEEPMARK end"):
        end = now
        guest = line.split("guest_ms=")[-1]
    elif line.startswith("clock:") or line.startswith("cpu:"):
        clock.append(line)
    elif "KERNEL PANIC" in line:
        clock.append(line)
p.wait()
timer.cancel()
if start is None or end is None:
    print("ERROR no markers (last line: %s)" % (tail[-1] if tail else "none"))
else:
    print("RESULT %.3f %s" % (end - start, guest))
for c in clock:
    print(c)
'

failures=0
for ((i = 1; i <= boots; i++)); do
	config=${configs[$(((i - 1) % ${#configs[@]}))]}
	machine=${config%%:*}
	cpus=${config#*:}
	out=$(python3 -c "$measure" qemu-system-x86_64 -M "$machine" -accel tcg -cpu max \
		-m 512M -smp "$cpus" -display none -serial stdio -monitor none -nic none \
		-no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$kernel" \
		-initrd "$initrd" -append "test=none -- --run /tools/sleepmark 2")
	first=$(head -n 1 <<<"$out")
	name="sleep_2s_under_load boot $i $machine smp=$cpus"
	if [[ $first == RESULT* ]]; then
		read -r _ host guest <<<"$first"
		# 2 s +- 5 %: 1.900 to 2.100 s of host time.
		if awk -v h="$host" 'BEGIN { exit !(h >= 1.9 && h <= 2.1) }'; then
			echo "ok $i $name # host ${host} s, guest ${guest} ms"
		else
			echo "not ok $i $name # host ${host} s (want 2 s +- 5 %), guest ${guest} ms"
			failures=$((failures + 1))
		fi
	else
		echo "not ok $i $name # ${first#ERROR }"
		failures=$((failures + 1))
	fi
	tail -n +2 <<<"$out" | sed 's/^/# /'
done
stop_load
[[ $failures -eq 0 ]]
