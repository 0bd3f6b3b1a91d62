#!/bin/bash
# mkinitrd.sh: pack Switchyard's initramfs (a newc cpio archive).
#
# usage: scripts/mkinitrd.sh OUT.cpio [HOST_PATH[:GUEST_PATH]]...
#
# The tree:
#   /init                 build/user/init
#   /tests/*              build/user/tests/* (executables) and user/tests/*.sh
#   /tests/.list          sorted names of the above, for an init that cannot
#                         list directories yet
#   /bench/*, /tools/*    build/user/bench/*, build/user/tools/*
#   /linux-selftests/rseq/*  build/user/linux-selftests/rseq/* (Linux's rseq
#                         selftests, for tests/rseq_selftests)
#   /linux-selftests/futex/* build/user/linux-selftests/futex/* (Linux's
#                         futex_wait_timeout and futex_wait_wouldblock, for
#                         tests/futex_selftests)
#   /linux-selftests/powerpc/* build/ppc64le/user/linux-selftests/powerpc/*
#                         (Linux's powerpc context_switch benchmark, for
#                         bench/cswitch; ppc64le only)
#   /dyn/*                build/user/dyn/* (a dynamically linked program and
#                         the shared object it loads, for tests/dynexec),
#                         with their interpreter and libraries at the
#                         host's paths (scripts/dyn-deps)
#   /bin/busybox          Debian's busybox-static, with a symlink for every
#                         applet where `busybox --list-full` puts it
#                         (/bin, /sbin, /usr/bin, /usr/sbin), and in /bin
#                         for the applets scripts name as /bin/APPLET
#   /tmp (mode 1777), /etc/hostname, /etc/passwd and /etc/group (root and
#                         nobody); every file owned by root
# Extra HOST_PATH arguments are copied to GUEST_PATH (default: /NAME; a
# GUEST_PATH ending in "/" is a directory to put the file in); a HOST_PATH
# that is a directory brings its whole tree.
#
# Environment: ARCH (x86_64, the default, or ppc64le), SWITCHYARD_USER_BUILD
# (default build/user; build/ppc64le/user for ppc64le), BUSYBOX (default
# /bin/busybox; for ppc64le build/ppc64le/busybox/bin/busybox, which
# scripts/fetch-ppc64le-busybox puts there), BUSYBOX_APPLETS (a file with
# what `$BUSYBOX --list-full` prints, for a busybox this host cannot run;
# for ppc64le build/ppc64le/busybox/applets, from the same script).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
case ${ARCH:-x86_64} in
x86_64)
	user_build=${SWITCHYARD_USER_BUILD:-$root/build/user}
	busybox=${BUSYBOX:-/bin/busybox}
	busybox_applets=${BUSYBOX_APPLETS:-}
	busybox_hint="install busybox-static"
	;;
ppc64le)
	user_build=${SWITCHYARD_USER_BUILD:-$root/build/ppc64le/user}
	busybox=${BUSYBOX:-$root/build/ppc64le/busybox/bin/busybox}
	busybox_applets=${BUSYBOX_APPLETS:-$root/build/ppc64le/busybox/applets}
	busybox_hint="run scripts/fetch-ppc64le-busybox"
	;;
*)
	echo "mkinitrd: ARCH=$ARCH: the initramfs is built for x86_64 and ppc64le" >&2
	exit 1
	;;
esac

# Applets that also get a /bin symlink wherever busybox puts them (older
# scripts and tests name them /bin/APPLET).
applets="sh ls cat wc echo sort head tail grep sed tr true false printf
	mkdir rmdir rm test [ seq cp mv ln touch sleep uname env expr basename
	dirname cut uniq cmp diff xargs find stat date od hexdump kill ps id
	yes dd chmod pwd readlink awk tee sync
	su chown chgrp whoami"

die() {
	echo "mkinitrd: $*" >&2
	exit 1
}

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
	sed -n '2,/^set -e/p' "$0" | sed -e 's/^# \{0,1\}//' -e '/^set -e/d'
	[[ $# -ge 1 ]] && exit 0
	exit 2
fi
out=$1
shift

[[ -x $user_build/init ]] || die "$user_build/init is missing (run: make -C user${ARCH:+ ARCH=$ARCH})"
[[ -x $busybox ]] || die "$busybox is missing ($busybox_hint)"
if readelf -l "$busybox" 2>/dev/null | grep -q 'Requesting program interpreter'; then
	die "$busybox is dynamically linked; $busybox_hint"
fi
[[ -z $busybox_applets || -s $busybox_applets ]] ||
	die "$busybox_applets is missing ($busybox_hint)"

stage=$(mktemp -d "${TMPDIR:-/tmp}/switchyard-initrd.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,tests,bench,tools,etc,tmp}
chmod 1777 "$stage/tmp"

install -m 0755 "$user_build/init" "$stage/init"

# copy_programs FROM TO: every executable regular file of FROM into TO.
copy_programs() {
	local from=$1 to=$2 f
	[[ -d $from ]] || return 0
	for f in "$from"/*; do
		[[ -f $f && -x $f ]] || continue
		install -m 0755 "$f" "$to/"
	done
}
copy_programs "$user_build/tests" "$stage/tests"
copy_programs "$user_build/bench" "$stage/bench"
copy_programs "$user_build/tools" "$stage/tools"
# Linux's rseq selftests (scripts/build-rseq-selftests), which
# tests/rseq_selftests runs; absent when linux-source-6.1 was not there.
mkdir -p "$stage/linux-selftests/rseq"
copy_programs "$user_build/linux-selftests/rseq" "$stage/linux-selftests/rseq"
# And the futex ones (scripts/build-futex-selftests) for tests/futex_selftests.
mkdir -p "$stage/linux-selftests/futex"
copy_programs "$user_build/linux-selftests/futex" "$stage/linux-selftests/futex"
# And the powerpc context_switch benchmark (scripts/build-powerpc-selftests).
if [[ -d $user_build/linux-selftests/powerpc ]]; then
	mkdir -p "$stage/linux-selftests/powerpc"
	copy_programs "$user_build/linux-selftests/powerpc" "$stage/linux-selftests/powerpc"
fi

# The dynamically linked test helpers and what they need to run.
mkdir -p "$stage/dyn"
deps=()
if [[ -d $user_build/dyn ]]; then
	for f in "$user_build"/dyn/*; do
		[[ -f $f ]] || continue
		install -m 0755 "$f" "$stage/dyn/"
		[[ -x $f && $f != *.so ]] || continue
		list=$("$root/scripts/dyn-deps" "$f") || die "cannot pack what $f needs"
		[[ -n $list ]] && mapfile -t -O "${#deps[@]}" deps <<<"$list"
	done
fi

# Shell test scripts are not executable: init runs them with busybox sh.
# Their shared KTAP helper (user/lib/ktap.sh), which they source from ../lib.
install -D -m 0644 "$root/user/lib/ktap.sh" "$stage/lib/ktap.sh"
for f in "$root"/user/tests/*.sh "$user_build"/tests/*.sh; do
	[[ -f $f ]] && install -m 0644 "$f" "$stage/tests/"
done
(cd "$stage/tests" && find . -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%P\n' |
	LC_ALL=C sort >.list)

install -m 0755 "$busybox" "$stage/bin/busybox"
mkdir -p "$stage"/{sbin,usr/bin,usr/sbin}
if [[ -n $busybox_applets ]]; then
	cp "$busybox_applets" "$stage/.applets"
else
	"$busybox" --list-full >"$stage/.applets" || die "$busybox --list-full failed"
fi
while read -r path; do
	[[ -n $path && $path != */busybox ]] || continue
	mkdir -p "$stage/$(dirname "$path")"
	ln -sf /bin/busybox "$stage/$path"
done <"$stage/.applets"
rm "$stage/.applets"
for a in $applets; do
	ln -sf /bin/busybox "$stage/bin/$a"
done

echo switchyard >"$stage/etc/hostname"
# Users for tests that drop privileges (busybox su -s /bin/sh nobody).
printf '%s\n' 'root:x:0:0:root:/:/bin/sh' 'nobody:x:65534:65534:nobody:/:/bin/sh' \
	>"$stage/etc/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$stage/etc/group"

# Extra files: HOST_PATH[:GUEST_PATH].
for spec in "${deps[@]}" "$@"; do
	host=${spec%%:*}
	guest=/$(basename "$host")
	[[ $spec == *:* ]] && guest=${spec#*:}
	[[ $guest == /* ]] || guest=/$guest
	[[ $guest == */ ]] && guest=$guest$(basename "$host")
	[[ -e $host ]] || die "$host does not exist"
	mkdir -p "$stage$(dirname "$guest")"
	cp -a "$host" "$stage$guest"
done

# Names without a leading "./", sorted, owned by root, device-independent.
mkdir -p "$(dirname "$out")"
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
(cd "$stage" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --reproducible --quiet) >"$out_abs.tmp"
mv "$out_abs.tmp" "$out_abs"
