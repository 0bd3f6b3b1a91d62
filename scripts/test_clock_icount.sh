#!/bin/bash
# test_clock_icount.sh: the RTC check under QEMU's -icount shift=0, where
# guest time is the instruction count (1 ns each) and the PIT, PM timer and
# HPET follow it, but the RTC, unless -rtc clock=vm, follows the host.
#
# Boot 1, q35 under -icount shift=0 with the RTC on the host's clock: six
# ctxsw runs of 2 s (12 s of guest time, several times that of host time,
# well past the RTC check's first 10 s).  The kernel must keep the TSC rate
# the three references agreed on, saying that the RTC is not on the guest's
# clock; /proc/cpuinfo's "cpu MHz" at the end must still be the boot's rate,
# and the six rates must agree within 1 %: under icount a run repeats to the
# instruction, so only a change of the clock's rate can move it.  (Should the host have run the guest at 1 G instructions a second,
# the RTC agrees, nothing is to be kept, and the first result is a SKIP.)
# Boot 2, q35 under -icount with -rtc clock=vm and clock_skew=250000: the
# references agree on 1 GHz, the rate in use is 25 % above it, the RTC is on
# the guest's clock: the rate must be corrected to within 1 % of 1 GHz.
# Nothing is timed by the host.  Prints KTAP; needs build/ to be built
# (./switchyard build) and a static busybox at /bin/busybox (the runner packs
# it to run the guest's loop).
#
# usage: scripts/test_clock_icount.sh
set -u
cd "$(dirname "$0")/.."

names=(icount_rtc_on_host_clock_rate_kept icount_tsc_rate_at_end_is_boot_rate
       icount_ctxsw_rate_steady_through_rtc_check icount_skewed_rate_corrected_by_rtc_on_guest_clock)
echo "KTAP version 1"
echo "1..${#names[@]}"
fail_all() {
	for ((i = 0; i < ${#names[@]}; i++)); do
		echo "not ok $((i + 1)) ${names[$i]} # $1"
	done
	exit 1
}
[[ -f build/switchyard.elf && -f build/initrd.cpio ]] || fail_all "build/ is not built"
[[ -x /bin/busybox ]] || fail_all "no /bin/busybox"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
icount=(--qemu-arg -icount --qemu-arg shift=0)
status=0
result() {	# result N OK|FAIL|SKIP [DETAIL]
	local n=$1 what=$2 detail=${3:-}
	case $what in
	OK) echo "ok $n ${names[$((n - 1))]}${detail:+ # $detail}" ;;
	SKIP) echo "ok $n ${names[$((n - 1))]} # SKIP $detail" ;;
	*) echo "not ok $n ${names[$((n - 1))]}${detail:+ # $detail}"; status=1 ;;
	esac
}

# Boot 1.
./switchyard run --no-build --machine q35 --timeout 900 "${icount[@]}" /bin/busybox sh -c \
	'for i in 1 2 3 4 5 6; do /bench/ctxsw -d 2 || exit 1; done; grep -m 1 "cpu MHz" /proc/cpuinfo' \
	> "$log" 2>&1
tr -d '\r' < "$log" > "$log.1" && mv "$log.1" "$log"
kept_line=$(grep -n "TSC rate kept (the RTC is not on the guest's clock)" "$log" | head -n 1)
if grep -q "RTC check.*corrected from" "$log"; then
	result 1 FAIL "the RTC check corrected the rate"
elif [[ -n $kept_line ]]; then
	result 1 OK
elif grep -q "RTC check after [0-9]* s: TSC between .* kept$" "$log"; then
	result 1 SKIP "the RTC agreed with the guest's clock: nothing to keep"
else
	result 1 FAIL "no verdict of the RTC check"
fi
boot=$(sed -n 's/^clock: TSC \([0-9.]*\) GHz from .*/\1/p' "$log" | head -n 1)
end=$(sed -n 's/^cpu MHz[[:space:]]*: \([0-9.]*\)$/\1/p' "$log" | tail -n 1)
if [[ -z $boot || -z $end ]]; then
	result 2 FAIL "no boot rate or no cpu MHz (last line: $(tail -n 1 "$log"))"
elif awk -v b="$boot" -v e="$end" 'BEGIN { d = e / 1000 - b; exit !(d <= b / 1000 && -d <= b / 1000) }'; then
	result 2 OK "boot $boot GHz, at the end $end MHz"
else
	result 2 FAIL "boot $boot GHz, at the end $end MHz"
fi
rates=$(sed -n 's/^RESULT ctxsw .*switches_per_sec=\([0-9]*\).*/\1/p' "$log")
verdict=$(grep -n "clock: RTC check after" "$log" | tail -n 1 | cut -d: -f1)
last=$(grep -n "^RESULT ctxsw" "$log" | tail -n 1 | cut -d: -f1)
if [[ $(wc -w <<<"$rates") -ne 6 ]]; then
	result 3 FAIL "$(wc -w <<<"$rates") ctxsw results, not 6 (last line: $(tail -n 1 "$log"))"
elif [[ -z $verdict || $verdict -gt $last ]]; then
	result 3 FAIL "the RTC check had not ended before the last run"
elif awk 'NR == 1 { lo = hi = $1 } { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 }
	  END { exit !(hi <= lo * 1.01) }' <<<"$rates"; then
	result 3 OK "switches/s: $(echo $rates)"
else
	result 3 FAIL "switches/s moved by more than 1 %: $(echo $rates)"
fi
grep -E "^clock:|^RESULT|^cpu MHz" "$log" | sed 's/^/# /'

# Boot 2.
./switchyard run --no-build --machine q35 --timeout 900 "${icount[@]}" --qemu-arg -rtc \
	--qemu-arg clock=vm --cmdline clock_skew=250000 /bin/busybox sleep 5 > "$log" 2>&1
tr -d '\r' < "$log" > "$log.1" && mv "$log.1" "$log"
to=$(sed -n 's/^clock: RTC check after .* corrected from .* to \([0-9.]*\) GHz$/\1/p' "$log" | tail -n 1)
if grep -q "the RTC is not on the guest's clock" "$log"; then
	result 4 FAIL "the skewed rate was kept"
elif [[ -z $to ]]; then
	result 4 FAIL "no correction (last line: $(tail -n 1 "$log"))"
elif awk -v g="$to" 'BEGIN { exit !(g >= 0.99 && g <= 1.01) }'; then
	result 4 OK "corrected to $to GHz"
else
	result 4 FAIL "corrected to $to GHz, not 1 GHz"
fi
grep "^clock:" "$log" | sed 's/^/# /'
exit $status
