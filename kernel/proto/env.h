/* SPDX-License-Identifier: GPL-2.0 */
/*
 * env.h - the one environment header of the pure protocol core.
 *
 * Everything under kernel/proto/ includes this file and nothing else from
 * the outside world.  In the kernel it pulls in the real headers; in the
 * userspace unit tests (tests/unit/) it pulls in a shim that provides the
 * same names (u8..u64, __be16/__be32/__be64, byte order helpers, crc32_le
 * and sroce_crc32_le,
 * static_assert, likely/unlikely, div_u64, INT_MAX), so the same .c files
 * build in both.
 *
 * The core never takes a lock, allocates, sleeps, reads the clock or logs:
 * time and state are arguments.
 */
#ifndef _SROCE_PROTO_ENV_H
#define _SROCE_PROTO_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <asm/byteorder.h>
#include <linux/crc32.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
/* crc32_le()'s contract, accelerated where the CPU allows (kernel/crc.c). */
u32 sroce_crc32_le(u32 crc, const void *p, size_t len);
#else
#include "sroce_shim.h"
#endif

#endif /* _SROCE_PROTO_ENV_H */
