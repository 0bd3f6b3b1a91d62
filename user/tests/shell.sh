# shell: busybox sh and its applets on Switchyard, printing KTAP.
#
# Run as `busybox sh /tests/shell.sh`; any other shell re-executes the
# script in busybox's.  Busybox's standalone shell runs its own applets
# whatever PATH says, forking and re-executing /proc/self/exe for the ones
# that are not built in, so this exercises fork, exec, pipes, redirections,
# wait and signals through a real program.  On a host, set BUSYBOX or put
# busybox on PATH; Linux is the reference: every case passes there.  Each
# case builds the files it needs, so one failure stays local.

PLAN=48

. "$(dirname "$0")/../lib/ktap.sh"

# nl: a newline, for expected multi-line outputs.
nl='
'
echo "# $("$BB" 2>&1 | head -n 1)"

T=/tmp/shell-$$
rm -rf "$T"
mkdir -p "$T" && cd "$T" || {
	echo "# cannot use scratch directory $T"
	exit 1
}

# Watchdog: a hang anywhere becomes a failed run instead of a stuck one.
# Told to stop (TERM), it takes its sleep down with it.
(
	trap 'kill $nap 2>/dev/null; exit 0' TERM
	sleep 120 &
	nap=$!
	wait $nap
	echo "# watchdog: shell tests timed out"
	kill -9 $$
) &
watchdog=$!

# ---- echo, substitution, variables ----------------------------------------------

check echo "$(echo hello world)" "hello world"
check command_substitution_nested "$(echo "$(echo inner) outer")" "inner outer"
check arithmetic "$((6 * 7 + 100 / 4))" "67"
FOO=bar
check environment_to_child "$(FOO=$FOO sh -c 'echo $FOO')" "bar"
check sh_c_arguments "$(sh -c 'echo $1-$2' zero A B)" "A-B"
check here_document "$(cat <<EOF
line one
line $FOO
EOF
)" "line one${nl}line bar"

# ---- pipelines -----------------------------------------------------------------

check pipeline_sort_head "$(printf 'b\na\nc\n' | sort | head -n 2)" "a${nl}b"
check pipeline_wc "$(printf 'one\ntwo\nthree\n' | wc -l)" "3"
check pipeline_three_stages "$(echo abc | tr a-z A-Z | sed 's/B/-/')" "A-C"
check pipeline_long "$(seq 1 2000 | sort -rn | head -n 1)" "2000"
check pipeline_awk_sum "$(seq 1 1000 | awk '{ s += $1 } END { print s }')" "500500"
check pipeline_while_read "$(printf '1\n2\n3\n' | { s=0; while read x; do s=$((s + x)); done; echo $s; })" "6"
check pipeline_dd_bytes "$(dd if=/dev/zero bs=1024 count=4 2>/dev/null | wc -c)" "4096"
check xargs "$(echo a b c | xargs -n 1 echo | wc -l)" "3"
check md5sum "$(printf abc | md5sum)" "900150983cd24fb0d6963f7d28e17f72  -"

# ---- redirections ----------------------------------------------------------------

echo first > out1
check redirect_out "$(cat out1)" "first"
echo one > out2
echo two >> out2
check redirect_append "$(cat out2)" "one${nl}two"
printf 'alpha\nbeta\n' > in1
read line < in1
check redirect_in_read "$line" "alpha"
check redirect_in_wc "$(wc -l < in1)" "2"
ls /nonexistent-path 2> err1
check redirect_stderr_status "$?" "1"
check redirect_stderr_file "$( [ -s err1 ] && echo nonempty)" "nonempty"
case "$(ls /nonexistent-path 2>&1)" in
*nonexistent-path*) dup_ok=yes ;;
*) dup_ok=no ;;
esac
check redirect_stderr_to_stdout "$dup_ok" "yes"
echo discarded > /dev/null
check redirect_dev_null "$?" "0"
exec 3> fd3
echo via-fd3 >&3
exec 3>&-
check redirect_numbered_fd "$(cat fd3)" "via-fd3"

# ---- exit statuses ----------------------------------------------------------------

true
check status_true "$?" "0"
false
check status_false "$?" "1"
(exit 7)
check status_subshell "$?" "7"
sh -c 'exit 42'
check status_child_shell "$?" "42"
false | true
check status_pipeline_last "$?" "0"
true | false
check status_pipeline_fails "$?" "1"
check and_or_lists "$(false && echo no || echo yes)" "yes"
nonexistent-command-xyz 2>/dev/null
check status_not_found "$?" "127"

# ---- files and directories -------------------------------------------------------------

mkdir d1 && touch d1/a d1/b d1/c
check ls_directory "$(ls d1)" "a${nl}b${nl}c"
printf '12345' > sized
check ls_long_size "$(ls -l sized | awk '{ print $5 }')" "5"
printf 'A\n' > cat_a
printf 'B\n' > cat_b
check cat_concatenates "$(cat cat_a cat_b)" "A${nl}B"
check head_tail "$(seq 1 10 | head -n 3 | tr '\n' ' ')$(seq 1 10 | tail -n 2 | tr '\n' ' ')" "1 2 3 9 10 "
check sort_numeric "$(printf '10\n9\n100\n' | sort -n | tr '\n' ' ')" "9 10 100 "
check uniq_grep_cut "$(printf 'a:1\na:1\nb:2\n' | uniq | grep b | cut -d: -f2)" "2"
mkdir -p deep/x/y && touch deep/x/y/f
check mkdir_p_find "$(find deep -type f)" "deep/x/y/f"
printf 'payload' > orig
cp orig copy && mv copy moved && rm orig
check cp_mv_rm "$( [ ! -e orig ] && [ ! -e copy ] && cat moved)" "payload"
check test_builtins "$( [ -d d1 ] && [ -f d1/a ] && [ ! -e d1/zz ] && echo yes)" "yes"
check subshell_cd_isolated "$( (cd /; pwd); pwd)" "/${nl}$T"
cd d1 && here=$(pwd) && cd ..
check cd_pwd "$here" "$T/d1"

# ---- scripts, jobs and signals ------------------------------------------------------------

cat > script.sh <<'EOF'
mkdir work
cd work || exit 9
echo made > result
cat result
ls | wc -l
exit 3
EOF
out=$(sh script.sh)
status=$?
check script_output "$out" "made${nl}1"
check script_status "$status" "3"
sleep 0.1 &
wait $!
check background_wait "$?" "0"
sleep 30 &
job=$!
kill $job
wait $job 2>/dev/null
check kill_background_143 "$?" "143"
check trap_term "$(sh -c 'trap "echo caught" TERM; kill -TERM $$; echo after')" "caught${nl}after"

# ---- done -----------------------------------------------------------------------------

kill $watchdog 2>/dev/null
wait $watchdog 2>/dev/null
cd /
rm -rf "$T"
ktap_end
