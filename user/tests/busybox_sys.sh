# busybox_sys: the busybox applets that report on the system (free,
# uptime, nproc, df, mount, kill -l, hostname, uname) agree with the
# kernel's own files, and the applets a Debian system has are there
# (gzip and tar z among them).  KTAP.
#
# Run as `busybox sh /tests/busybox_sys.sh`; on a host set BUSYBOX or put
# busybox on PATH.  Linux is the reference: every case passes there.

PLAN=13

. "$(dirname "$0")/../lib/ktap.sh"

T=/tmp/busybox_sys-$$
rm -rf "$T"
mkdir -p "$T" && cd "$T" || {
	echo "# cannot use scratch directory $T"
	exit 1
}

# nproc counts the CPUs this process may run on: all online ones here.
check nproc_is_cpuinfo "$("$BB" nproc)" "$("$BB" grep -c '^processor' /proc/cpuinfo)"

# free's total is sysinfo's, /proc/meminfo's MemTotal (KiB).
check free_total_is_memtotal \
	"$("$BB" free | "$BB" awk '/^Mem:/ { print $2 }')" \
	"$("$BB" awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
check free_swap_line "$("$BB" free | "$BB" awk '/^Swap:/ { print NF }')" "4"

# uptime's load averages are /proc/loadavg's, within the 0.01 that their
# roundings differ by (sysinfo's truncate, /proc's round); a new sample
# may land between the two reads: try again once.
loads() {
	a=$("$BB" uptime | "$BB" sed 's/.*load average: //; s/,//g')
	b=$("$BB" awk '{ print $1, $2, $3 }' /proc/loadavg)
	close=$(echo "$a $b" | "$BB" awk '{ for (i = 1; i <= 3; i++) {
		d = $i - $(i + 3); if (d < 0) d = -d; if (d > 0.011) { print "no"; exit } }
		print "yes" }')
}
loads
[ "$close" = yes ] || loads
check uptime_load_is_loadavg "$close ($a vs $b)" "yes ($a vs $b)"

# df /: the size statfs gives, in KiB.
check df_root_size \
	"$("$BB" df -k / | "$BB" awk 'NR == 2 { print $2 }')" \
	"$("$BB" stat -f -c '%b %S' / | "$BB" awk '{ print $1 * $2 / 1024 }')"

check mount_lists_root "$("$BB" mount | "$BB" grep -c ' on / type ')" "1"

check kill_l_names "$("$BB" kill -l 9) $("$BB" kill -l 15) $("$BB" kill -l HUP)" "KILL TERM 1"

check hostname_is_uname "$("$BB" hostname)" "$("$BB" uname -n)"
check hostname_is_proc "$("$BB" hostname)" "$(cat /proc/sys/kernel/hostname)"
check uname_a "$("$BB" uname -a | "$BB" cut -d' ' -f1,3)" "Linux $("$BB" uname -r)"

"$BB" seq 1 2000 >data
check gzip_round_trip "$("$BB" gzip -c data | "$BB" gzip -dc | "$BB" md5sum)" \
	"$("$BB" md5sum <data)"
mkdir -p tree/sub && echo one >tree/sub/f
"$BB" tar czf t.tgz tree && rm -rf tree && "$BB" tar xzf t.tgz
check tar_z_round_trip "$(cat tree/sub/f)" "one"

# Switchyard's initramfs links every applet busybox lists where the list
# puts it (a host's busybox package may link fewer: not checked there).
missing=
if "$BB" uname -v | "$BB" grep -q Switchyard; then
	for p in $("$BB" --list-full); do
		[ -e "/$p" ] || missing="$missing /$p"
	done
fi
check every_applet_linked "$missing" ""

cd /
rm -rf "$T"
ktap_end
