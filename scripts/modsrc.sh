# SPDX-License-Identifier: GPL-2.0
#
# modsrc.sh - sourced by check-debug.sh and check-kernel.sh, which build
# sroce.ko against another kernel than Debian's 6.1 in a copy of its
# sources.
#
# copy_module_sources DEST PATH...: copy PATHs (relative to the tree's
# top, the current directory) into DEST, sources only: the tree's objects
# and generated files (compat/features.h, the kbuild command files)
# belong to the build against Debian's kernel.

copy_module_sources() {
	local dest=$1
	shift
	mkdir -p "$dest" &&
		rsync -a --delete --exclude='*.o' --exclude='*.ko' \
			--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
			--exclude='*.a' --exclude=modules.order \
			--exclude=Module.symvers --exclude=features.h \
			"$@" "$dest/"
}
