# jobs: busybox sh's job control on the console, printing KTAP: a shell
# with `set -m` in a session of its own with stdin as its controlling
# terminal (busybox setsid -c) stops a background job (`kill -TSTP %1`),
# lists it (`jobs`), continues it in the background (`bg`), waits for one
# in the foreground (`fg`), and sees a foreground child stop itself
# (status 148) and then resume under `fg`.  Skipped when stdin is not a
# terminal the shell can take (on a host, run it from a terminal).
#
# Run as `busybox sh /tests/jobs.sh`; any other shell re-executes it in
# busybox's.

BB=${BUSYBOX:-$(command -v busybox 2>/dev/null)}
[ -n "$BB" ] || BB=/bin/busybox
if [ -z "$JOBS_TESTS_IN_BUSYBOX" ]; then
	JOBS_TESTS_IN_BUSYBOX=1 exec "$BB" sh "$0" "$@"
fi

echo "KTAP version 1"
echo "1..5"

T=/tmp/jobs-$$
mkdir -p "$T" || exit 1
cat > "$T/job.sh" <<'SCRIPT'
set -m
sleep 5 &
sleep 0.3	# the child ignores TSTP as the shell does until it execs
kill -TSTP %1
sleep 0.3
echo "A $(jobs)"
bg %1 > /dev/null
sleep 0.3
echo "B $(jobs)"
kill %1
wait
sleep 0.1 &
fg %1 > /dev/null
echo "C $?"
sh -c 'kill -TSTP $$; echo resumed'
echo "D $?"
fg > /dev/null
echo "E $?"
SCRIPT

if [ ! -t 0 ]; then
	for i in 1 2 3 4 5; do echo "ok $i jobs # SKIP stdin is not a terminal"; done
	rm -rf "$T"
	exit 0
fi
out=$("$BB" setsid -c "$BB" sh "$T/job.sh" 2>&1)
rm -rf "$T"
case "$out" in
*"job control turned off"*|*"can't access tty"*)
	for i in 1 2 3 4 5; do echo "ok $i jobs # SKIP no controlling terminal for the shell"; done
	exit 0;;
esac

n=0
# check NAME PATTERN: one KTAP line, ok when a line of the output matches.
check() {
	n=$((n + 1))
	if printf '%s\n' "$out" | grep -q "$2"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1 # no line like '$2' in: $(printf '%s' "$out" | tr '\n' '|')"
	fi
}
check stopped_job_listed '^A \[1\]+ *Stopped *sleep 5'
check bg_runs_it '^B \[1\]+ *Running *sleep 5'
check fg_waits '^C 0$'
check foreground_stop_148 '^D 148$'
check fg_resumes '^resumed$'
