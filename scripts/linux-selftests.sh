#!/bin/bash
# linux-selftests.sh OUTDIR: build Linux 6.1's own membarrier selftests
# (tools/testing/selftests/membarrier/, unmodified) as static musl
# programs in OUTDIR, so /init --tests runs them like our own tests.
#
# The sources are never copied into this repository; they come from
# Debian's linux-source-6.1 package (CI installs it):
#   - an unpacked tree: $LINUX_SRC, or /usr/src/linux-source-6.1;
#   - else the package's /usr/src/linux-source-6.1.tar.xz (or
#     $LINUX_SRC_TARBALL), from which only the few files needed are
#     unpacked into build/linux-src/ (once; xz takes a few seconds).
# Without either the programs are not built (and a note says so).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: linux-selftests.sh OUTDIR}
musl=${MUSLCC:-musl-gcc}
rel=tools/testing/selftests/membarrier
need=("$rel/membarrier_test_impl.h" "$rel/membarrier_test_single_thread.c"
	"$rel/membarrier_test_multi_thread.c" tools/testing/selftests/kselftest.h
	include/uapi/linux/membarrier.h)

has_sources() {
	[[ -n $1 && -f $1/$rel/membarrier_test_impl.h && -f $1/include/uapi/linux/membarrier.h ]]
}

src=""
for dir in "${LINUX_SRC:-}" /usr/src/linux-source-6.1; do
	if has_sources "$dir"; then
		src=$dir
		break
	fi
done
if [[ -z $src ]]; then
	tarball=${LINUX_SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
	if [[ ! -f $tarball ]]; then
		echo "linux-selftests: no linux-source-6.1 (apt-get install linux-source-6.1);" \
			"Linux's membarrier selftests not built" >&2
		exit 0
	fi
	cache=$root/build/linux-src
	src=$cache/linux-source-6.1
	if [[ ! -f $cache/.unpacked || $tarball -nt $cache/.unpacked ]]; then
		rm -rf "$cache"
		mkdir -p "$cache"
		tar -xJf "$tarball" -C "$cache" "${need[@]/#/linux-source-6.1/}"
		touch "$cache/.unpacked"
	fi
fi

mkdir -p "$out"
for prog in membarrier_test_single_thread membarrier_test_multi_thread; do
	target=$out/$prog
	deps=("$src/$rel/$prog.c" "$src/$rel/membarrier_test_impl.h" "$src/tools/testing/selftests/kselftest.h")
	stale=0
	[[ -x $target ]] || stale=1
	for d in "${deps[@]}"; do
		[[ $d -nt $target ]] && stale=1
	done
	[[ $stale -eq 0 ]] && continue
	echo "$musl -static ... -o $target $src/$rel/$prog.c"
	# Their headers want <linux/membarrier.h>: the tree's own, as
	# the selftests' KHDR_INCLUDES would give.
	"$musl" -static -O2 -g -pthread -isystem "$src/include/uapi" \
		-o "$target" "$src/$rel/$prog.c"
done
