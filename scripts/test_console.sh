#!/bin/bash
# test_console.sh: the console's terminal signals, checked on a real boot.
# Types ^C at a program run by init and expects it to die of SIGINT while
# init lives on and reports 130.  Prints KTAP.  Needs build/ to be built
# (./switchyard build).
set -u
cd "$(dirname "$0")/.."

kernel=build/switchyard.elf
initrd=build/initrd.cpio
echo "KTAP version 1"
echo "1..1"
if [[ ! -f $kernel || ! -f $initrd ]]; then
	echo "not ok 1 ctrl_c_kills_foreground_program # build/ is not built"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The byte arrives once the program sleeps; QEMU's serial port takes it.
{ sleep 6; printf '\003'; sleep 20; } | timeout 60 qemu-system-x86_64 -M microvm \
	-accel tcg -cpu max -m 512M -smp 2 -display none -serial stdio -monitor none \
	-no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$kernel" \
	-initrd "$initrd" -append "-- --run /bin/busybox sleep 40" > "$log" 2>&1
if grep -q "killed by signal 2" "$log" && grep -q "init exited with status 130" "$log"; then
	echo "ok 1 ctrl_c_kills_foreground_program"
else
	echo "not ok 1 ctrl_c_kills_foreground_program # $(tail -n 1 "$log" | tr -d '\r')"
	exit 1
fi
