/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psn.h - 24-bit packet sequence number arithmetic (IBA 9.7.1).
 *
 * PSNs live modulo 2^24.  Two PSNs are compared through their signed
 * distance: shifting the 32-bit difference left by 8 puts bit 23 in the
 * sign bit, so the distance is correct whenever the two are less than 2^23
 * apart, which the protocol guarantees (at most 2^23 outstanding PSNs).
 */
#ifndef _SROCE_PROTO_PSN_H
#define _SROCE_PROTO_PSN_H

#include "env.h"

#define SROCE_PSN_BITS 24
#define SROCE_PSN_MOD BIT(SROCE_PSN_BITS)
#define SROCE_PSN_MAX (SROCE_PSN_MOD - 1)

static inline u32 sroce_psn_mask(u32 psn)
{
	return psn & SROCE_PSN_MAX;
}

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return sroce_psn_mask(psn + n);
}

static inline u32 sroce_psn_next(u32 psn)
{
	return sroce_psn_add(psn, 1);
}

/*
 * Signed distance from @b to @a, in [-2^23, 2^23): positive when @a is
 * after @b.  The right shift of a negative value is arithmetic in every
 * compiler the kernel supports.
 */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

/* True when @a comes strictly before @b in sequence space. */
static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/* True when @a comes strictly after @b in sequence space. */
static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

/* True when @psn lies in the window [@first, @last]. */
static inline bool sroce_psn_in_range(u32 psn, u32 first, u32 last)
{
	return !sroce_psn_before(psn, first) && !sroce_psn_after(psn, last);
}

#endif /* _SROCE_PROTO_PSN_H */
