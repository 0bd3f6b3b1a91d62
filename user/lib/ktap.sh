# ktap.sh: what the shell tests share.  A test sets PLAN (its number of
# cases) and sources this file from its own directory's ../lib (user/lib on
# a host, /lib on Switchyard); it then calls check for each case and ends
# with ktap_end.
#
# Whatever shell started the test, it runs again in busybox's (BUSYBOX, or
# busybox on PATH, or /bin/busybox), so that a host and Switchyard run the
# same applets; "$0" and "$@" are the test's own.

BB=${BUSYBOX:-$(command -v busybox 2>/dev/null)}
[ -n "$BB" ] || BB=/bin/busybox

if [ -z "$KTAP_SH_IN_BUSYBOX" ]; then
	KTAP_SH_IN_BUSYBOX=1 exec "$BB" sh "$0" "$@"
fi

n=0
failures=0

# check NAME GOT WANT: one KTAP line; newlines in a failure reason become |.
check() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1"
	else
		failures=$((failures + 1))
		got=$(printf '%s' "$2" | "$BB" tr '\n' '|')
		want=$(printf '%s' "$3" | "$BB" tr '\n' '|')
		echo "not ok $n $1 # got '$got', want '$want'"
	fi
}

# ktap_end: the run must have made as many cases as PLAN said; the exit
# status says whether all passed.
ktap_end() {
	if [ "$n" -ne "$PLAN" ]; then
		echo "# plan said $PLAN cases, ran $n"
		exit 1
	fi
	[ "$failures" -eq 0 ]
	exit
}

echo "KTAP version 1"
echo "1..$PLAN"
