# SPDX-License-Identifier: GPL-2.0
#
# proto.mk - the pure protocol core (kernel/proto/) as userspace code: its
# sources and the shim (tests/unit/shim/) that stands in for the kernel
# headers.  Included by tests/unit/Makefile and tests/fuzz/Makefile, which
# build the same .c files as sroce.ko with their own compiler and flags.

PROTO_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
PROTO := $(PROTO_TOP)/kernel/proto
SHIM := $(PROTO_TOP)/tests/unit/shim

PROTO_CPPFLAGS := -I$(SHIM) -I$(PROTO)
PROTO_SRCS := $(PROTO)/hdr.c $(PROTO)/opcode.c $(PROTO)/icrc.c \
	$(PROTO)/pfc.c $(PROTO)/cc.c $(PROTO)/cc_dcqcn.c $(PROTO)/cc_dctcp.c \
	$(PROTO)/cc_fixed.c $(PROTO)/cc_timely.c $(PROTO)/cc_hpcc.c \
	$(PROTO)/pma.c $(PROTO)/int.c $(PROTO)/win.c
# crc32_le() of the kernel's lib/crc32.c, for icrc.c.
SHIM_SRCS := $(SHIM)/crc32.c
PROTO_HDRS := $(wildcard $(PROTO)/*.h $(SHIM)/*.h)
