/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what every libFuzzer target of tests/fuzz/ shares: an assertion
 * that turns a broken invariant into a finding, and a reader that takes
 * fixed-size values from the front of the input (zeros once it runs out,
 * so every input is a valid one).
 *
 * Each target is one fuzz_*.c built with the kernel/proto/ sources it
 * tests, against the same shim as tests/unit (tests/unit/proto.mk).
 */
#ifndef _SROCE_FUZZ_H
#define _SROCE_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#include "env.h"

/* A broken invariant: say which and abort (libFuzzer saves the input). */
#define FUZZ_ASSERT(cond)                                                \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

struct fuzz_in {
	const u8 *p;
	size_t n;
};

static inline void fuzz_in_init(struct fuzz_in *in, const u8 *data, size_t size)
{
	in->p = data;
	in->n = size;
}

static inline bool fuzz_in_empty(const struct fuzz_in *in)
{
	return !in->n;
}

/* @n bytes, big-endian, as an integer; missing bytes read as 0. */
static inline u64 fuzz_get(struct fuzz_in *in, unsigned int n)
{
	u64 v = 0;

	while (n--) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

static inline u8 fuzz_u8(struct fuzz_in *in)
{
	return (u8)fuzz_get(in, 1);
}

static inline u16 fuzz_u16(struct fuzz_in *in)
{
	return (u16)fuzz_get(in, 2);
}

static inline u32 fuzz_u32(struct fuzz_in *in)
{
	return (u32)fuzz_get(in, 4);
}

static inline u64 fuzz_u64(struct fuzz_in *in)
{
	return fuzz_get(in, 8);
}

/* A value in [lo, hi] (hi >= lo) from @n input bytes. */
static inline u64 fuzz_range(struct fuzz_in *in, unsigned int n, u64 lo, u64 hi)
{
	u64 v = fuzz_get(in, n);

	if (lo == 0 && hi == U64_MAX)
		return v;
	return lo + v % (hi - lo + 1);
}

/* Copy up to @len bytes into @buf, zero-filling what the input lacks. */
static inline void fuzz_bytes(struct fuzz_in *in, void *buf, size_t len)
{
	size_t n = in->n < len ? in->n : len;

	memcpy(buf, in->p, n);
	memset((u8 *)buf + n, 0, len - n);
	in->p += n;
	in->n -= n;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#endif /* _SROCE_FUZZ_H */
