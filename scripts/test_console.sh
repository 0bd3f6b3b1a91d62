#!/bin/bash
# test_console.sh: the console's terminal signals, checked on a real boot.
# Types ^C at a program run by init and expects it to die of SIGINT while
# init lives on and reports 130; then types ^Z at a job of an interactive
# busybox sh and expects the shell to report it stopped, list it with
# `jobs` and end it.  Prints KTAP.  Needs build/ to be built
# (./switchyard build).
set -u
cd "$(dirname "$0")/.."

kernel=build/switchyard.elf
initrd=build/initrd.cpio
echo "KTAP version 1"
echo "1..2"
if [[ ! -f $kernel || ! -f $initrd ]]; then
	echo "not ok 1 ctrl_c_kills_foreground_program # build/ is not built"
	echo "not ok 2 ctrl_z_stops_shell_job # build/ is not built"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The byte arrives once the program sleeps; QEMU's serial port takes it.
{ sleep 6; printf '\003'; sleep 20; } | timeout 60 qemu-system-x86_64 -M microvm \
	-accel tcg -cpu max -m 512M -smp 2 -display none -serial stdio -monitor none \
	-no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$kernel" \
	-initrd "$initrd" -append "-- --run /bin/busybox sleep 40" > "$log" 2>&1
status=0
if grep -q "killed by signal 2" "$log" && grep -q "init exited with status 130" "$log"; then
	echo "ok 1 ctrl_c_kills_foreground_program"
else
	echo "not ok 1 ctrl_c_kills_foreground_program # $(tail -n 1 "$log" | tr -d '\r')"
	status=1
fi
# The shell has the console as its controlling terminal (init --run gives
# it one); ^Z stops the foreground job, which `jobs` lists and `kill` ends.
# Typing starts once the prompt is there (the shell flushes earlier input);
# a second exit in case the shell had not yet seen the job end.
{ for _ in $(seq 60); do grep -q '~ #' "$log" && break; sleep 1; done
  sleep 2; printf 'sleep 30\n'; sleep 4; printf '\032'; sleep 3; printf 'jobs\n'; sleep 2
  printf 'kill %%1\n'; sleep 2; printf 'exit 7\n'; sleep 2
  printf 'exit 7\n'; sleep 20; } | timeout 120 qemu-system-x86_64 \
	-M microvm -accel tcg -cpu max -m 512M -smp 2 -display none -serial stdio -monitor none \
	-no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$kernel" \
	-initrd "$initrd" -append "-- --run /bin/busybox sh -i" > "$log" 2>&1
if [[ $(grep -c "Stopped *sleep 30" "$log") -ge 2 ]] && grep -q "Terminated *sleep 30" "$log" &&
   grep -q "init exited with status 7" "$log"; then
	echo "ok 2 ctrl_z_stops_shell_job"
else
	echo "not ok 2 ctrl_z_stops_shell_job # $(tail -n 1 "$log" | tr -d '\r')"
	status=1
fi
exit $status
