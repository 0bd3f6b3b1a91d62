#!/bin/bash
# test_run_dynamic.sh: ./switchyard run with Debian's own dynamically
# linked programs (the runner packs their interpreter and libraries) and
# with arguments that the kernel command line could not carry (newlines,
# quotes, empty ones, UTF-8).  Prints KTAP.  Needs build/ to be built
# (uses ./switchyard run --no-build).
set -u
cd "$(dirname "$0")/.."

n=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME EXPECTED_STATUS PATTERN -- RUN_ARGS...: one boot; its output
# must hold the pattern (a fixed string, "|" standing for a line break)
# and the status match.
check() {
	local name=$1 want=$2 pattern=$3
	shift 4
	n=$((n + 1))
	local status=0
	timeout 300 ./switchyard run --no-build --smp 2 "$@" >"$tmp/out" 2>&1 || status=$?
	tr -d '\r' <"$tmp/out" | tr '\n' '|' >"$tmp/flat"
	if [[ $status -eq $want ]] && grep -qF -- "$pattern" "$tmp/flat"; then
		echo "ok $n $name"
	else
		failed=$((failed + 1))
		echo "not ok $n $name # status $status (want $want); last line: $(tail -n 1 "$tmp/out" | tr -d '\r')"
	fi
}

echo "KTAP version 1"
echo "1..10"
printf 'pear\napple\nfig\n' >"$tmp/fruit"
check debian_ls 0 "lib64" -- /bin/ls /
check debian_true 0 "init exited with status 0" -- /bin/true
check debian_false 1 "init exited with status 1" -- /bin/false
check debian_sort 0 "|apple|fig|pear|" -- --file "$tmp/fruit:/fruit" /usr/bin/sort /fruit
check debian_find 0 "/lib64/ld-linux-x86-64.so.2" -- /usr/bin/find /lib64
# util-linux's flock(1): a second open file cannot take the lock the first
# holds (flock(2) between open file descriptions); another file is free.
# (The runner packs the program as /flock.)
if [[ -x /usr/bin/flock ]]; then
	check debian_flock 0 "|held|free|" -- /usr/bin/flock -n /tmp/lk -c \
		'/flock -n /tmp/lk -c "echo no" || echo held; /flock -n /tmp/other -c "echo free"'
else
	n=$((n + 1))
	echo "ok $n debian_flock # SKIP no /usr/bin/flock on this host"
fi
# musl's dynamic linker too (musl-gcc without -static links against
# libc.so, with /lib/ld-musl-x86_64.so.1 as interpreter).
printf '#include <stdio.h>\nint main(int c, char **v) { printf("musl %%d %%s\\n", c, v[1]); return 3; }\n' >"$tmp/m.c"
if musl-gcc -O1 -o "$tmp/mdyn" "$tmp/m.c" 2>/dev/null; then
	check musl_dynamic 3 "|musl 2 hi|" -- "$tmp/mdyn" hi
else
	n=$((n + 1))
	echo "ok $n musl_dynamic # SKIP musl-gcc cannot link dynamically here"
fi
# --file DIR packs the whole tree.
mkdir -p "$tmp/tree/a/b"
echo deep >"$tmp/tree/a/b/leaf"
check file_dir_tree 0 "|/tree/a/b/leaf|deep|" -- --file "$tmp/tree:/tree" \
	/bin/busybox sh -c 'find /tree/a/b/leaf; cat /tree/a/b/leaf'
# A multi-line script and awkward arguments, each printed in brackets.
check args_byte_exact 0 "[][two|lines][q'uo\"te \$x][caf"$'\xc3\xa9'"]|" -- \
	/bin/busybox sh -c 'printf "[%s]" "$@"
echo' sh '' 'two
lines' "q'uo\"te \$x" $'caf\xc3\xa9'
# What execve could not pass is refused before booting: 2.6 MB of
# arguments (the host passes them to the runner under an unlimited stack,
# where its own limit is 6 MiB).
ulimit -s unlimited 2>/dev/null || ulimit -s 65536 2>/dev/null || true
big=$(head -c 131071 /dev/zero | tr '\0' a)
check args_too_long_refused 2 "execve takes at most" -- /bin/true \
	"$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" \
	"$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big"
[[ $failed -eq 0 ]]
