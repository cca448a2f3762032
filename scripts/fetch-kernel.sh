#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh - fetch (once) Debian's newest kernel of a series from
# bookworm-backports, unpacked into a cache outside the clone, without
# installing anything, and print what a build and tests/vm/vm-run need.
#
#   scripts/fetch-kernel.sh [SERIES]          fetch if needed (default 6.12)
#   scripts/fetch-kernel.sh --path [SERIES]   print only, fetch nothing
#                                             (exit 1 if none is cached)
#   scripts/fetch-kernel.sh --refresh [SERIES]
#                                             ask apt again for the newest
#
# Output, one VAR=value a line (`eval "$(scripts/fetch-kernel.sh)"`):
#   KVER      the kernel release (uname -r in the guest)
#   KDIR      the headers to build against (make KDIR=...)
#   KIMAGE    the kernel image       (vm-run --kernel)
#   KMODROOT  the root of its modules, lib/modules/$KVER (vm-run --modules)
#
# What it does, each step only if its result is missing: a source file for
# bookworm-backports under /etc/apt/sources.list.d/, `apt-get update`,
# `apt-get download` of the image (the signed package if it has a
# candidate, else the unsigned one: both carry vmlinuz and the modules),
# its linux-headers-*-amd64 and the -common and linux-kbuild packages the
# headers depend on, `dpkg-deb -x` of each into
#   ${SROCE_CACHE:-~/.cache/sroce}/kernels/<release>/root/
# and `depmod -b`.  A finished tree has the file ok; a second run finds
# it and does nothing (no apt-get update either: --refresh asks again).
#
# Debian's linux-headers-<release>/Makefile is one line that includes
# /usr/src/linux-headers-<abi>-common/Makefile by absolute path, which is
# not there when nothing is installed.  The unpacked copy's line is
# rewritten to the -common tree next to it in the cache, so that KDIR works
# for any make (module, tests/kmod, sparse) with no mount namespace; the
# -common tree finds the rest through its own location (abs_srctree) and
# relative links into the kbuild tree.

set -euo pipefail

me=fetch-kernel
cache=${SROCE_CACHE:-${HOME:-/root}/.cache/sroce}/kernels
srcfile=/etc/apt/sources.list.d/sroce-bookworm-backports.sources

die() {
	echo "$me: $*" >&2
	exit 2
}

only_path=0
refresh=0
while [ $# -gt 0 ]; do
	case $1 in
	--path) only_path=1; shift ;;
	--refresh) refresh=1; shift ;;
	-h|--help) sed -n '4,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
series=${1:-6.12}
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "bad series '$series' (e.g. 6.12)"
sre=${series//./\\.}

# print DIR: the variables of a finished tree.
print() {
	local d=$1 rel
	rel=$(cat "$d/release")
	echo "KVER=$rel"
	echo "KDIR=$d/root/usr/src/linux-headers-$rel"
	echo "KIMAGE=$d/root/boot/vmlinuz-$rel"
	echo "KMODROOT=$d/root"
}

# The newest finished tree of the series in the cache.
cached() {
	local d
	d=$(ls -d "$cache/$series".*/ok 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && dirname "$d"
}

if [ $refresh = 0 ] && d=$(cached); then
	print "$d"
	exit 0
fi
[ $only_path = 1 ] && exit 1
[ "$(id -u)" = 0 ] || die "needs root (apt-get update, a file in /etc/apt)"

# --- apt: the backports suite ------------------------------------------------

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || die "no VERSION_CODENAME in /etc/os-release"
if ! grep -rqsE "^[^#]*(Suites:.*|deb .*)\\b$suite-backports\\b" \
	/etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "$me: adding $suite-backports in $srcfile" >&2
	cat >"$srcfile" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $suite-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
apt-get update -qq >&2 || die "apt-get update failed"

# candidate PKG: the version apt would fetch, empty if none.
candidate() {
	apt-cache policy "$1" 2>/dev/null |
		sed -n 's/^  Candidate: \(.*\)$/\1/p' | grep -v '^(none)$' || true
}

# The newest release of the series that has an amd64 image (ABI names
# such as 6.12.118+deb12-amd64; not the cloud or rt flavours).
rel=
for p in $(apt-cache pkgnames linux-image-"$series". |
	grep -E "^linux-image-$sre\\.[0-9]+[^-]*-amd64(-unsigned)?\$" |
	sed 's/-unsigned$//' | sort -uVr); do
	if [ -n "$(candidate "$p")" ] || [ -n "$(candidate "$p-unsigned")" ]; then
		rel=${p#linux-image-}
		break
	fi
done
[ -n "$rel" ] || die "no linux-image-$series.*-amd64 in apt's lists"
image=linux-image-$rel
[ -n "$(candidate "$image")" ] || image=$image-unsigned
headers=linux-headers-$rel
[ -n "$(candidate "$headers")" ] || die "no $headers"

# -common and linux-kbuild: what the headers package depends on.
deps=$(apt-cache show "$headers=$(candidate "$headers")" |
	sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
	sed 's/^ *//; s/ .*//')
common=$(echo "$deps" | grep -E '^linux-headers-.*-common$' | head -n 1)
kbuild=$(echo "$deps" | grep -E '^linux-kbuild-' | head -n 1)
[ -n "$common" ] && [ -n "$kbuild" ] ||
	die "cannot find the -common and kbuild packages $headers depends on"

dir=$cache/$rel
if [ -e "$dir/ok" ]; then
	print "$dir"
	exit 0
fi

# --- download and unpack --------------------------------------------------------

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -e "$dir/ok" ]; then
	print "$dir"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/root"
echo "$me: downloading $image $headers $common $kbuild" >&2
# apt-get download drops privileges to _apt: give it a directory it may
# write to, and move the files into place after.
dl=$(mktemp -d /tmp/sroce-fetch-kernel.XXXXXX)
trap 'rm -rf "$dl"' EXIT
chmod 0777 "$dl"
(cd "$dl" && apt-get download -q "$image" "$headers" "$common" "$kbuild" >&2) ||
	die "apt-get download failed"
for deb in "$dl"/*.deb; do
	dpkg-deb -x "$deb" "$dir/root" || die "cannot unpack $deb"
done
(cd "$dl" && ls -- *.deb) >"$dir/packages"

kdir=$dir/root/usr/src/linux-headers-$rel
cdir=$dir/root/usr/src/$common
[ -f "$kdir/Makefile" ] && [ -f "$cdir/Makefile" ] ||
	die "the headers are not where expected ($kdir, $cdir)"
grep -q "^include /usr/src/$common/Makefile\$" "$kdir/Makefile" ||
	die "$kdir/Makefile: not the one-line include of /usr/src/$common"
sed -i "s|^include /usr/src/$common/Makefile\$|include $cdir/Makefile|" \
	"$kdir/Makefile"
[ -r "$dir/root/boot/vmlinuz-$rel" ] || die "no boot/vmlinuz-$rel in $image"
# lib/modules/<rel>/build and source point at /usr/src: the cache's instead
ln -sfn "$kdir" "$dir/root/lib/modules/$rel/build"
ln -sfn "$cdir" "$dir/root/lib/modules/$rel/source"
depmod -b "$dir/root" "$rel" || die "depmod failed"
echo "$rel" >"$dir/release"
: >"$dir/ok"
print "$dir"
