#!/bin/bash
# test_compare.sh: `./switchyard compare` end to end, briefly: one boot of
# each kernel (Linux 6.1 and Switchyard under its default policy), the
# pipe benchmark only, then the files it must write.  KTAP on stdout.
# Without a Linux kernel (Debian's linux-image-amd64 is fetched with
# apt-get download; no package mirror, no kernel) every case is skipped
# and says why: a missing mirror is not a failure of Switchyard's.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cases=(compare_exits_cleanly csv_has_rows_for_both_kernels summary_has_the_table
	plot_is_a_png)
echo "KTAP version 1"
echo "1..${#cases[@]}"

./switchyard build >"$tmp/build.log" 2>&1 || { echo "# build failed"; tail -n 20 "$tmp/build.log"; }
if ! scripts/linux-guest-prep build/initrd.cpio build/linux-guest >"$tmp/prep.log" 2>&1; then
	reason=$(tail -n 1 "$tmp/prep.log")
	for i in "${!cases[@]}"; do
		echo "ok $((i + 1)) ${cases[$i]} # SKIP no Linux kernel to compare with: $reason"
	done
	exit 0
fi

out=$tmp/compare
./switchyard compare --no-build --reps 1 --seconds 1 --only pipe --policies deferred:256 \
	--out "$out" >"$tmp/run.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/run.log"

result() {	# result N NAME CONDITION-STATUS [DIAGNOSTIC]
	if [[ $3 -eq 0 ]]; then
		echo "ok $1 $2"
	else
		echo "not ok $1 $2${4:+ # $4}"
	fi
}

result 1 compare_exits_cleanly "$rc" "exit status $rc"
linux_rows=$(grep -c '^linux,linux,1,pipe,' "$out/results.csv" 2>/dev/null)
sy_rows=$(grep -c '^switchyard,deferred:256,1,pipe,' "$out/results.csv" 2>/dev/null)
[[ ${linux_rows:-0} -ge 4 && ${sy_rows:-0} -ge 4 ]]
result 2 csv_has_rows_for_both_kernels $? "pipe rows: linux ${linux_rows:-0}, switchyard ${sy_rows:-0}"
grep -q '^| pipe thread 0,0 | µs/round trip | [0-9]' "$out/summary.md" 2>/dev/null
result 3 summary_has_the_table $? "no pipe row with figures in summary.md"
[[ $(head -c 8 "$out/compare.png" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]
result 4 plot_is_a_png $? "compare.png is missing or not a PNG"
