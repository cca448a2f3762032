#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (once) and print the directory of a debug kernel
# for `make check-debug`: Debian's linux-source-6.1, x86_64 defconfig +
# kvm_guest.config + tests/vm/debug.config (KASAN, lockdep, UBSAN, object
# debugging, kmemleak, the lockup detectors, and what the tests load).
#
#   scripts/debug-kernel.sh            build if needed, print the directory
#   scripts/debug-kernel.sh --path     print the directory, build nothing
#                                      (exit 1 if it is not built)
#
# The result is cached outside the clone, in
#   ${SROCE_CACHE:-~/.cache/sroce}/debug-kernel/<source version>-<key>/
# where <key> hashes the fragment and the build recipe below, so a second
# run (and CI's fresh clone on the same machine) reuses it.  It holds:
#   bzImage            the kernel tests/vm/vm-run boots (--kernel)
#   modroot/lib/modules/<release>/   its modules (vm-run --modules)
#   obj/               the build tree sroce.ko is built against (KDIR)
#   src/               the source tree obj/ refers to
#   release            the kernel release string
#   build-seconds      how long the build took on this machine
#
# The build runs at the lowest CPU and I/O priority.

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
frag=$top/tests/vm/debug.config
pkg=linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${SROCE_CACHE:-${HOME:-/root}/.cache/sroce}/debug-kernel
me=debug-kernel

die() {
	echo "$me: $*" >&2
	exit 2
}

only_path=0
[ "${1:-}" = --path ] && only_path=1

srcver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
if [ -z "$srcver" ] || [ ! -r "$tarball" ]; then
	[ $only_path = 1 ] && exit 1
	die "$pkg is not installed (scripts/deps.sh debug installs it)"
fi

# The recipe version: bump it when the build steps below change.
recipe=1
key=$( {
	echo "recipe $recipe"
	echo "source $srcver"
	gcc --version | head -n 1
	cat "$frag"
} | sha256sum | cut -c1-12)
dir=$cache/$srcver-$key

if [ -e "$dir/ok" ]; then
	echo "$dir"
	exit 0
fi
[ $only_path = 1 ] && exit 1

for t in flex bison bc /usr/include/libelf.h /usr/include/openssl/ssl.h; do
	command -v $t >/dev/null || [ -e $t ] ||
		die "$t missing (scripts/deps.sh debug installs it)"
done

mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
	echo "$me: another build is running; waiting for it" >&2
	flock 9
fi
if [ -e "$dir/ok" ]; then
	echo "$dir"
	exit 0
fi

start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
log=$dir/build.log
echo "$me: building the debug kernel in $dir (log: $log)" >&2

low() { nice -n 19 ionice -c 3 "$@"; }

xz -dc "$tarball" | tar -x -C "$dir"
mv "$dir/linux-source-6.1" "$dir/src"

kmake() {
	low make -C "$dir/src" O="$dir/obj" LOCALVERSION=-sroce-debug \
		KBUILD_BUILD_TIMESTAMP="$srcver" KBUILD_BUILD_USER=sroce \
		KBUILD_BUILD_HOST=sroce "$@"
}

{
	kmake defconfig
	kmake kvm_guest.config
	"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" \
		"$dir/obj/.config" "$frag"
	kmake olddefconfig
} >>"$log" 2>&1 || die "configuration failed: see $log"

# Every y or m of the fragment must have survived olddefconfig (a symbol
# whose dependencies are missing is silently dropped).
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=y | CONFIG_*=m | CONFIG_*=[0-9]*)
		sym=${line%%=*}
		grep -qx "$line" "$dir/obj/.config" || {
			echo "$me: $line did not survive: $(grep "^$sym=\|# $sym " "$dir/obj/.config" || echo unset)" >&2
			missing=1
		}
		;;
	esac
done <"$frag"
[ $missing = 0 ] || die "the fragment does not apply to $srcver"

kmake -j"$(nproc)" bzImage modules >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "build failed: see $log"; }
kmake INSTALL_MOD_PATH="$dir/modroot" modules_install >>"$log" 2>&1 ||
	die "modules_install failed: see $log"
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/bzImage"
cat "$dir/obj/include/config/kernel.release" >"$dir/release"
echo $(($(date +%s) - start)) >"$dir/build-seconds"
touch "$dir/ok"

# Older builds of this source with other fragments are not needed again.
for d in "$cache"/*; do
	[ -d "$d" ] && [ "$d" != "$dir" ] && rm -rf "$d"
done
echo "$me: built $(cat "$dir/release") in $(cat "$dir/build-seconds") s" >&2
echo "$dir"
