#!/bin/bash
# Self-test of the ./switchyard runner, with a stand-in kernel instead of
# Switchyard: a tiny PVH kernel that prints a script taken from its initrd
# to COM1, choosing lines by the kernel command line, so every way a boot
# can end (clean, panic, timeout, early exit) can be staged under QEMU.
# Prints KTAP.  Needs gcc able to build 32-bit freestanding code (-m32).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stand-in kernel.  Script lines: "@if WORD" (what follows is used only
# when WORD is in the command line), "@end", "@cmdline" (print it),
# "@exit N" (exit QEMU through isa-debug-exit), "@hang"; others are printed.
cat >"$tmp/fake.c" <<'EOF'
#include <stdint.h>

__asm__(".section .note.pvh, \"a\"\n"
	".balign 4\n"
	".long 4, 4, 18\n"
	".asciz \"Xen\"\n"
	".balign 4\n"
	".long fake_entry\n"
	".text\n"
	".globl fake_entry\n"
	"fake_entry:\n"
	"	mov $stack_top, %esp\n"
	"	push %ebx\n"
	"	call fake_main\n"
	"1:	cli\n"
	"	hlt\n"
	"	jmp 1b\n"
	".bss\n"
	".balign 16\n"
	".skip 16384\n"
	"stack_top:\n");

struct start_info {
	uint32_t magic, version, flags, nr_modules;
	uint64_t modlist_paddr, cmdline_paddr;
};

struct module {
	uint64_t paddr, size;
};

void fake_main(struct start_info *si);

static void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static void put(const char *s, uint32_t n)
{
	for (uint32_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '\n')
			outb(0x3f8, '\r');
		outb(0x3f8, s[i]);
	}
}

static int has_prefix(const char *s, uint32_t n, const char *p)
{
	uint32_t i;

	for (i = 0; p[i]; i++)
		if (i >= n || s[i] != p[i])
			return 0;
	return 1;
}

static int contains(const char *hay, const char *needle, uint32_t n)
{
	for (; *hay; hay++) {
		uint32_t i = 0;
		while (i < n && hay[i] == needle[i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

void fake_main(struct start_info *si)
{
	const char *cmdline = (const char *)(uintptr_t)si->cmdline_paddr;
	struct module *m = (struct module *)(uintptr_t)si->modlist_paddr;
	const char *text, *end, *nl;
	int active = 1;
	uint32_t n;

	if (si->nr_modules < 1) {
		put("fake: no initrd\n", 99);
		return;
	}
	text = (const char *)(uintptr_t)m->paddr;
	end = text + (uint32_t)m->size;
	for (; text < end; text = nl + 1) {
		for (nl = text; nl < end && *nl != '\n'; nl++)
			;
		n = nl - text;
		if (has_prefix(text, n, "@if "))
			active = contains(cmdline, text + 4, n - 4);
		else if (has_prefix(text, n, "@end"))
			active = 1;
		else if (!active)
			continue;
		else if (has_prefix(text, n, "@cmdline")) {
			put("fake: cmdline: ", 99);
			put(cmdline, 4096);
			put("\n", 1);
		} else if (has_prefix(text, n, "@exit "))
			outl(0xf4, text[6] - '0');
		else if (has_prefix(text, n, "@hang"))
			return;
		else {
			put(text, n);
			put("\n", 1);
		}
	}
}
EOF
cat >"$tmp/fake.ld" <<'EOF'
ENTRY(fake_entry)
SECTIONS {
	. = 0x100000;
	.text : { *(.text*) *(.rodata*) *(.data*) }
	.note.pvh : { *(.note.pvh) }
	.bss : { *(.bss*) *(COMMON) }
	/DISCARD/ : { *(.note.gnu*) *(.comment) *(.eh_frame*) }
}
EOF

echo "KTAP version 1"
if ! gcc -m32 -ffreestanding -fno-pic -fno-stack-protector -O2 -Wall -Werror \
	-c "$tmp/fake.c" -o "$tmp/fake.o" 2>"$tmp/cc.log" ||
   ! ld -m elf_i386 --no-warn-rwx-segments -T "$tmp/fake.ld" -o "$tmp/fake.elf" "$tmp/fake.o" 2>>"$tmp/cc.log"; then
	echo "1..0 # SKIP cannot build the 32-bit stand-in kernel"
	sed 's/^/# /' "$tmp/cc.log"
	exit 0
fi
echo "1..35"

count=0
failures=0
result() {
	count=$((count + 1))
	if [[ $1 -eq 0 ]]; then
		echo "ok $count $2"
	else
		failures=$((failures + 1))
		echo "not ok $count $2"
		sed 's/^/# /' "$tmp/out"
	fi
}

# A source tree with two expected-panic tests (and a comment that names
# the macro without declaring a test).
mkdir -p "$tmp/src"
cat >"$tmp/src/t.c" <<'EOF'
// KTEST_PANIC(suite, name) is how tests declare themselves.
KTEST_PANIC(fake, good)
{
}
	KTEST_PANIC(fake, wrong)
EOF

# The runs below must not overwrite the logs of real runs.
export SWITCHYARD_LOGS=$tmp/logs

# sy SCRIPT ARGS...: ./switchyard with the stand-in kernel running SCRIPT.
sy() {
	local script=$1
	shift
	printf '%s\n' "$script" >"$tmp/script.txt"
	SWITCHYARD_KERNEL=$tmp/fake.elf SWITCHYARD_INITRD=$tmp/script.txt \
		SWITCHYARD_PANIC_SOURCES=$tmp/src "$root/switchyard" "$@"
}

# check NAME WANT STATUS WANT_STATUS: the run's final line and exit status.
check() {
	local name=$1 want=$2 status=$3 want_status=$4
	local last
	last=$(tail -n 1 "$tmp/out")
	local ok=0
	[[ $last == "$want" && $status -eq $want_status ]] || ok=1
	result $ok "$name (got '$last', status $status)"
}

has() {
	local ok=0
	grep -qF -- "$2" "$tmp/out" || ok=1
	result $ok "$1"
}

good_boot='@cmdline
@if test=all
KTAP version 1
1..2
ok 1 fake.one
[cpu1] online
ok 2 fake.two
# init: running /tests/files
KTAP version 1
1..1
ok 1 open
switchyard: init exited with status 0
@exit 0
@end
@if test=fake.good
# expect-panic: page fault
KERNEL PANIC: page fault at 0x0
rip 0x1234
@hang
@end
@if test=fake.wrong
# expect-panic: double fault
KERNEL PANIC: page fault at 0x0
@exit 1
@end
@if boot_stress
smp: 2 of 2 CPUs online
switchyard: init exited with status 0
@exit 0
@end'

status=0
sy "$good_boot" test --no-build --no-host --no-panic --stress-boots 0 --smp 2 >"$tmp/out" 2>&1 || status=$?
check "clean boot passes" "4 passed, 0 failed" $status 0
has "program name in results" "ok 1 smp2/files: open"
has "kernel results labelled" "ok 2 smp2: fake.two"
has "logs named by configuration" "logs/smp2-microvm-tcg/"

status=0
sy "$good_boot" test --no-build --no-host --stress-boots 0 --machine q35 --accel tcg >"$tmp/out" 2>&1 || status=$?
check "q35 boot with panic tests" "5 passed, 1 failed" $status 1
has "expected panic passes" "ok 2 runner: panic fake.good: page fault"
has "wrong panic text fails" "not ok 3 runner: panic fake.wrong: 'double fault' not in the panic report"

status=0
sy "$good_boot" test --no-build --no-host --no-panic --stress-boots 2 --smp 2 >"$tmp/out" 2>&1 || status=$?
check "boot-stress boots pass" "6 passed, 0 failed" $status 0
has "boot-stress boot named" "ok 3 runner: boot stress 2/2 smp=2: 2 of 2 CPUs online"

status=0
sy "$good_boot" test --no-build --no-host --no-panic --stress-boots 1 --smp 4 >"$tmp/out" 2>&1 || status=$?
has "boot-stress boot without every CPU fails" "not ok 2 runner: boot stress 1/1 smp=4: 2 of 2 CPUs online"

status=0
sy '@if test=all
KTAP version 1
1..2
ok 1 fake.one
KERNEL PANIC: general protection fault
@hang
@end' test --no-build --no-host --no-panic --stress-boots 0 >"$tmp/out" 2>&1 || status=$?
check "unexpected panic fails" "1 passed, 2 failed" $status 1
has "panic named" "kernel panic: general protection fault"
has "missing result counted" "missing result 2"

status=0
SECONDS=0
sy 'booting
@hang' test --no-build --no-host --no-panic --stress-boots 0 --timeout 3 >"$tmp/out" 2>&1 || status=$?
took=$SECONDS
check "timeout fails" "0 passed, 1 failed" $status 1
ok=0
[[ $took -lt 15 ]] || ok=1
result $ok "timeout stops QEMU in time ($took s)"

status=0
sy 'booting
@exit 2' test --no-build --no-host --no-panic --stress-boots 0 >"$tmp/out" 2>&1 || status=$?
has "early QEMU exit explained" "QEMU exited with status 5 before init finished"

status=0
SWITCHYARD_KERNEL=$tmp/none.elf SWITCHYARD_INITRD=$tmp/script.txt \
	"$root/switchyard" test --no-build --no-host --stress-boots 0 >"$tmp/out" 2>&1 || status=$?
check "missing kernel fails" "0 passed, 2 failed" $status 1
has "missing kernel named" "no kernel at $tmp/none.elf"

# Fault injection: one boot, userland tests only, their failures tolerated;
# init's checks still count.
status=0
sy '@cmdline
@if fail_alloc=every:7 fail_seed=3
# init: running /tests/files
KTAP version 1
1..2
ok 1 open
not ok 2 write # ENOMEM
# init: checks
KTAP version 1
1..1
ok 1 memory_returned
switchyard: init exited with status 0
@exit 0
@end' test --no-build --fail-alloc every:7 --fail-seed 3 >"$tmp/out" 2>&1 || status=$?
check "fault injection tolerates test failures" "3 passed, 0 failed, 1 tolerated" $status 0
has "fault injection boot options" "accel=tcg: test=none fail_alloc=every:7 fail_seed=3 kmalloc_trace -- --check-memory --program-timeout 60 --tests"
has "fault injection logs" "logs/smp1-microvm-tcg-failalloc/"

# A soak: one boot, the rounds' results all counted, 4 CPUs by default.
status=0
sy '@if --check-memory --soak 120
# init: soak round 1 at 0 s
# init: running /tests/files
KTAP version 1
1..1
ok 1 open
# init: soak round 2 at 61 s
# init: running /tests/files
KTAP version 1
1..1
not ok 1 open # lost
# init: soak done: 2 rounds in 122 s
# init: checks
KTAP version 1
1..1
ok 1 memory_returned
switchyard: init exited with status 0
@exit 0
@end' soak --no-build --minutes 2 >"$tmp/out" 2>&1 || status=$?
check "soak counts every round" "3 passed, 1 failed" $status 1
has "soak boots 4 CPUs" "booting for 2 minutes: smp=4"
has "soak lists its rounds" "# init: soak done: 2 rounds in 122 s"

status=0
sy '@if --run-file /run.args
switchyard: init exited with status 3
@exit 0
@end' run --no-build --cmdline policy=eager /bin/busybox true >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 3 ]] || ok=1
result $ok "run passes the program's status on (got $status)"

status=0
sy 'switchyard: init killed by signal 9
@exit 0' run --no-build >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 137 ]] || ok=1
result $ok "run reports a signal as 128+N (got $status)"

status=0
sy '@cmdline
RESULT ctxsw mech=pipe mode=thread cpus=0,0 fpu=none switches_per_sec=1000
RESULT ctxsw mech=pipe mode=thread cpus=0,1 fpu=none switches_per_sec=900
switchyard: init exited with status 0
@exit 0' bench --no-build --smp 2 >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
grep -qE '^  pipe +thread +0,1 +none +900$' "$tmp/out" &&
	grep -qF -- '-- --bench --ncpu 2' "$tmp/out" || ok=1
result $ok "bench prints a table"

# --only passes the groups to init; two policies' timer, wake and fifo
# lines (one kernel unable to run the FIFO check) side by side.
status=0
sy '@cmdline
@if xstate=eager
RESULT timer kernel=switchyard policy=eager call=nanosleep req_us=10 samples=30 median_us=10000.0 p90_us=10050.0 max_us=19990.0 ratio=1000.00
RESULT wake kernel=switchyard policy=eager mode=cross cpus=0,1 samples=200 median_us=40.0 p90_us=60.0 max_us=90.0 raced=0
RESULT fifo kernel=switchyard policy=eager unsupported=sched_setscheduler:EPERM
@end
@if xstate=lazy
RESULT timer kernel=switchyard policy=lazy call=nanosleep req_us=10 samples=30 median_us=80.0 p90_us=90.0 max_us=99.0 ratio=8.00
RESULT wake kernel=switchyard policy=lazy mode=cross cpus=0,1 samples=200 median_us=20.0 p90_us=30.0 max_us=45.0 raced=1
RESULT fifo kernel=switchyard policy=lazy rounds=20 late_median_us=15.0 late_p90_us=20.0 late_max_us=30.0 other_ran=0
@end
switchyard: init exited with status 0
@exit 0' bench --no-build --smp 2 --policy eager,lazy --only timer,wake,fair >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 0 ]] && grep -qF -- '-- --bench --ncpu 2 --seconds 2 --only timer,wake,fair' "$tmp/out" &&
	grep -qE '^  call=nanosleep req_us=10 +1000\.00 +8\.00 +0\.01$' "$tmp/out" &&
	grep -qE '^  mode=cross cpus=0,1 +40\.0 +20\.0 +0\.50$' "$tmp/out" &&
	grep -qE '^  \(one run\) +unsupported +15\.0 *$' "$tmp/out" || ok=1
result $ok "bench --only passes the groups on; timer, wake, fifo side by side"

status=0
sy '@exit 0' bench --no-build --only timer,sleep >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 1 ]] && grep -qF "no benchmark group 'sleep'" "$tmp/out" || ok=1
result $ok "bench --only refuses an unknown group"

status=0
sy '@exit 0' bench --no-build --only timer,,wake >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 1 ]] && grep -qF "not 'timer,,wake'" "$tmp/out" || ok=1
result $ok "bench --only refuses an empty group"

# The host runs x86-64 programs only: compare --host is refused on ppc64le
# before anything is built or booted.
status=0
sy '@exit 0' compare --arch ppc64le --host --no-build >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 1 ]] && grep -qF "this host runs x86-64 programs, not ppc64le's" "$tmp/out" || ok=1
result $ok "compare --arch ppc64le refuses --host"

# perf, on ppc64le: the host's perf is an x86-64 program.
status=0
sy '@exit 0' bench --arch ppc64le --no-build --only perf >"$tmp/out" 2>&1 </dev/null || status=$?
ok=0
[[ $status -eq 1 ]] && grep -qF "the host's perf is an x86-64 program" "$tmp/out" || ok=1
result $ok "bench --arch ppc64le refuses --only perf"

# perfbench and cswitch read the output of Linux's programs into RESULT
# lines: built here with the host's gcc, run with stand-ins that print
# what perf 6.1 and context_switch.c print.
cat >"$tmp/perf" <<'EOF'
#!/bin/sh
case "$*" in
"bench sched pipe -l 500") printf '%s\n' "# Running 'sched/pipe' benchmark:" \
	'# Executed 500 pipe operations between two processes' '' \
	'     Total time: 0.110 [sec]' '' '       5.497250 usecs/op' '         181909 ops/sec' ;;
"bench sched pipe -l 500 -T") echo 'perf: no threads here' >&2; exit 3 ;;
*"-t -g 2 -l 7") printf '%s\n' "# Running 'sched/messaging' benchmark:" \
	'# 20 sender and receiver threads per group' '# 2 groups == 80 threads run' '' \
	'     Total time: 0.283 [sec]' ;;
*) echo "# Running 'sched/messaging' benchmark:" ;;
esac
EOF
cat >"$tmp/context_switch" <<'EOF'
#!/bin/sh
echo "Using threads with pipe on cpus 0/0 touching FP:yes altivec:yes vector:no vdso:no"
printf '%s\n' 9000 2000 3000 2500
EOF
chmod +x "$tmp/perf" "$tmp/context_switch"
ok=0
if gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/user/lib" -o "$tmp/perfbench" \
	"$root/user/bench/perfbench.c" >"$tmp/out" 2>&1; then
	"$tmp/perfbench" -P "$tmp/perf" -l 500 -g 2 -m 7 >"$tmp/out" 2>&1 || ok=1
	grep -qx 'RESULT perf_pipe kernel=linux policy=linux mode=process loops=500 usecs_per_op=5.497 ops_per_sec=181909' "$tmp/out" &&
		grep -qx 'RESULT perf_pipe kernel=linux policy=linux mode=thread loops=500 unsupported=exit:3' "$tmp/out" &&
		grep -qx 'RESULT perf_messaging kernel=linux policy=linux ipc=pipe mode=thread groups=2 loops=7 tasks=80 seconds=0.283' "$tmp/out" &&
		grep -qx 'RESULT perf_messaging kernel=linux policy=linux ipc=socket mode=process groups=2 loops=7 unsupported=no-figure' "$tmp/out" &&
		grep -qF '# perf: perf: no threads here' "$tmp/out" || ok=1
else
	ok=1
fi
result $ok "perfbench reads perf bench's figures, and says which runs gave none"

ok=0
if gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/user/lib" -o "$tmp/cswitch" \
	"$root/user/bench/cswitch.c" >"$tmp/out" 2>&1; then
	"$tmp/cswitch" -P "$tmp/context_switch" -n 1 -s 3 >"$tmp/out" 2>&1 || ok=1
	[[ $(grep -c '^RESULT cswitch' "$tmp/out") -eq 6 ]] &&
		grep -qx 'RESULT cswitch kernel=linux policy=linux test=pipe mode=process cpus=0,0 touch=fp,altivec switches_per_sec=2500 min=2000 max=3000 seconds=3' "$tmp/out" || ok=1
else
	ok=1
fi
result $ok "cswitch drops context_switch's first second and takes the median"

# The host packages: a header no command names is asked for by its path,
# and ppc64le's build asks for glibc's cross headers, which are only a
# recommendation of its compiler.
ok=0
(
	# shellcheck source=/dev/null
	source "$root/switchyard"
	[[ $(ARCH=x86_64 missing_packages "/nonexistent/x.h:pkg-x" "sh:pkg-sh") == pkg-x ]] &&
		ARCH=ppc64le && apply_arch && [[ $REQUIRED == *"include/bits/wordsize.h:libc6-dev-ppc64el-cross"* ]]
) >"$tmp/out" 2>&1 || ok=1
result $ok "missing packages: a file is asked for by its path, ppc64le's cross headers among them"

[[ $failures -eq 0 ]]
