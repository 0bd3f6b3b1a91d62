# procfs_ps: busybox ps, pidof and top read /proc/PID, printing KTAP.
# (Debian's busybox has no pgrep applet.)
#
# Run as `busybox sh /tests/procfs_ps.sh`; any other shell re-executes the
# script in busybox's.  The applets are called through busybox itself, so
# they need no links of their own.  On a host, set BUSYBOX or put busybox
# on PATH; Linux is the reference: every case passes there.

PLAN=8

. "$(dirname "$0")/../lib/ktap.sh"

# A sleeper whose argv[0] is "sleep" and whose argument nobody else has.
"$BB" sh -c 'exec -a sleep "$0" 987' "$BB" &
sleeper=$!
# Until its exec is done its cmdline is still the shell's.
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ "$(tr '\0' ' ' < /proc/$sleeper/cmdline 2>/dev/null)" = "sleep 987 " ] && break
	sleep 0.2
done

check cmdline "$(tr '\0' ' ' < /proc/$sleeper/cmdline)" "sleep 987 "
check ps_lists_it "$("$BB" ps | awk -v p=$sleeper '$1 == p { print $NF }')" "987"
check ps_o_columns "$("$BB" ps -o pid,ppid,stat,args | awk -v p=$sleeper '$1 == p { print $2, $3, $(NF - 1), $NF }')" \
	"$$ S sleep 987"
check pidof "$("$BB" pidof sleep | tr ' ' '\n' | grep -x $sleeper)" "$sleeper"
# top needs the system-wide /proc/stat as well.
if [ -r /proc/stat ]; then
	check top_batch "$("$BB" top -n 1 -b | awk -v p=$sleeper '$1 == p { print $2 }')" "$$"
else
	n=$((n + 1))
	echo "ok $n top_batch # SKIP no /proc/stat"
fi
kill $sleeper
wait $sleeper 2>/dev/null
check ps_not_after_reap "$("$BB" ps | awk -v p=$sleeper '$1 == p')" ""
check proc_dir_gone "$([ -d /proc/$sleeper ] && echo there || echo gone)" "gone"
check pidof_gone "$("$BB" pidof sleep | tr ' ' '\n' | grep -x $sleeper)" ""

ktap_end
