#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make style: checkpatch --strict over the kernel sources and clang-format
# (kernel style, .clang-format) over kernel and provider sources.
# checkpatch.pl and the kernel's .clang-format are
# extracted from Debian's linux-source package into build/ (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
cache=$top/build/checkpatch
rc=0

find_checkpatch() {
	local d
	if [ ! -x "$cache/scripts/checkpatch.pl" ] || [ ! -f "$cache/.clang-format" ]; then
		mkdir -p "$cache"
		local deb
		deb=$(ls "$top"/build/linux-source-*.deb 2>/dev/null | head -n 1 || true)
		if [ -z "$deb" ]; then
			(cd "$top/build" && apt-get download -q linux-source-6.1 >/dev/null)
			deb=$(ls "$top"/build/linux-source-*.deb | head -n 1)
		fi
		local tmp
		tmp=$(mktemp -d)
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
		xz -dc "$tmp"/usr/src/linux-source-*.tar.xz | tar -x -C "$tmp" --wildcards \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' '*/.clang-format'
		cp -r "$tmp"/linux-source-*/scripts "$cache/"
		cp "$tmp"/linux-source-*/.clang-format "$cache/"
		rm -rf "$tmp"
	fi
	echo "$cache/scripts/checkpatch.pl"
}

cp=$(find_checkpatch)
ksrc=$(git ls-files 'kernel/*.c' 'kernel/*.h' 'include/*.h')
echo "# checkpatch --strict"
# shellcheck disable=SC2086
if ! "$cp" --strict --no-tree --terse --show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
	--file $ksrc; then
	rc=1
fi

echo "# clang-format (kernel style)"
csrc=$(git ls-files 'kernel/*.c' 'kernel/*.h' 'provider/*.c' 'provider/*.h' 'include/*.h' 'tests/unit/*.c' 'tests/fuzz/*.c' 'tests/fuzz/*.h')
for f in $csrc; do
	if ! clang-format --style=file:"$cache/.clang-format" "$f" | diff -q - "$f" >/dev/null; then
		echo "clang-format: $f differs (clang-format -i --style=file:$cache/.clang-format $f)"
		rc=1
	fi
done
exit $rc
