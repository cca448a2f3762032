/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_shim.h - userspace stand-ins for the kernel names kernel/proto/ uses.
 *
 * Included only through kernel/proto/env.h when __KERNEL__ is not defined.
 * Byte-order types come from the uapi <linux/types.h>, which marks them
 * __bitwise under sparse (__CHECKER__), so `sparse` over the unit tests
 * checks endianness the same way `make C=2` does in the kernel build.
 */
#ifndef _SROCE_SHIM_H
#define _SROCE_SHIM_H

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#ifdef __CHECKER__
#define __force __attribute__((force))
#else
#define __force
#endif

#define __packed __attribute__((__packed__))
#define __printf(a, b) __attribute__((__format__(__printf__, a, b)))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define U8_MAX ((u8)~0U)
#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}
#define sizeof_field(T, m) sizeof(((T *)0)->m)

#define cpu_to_be16(x) ((__force __be16)htobe16(x))
#define cpu_to_be32(x) ((__force __be32)htobe32(x))
#define cpu_to_be64(x) ((__force __be64)htobe64(x))
#define be16_to_cpu(x) be16toh((__force u16)(__be16)(x))
#define be32_to_cpu(x) be32toh((__force u32)(__be32)(x))
#define be64_to_cpu(x) be64toh((__force u64)(__be64)(x))
#define cpu_to_le32(x) ((__force __le32)htole32(x))
#define le32_to_cpu(x) le32toh((__force u32)(__le32)(x))

/*
 * Reflected CRC-32 with the Ethernet polynomial, with the kernel's
 * semantics: no pre- or post-inversion (callers pass ~0 and invert).
 */
u32 crc32_le(u32 crc, const void *p, size_t len);
/* The module picks an accelerated CRC-32 with this contract (crc.c). */
static inline u32 sroce_crc32_le(u32 crc, const void *p, size_t len)
{
	return crc32_le(crc, p, len);
}

#endif /* _SROCE_SHIM_H */
