#!/bin/bash
# Self-test of scripts/ktap-summary: small sample logs with known totals.
# Prints KTAP itself, so its output can be summarised like any other test.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
summary="$here/ktap-summary"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count=0
failures=0

# check NAME WANT_LAST_LINE WANT_STATUS [SUMMARY ARGS...] < LOG
# Runs the summariser on stdin and compares its last line and exit status.
check() {
	local name=$1 want_line=$2 want_status=$3
	shift 3
	local status=0
	"$summary" "$@" >"$tmp/out" || status=$?
	local last
	last=$(tail -n 1 "$tmp/out")
	count=$((count + 1))
	if [[ "$last" == "$want_line" && $status -eq $want_status ]]; then
		echo "ok $count $name"
	else
		failures=$((failures + 1))
		echo "not ok $count $name # got '$last' status $status, want '$want_line' status $want_status"
		sed 's/^/# /' "$tmp/out"
	fi
}

# expect_line NAME PATTERN: the previous check's output has a matching line.
expect_line() {
	count=$((count + 1))
	if grep -qE -- "$2" "$tmp/out"; then
		echo "ok $count $1"
	else
		failures=$((failures + 1))
		echo "not ok $count $1 # no line matching '$2'"
		sed 's/^/# /' "$tmp/out"
	fi
}

echo "KTAP version 1"
echo "1..28"

check "complete plan passes" "3 passed, 0 failed" 0 <<'EOF'
KTAP version 1
1..3
ok 1 first
ok 2 second
ok 3 third
EOF

check "incomplete plan counts missing results" "1 passed, 2 failed" 1 <<'EOF'
KTAP version 1
1..3
ok 1 first
EOF
expect_line "missing result is named" "^not ok 3 .*missing result 3$"

check "skips are counted apart" "1 passed, 0 failed, 1 skipped" 0 <<'EOF'
KTAP version 1
1..2
ok 1 runs
ok 2 avx # SKIP no AVX here
EOF

check "interleaved console output" "3 passed, 1 failed" 1 --label kernel <<'EOF'
switchyard: booting
KTAP version 1
[cpu1] online
1..4
ok 1 mm.buddy
[cpu0] timer calibrated
    ok 2 mm.kmalloc
not ok 3 sched.yield # expected 2 got 3
	ok 4 sched.ipi
okay, not a result
not ok to be taken for a result either
EOF
expect_line "block label prefixes results" "^ok 1 kernel: mm.buddy$"
expect_line "failure keeps its reason" "^not ok 3 kernel: sched.yield # expected 2 got 3$"

check "programs started by init are named" "3 passed, 1 failed" 1 --label boot <<'EOF'
KTAP version 1
1..1
ok 1 kernel.one
# init: running /tests/files
KTAP version 1
1..2
ok 1 open
not ok 2 unlink # ENOENT
# init: files exited with status 1
# init: running /tests/pipes
KTAP version 1
1..1
ok 1 ping
EOF
expect_line "program name in result" "^not ok 2 boot/files: unlink # ENOENT$"

check "crash mid-plan" "1 passed, 3 failed" 1 <<'EOF'
# init: running /tests/threads
KTAP version 1
1..3
ok 1 create
# init: threads killed by signal 11
EOF
expect_line "signal reported" "threads: killed by signal 11$"

check "silent non-zero exit is a failure" "1 passed, 1 failed" 1 <<'EOF'
# init: running /tests/a
KTAP version 1
1..1
ok 1 fine
# init: running /tests/b
# init: b exited with status 127
EOF

check "nested subtests counted once" "3 passed, 0 failed" 0 <<'EOF'
KTAP version 1
1..2
    KTAP version 1
    # Subtest: mm
    1..2
    ok 1 buddy
    ok 2 kmalloc
ok 1 mm
    KTAP version 1
    1..1
    ok 1 yield
ok 2 sched
EOF

check "nested failure not doubled" "1 passed, 1 failed" 1 <<'EOF'
KTAP version 1
1..1
    KTAP version 1
    1..2
    ok 1 buddy
    not ok 2 kmalloc
not ok 1 mm
EOF

check "no tests is a failure" "0 passed, 0 failed" 1 <<'EOF'
switchyard: booting
switchyard: init exited with status 0
EOF

check "runner failures injected" "1 passed, 1 failed" 1 --fail "boot 2: timeout after 600 s" <<'EOF'
ok 1 something
EOF
expect_line "injected failure printed" "^not ok boot 2: timeout after 600 s$"

printf 'KTAP version 1\r\n1..2\r\nok 1 a\r\nok 2 b\r\n' >"$tmp/crlf.log"
check "serial CRLF line ends" "2 passed, 0 failed" 0 "$tmp/crlf.log" </dev/null

printf 'KTAP version 1\n1..1\nok 1 x\n' >"$tmp/one.log"
printf '# host: test_printf\nKTAP version 1\n1..1\nnot ok 1 y\n' >"$tmp/two.log"
check "several files with labels" "1 passed, 1 failed" 1 \
	--label host "$tmp/one.log" --label boot "$tmp/two.log" </dev/null
expect_line "label of the first file" "^ok 1 host: x$"
expect_line "host test name" "^not ok 1 boot/host/test_printf: y$"

check "quiet hides passes" "1 passed, 1 failed" 1 --quiet "$tmp/two.log" "$tmp/one.log" </dev/null
count=$((count + 1))
if grep -q "^ok 1 x" "$tmp/out"; then
	failures=$((failures + 1))
	echo "not ok $count quiet prints no passing line"
else
	echo "ok $count quiet prints no passing line"
fi

# A fault-injection boot: userland failures are tolerated, init's
# checks, kernel results and runner failures are not.
cat >"$tmp/inject.log" <<'EOF'
KTAP version 1
1..1
ok 1 kernel.test
# init: running /tests/files
KTAP version 1
1..3
ok 1 open
not ok 2 write # ENOMEM
# init: files killed by signal 11
# init: checks
KTAP version 1
1..2
ok 1 fresh_program_runs
not ok 2 memory_returned # pages_pinned 10 -> 11
EOF
check "tolerated userland failures" "3 passed, 1 failed, 3 tolerated" 1 \
	--label smp2 --tolerate "$tmp/inject.log" </dev/null
expect_line "tolerated failure marked" "^not ok 2 smp2/files: write # ENOMEM \\[tolerated\\]$"
expect_line "missing result tolerated" "^not ok 3 smp2/files: missing result 3 # \\[tolerated\\]$"
expect_line "init checks counted" "^not ok 2 smp2/init: memory_returned # pages_pinned 10 -> 11$"
check "without --tolerate they count" "3 passed, 4 failed" 1 --label smp2 "$tmp/inject.log" </dev/null

[[ $failures -eq 0 ]]
