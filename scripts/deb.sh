#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh - what `make deb` runs: the Debian packages of debian/, built with
# dpkg-buildpackage from a clean copy of the tree, into build/deb/:
#   sroce-dkms_<version>_all.deb
#   ibverbs-providers-sroce_<version>_amd64.deb
#   sroce-tools_<version>_all.deb
# then lintian on them when it is installed.
#
# The copy holds what git tracks plus untracked files git does not ignore
# (so uncommitted edits are packaged, objects and generated files are not);
# outside a git checkout, the tree less build/ and objects.  Building in a
# copy leaves the tree's own build (kernel/sroce.ko, ...) alone.

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$top"
out=$top/build/deb
ver=$(dpkg-parsechangelog -S Version)
src=$out/sroce-$ver

missing=()
for p in dpkg-dev debhelper dh-dkms libibverbs-dev rsync fakeroot; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deb: missing packages: ${missing[*]} (scripts/deps.sh deb)" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -c -o --exclude-standard |
		rsync -a --from0 --files-from=- --ignore-missing-args . "$src/"
else
	rsync -a --exclude=/build --exclude='*.o' --exclude='*.ko' \
		--exclude='*.so' --exclude=features.h . "$src/"
fi

(cd "$src" && dpkg-buildpackage -b -uc -us)
rm -rf "$src"
ls -l "$out"/*.deb

if command -v lintian >/dev/null; then
	lintian --fail-on error,warning --info "$out"/*.changes
else
	echo "deb: lintian is not installed: not checked (apt-get install lintian)"
fi
