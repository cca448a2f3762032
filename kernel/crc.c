// SPDX-License-Identifier: GPL-2.0
/*
 * crc.c - the CRC-32 behind the ICRC (proto/icrc.h).
 *
 * The library's crc32_le() is table driven on x86.  The crypto API's
 * "crc32" has a PCLMULQDQ implementation (crc32-pclmul) that is several
 * times faster on CPUs that have the instruction, and every packet's ICRC
 * is computed once by the sender and once by the receiver.  So at module
 * load sroce asks the crypto API for "crc32" and uses it when what it gets
 * is not the generic one; otherwise crc32_le().  Both keep the same running
 * state (the CRC register, not inverted), so they mix freely.
 *
 * Concurrency: the transform is set at init and only read after; each
 * call has its own descriptor on the stack.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/err.h>
#include <linux/string.h>

#include "crc.h"
#include "proto/env.h"

static struct crypto_shash *sroce_crc_tfm;

u32 sroce_crc32_le(u32 crc, const void *p, size_t len)
{
	struct crypto_shash *tfm = sroce_crc_tfm;
	/* A descriptor with room for the crc32 drivers' u32 context. */
	struct {
		struct shash_desc desc;
		u32 ctx;
	} d;
	struct shash_desc *desc = &d.desc;

	if (!tfm)
		return crc32_le(crc, p, len);
	desc->tfm = tfm;
	/* The crc32 drivers' context is the running CRC register. */
	*(u32 *)shash_desc_ctx(desc) = crc;
	if (unlikely(crypto_shash_update(desc, p, len)))
		return crc32_le(crc, p, len);
	return *(u32 *)shash_desc_ctx(desc);
}

/* Does @tfm agree with crc32_le() on unaligned pieces of all lengths? */
static bool __init sroce_crc_selftest(struct crypto_shash *tfm)
{
	static u8 data[512] __initdata;
	unsigned int off, len, i;
	bool ok = true;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 131 + 7;
	sroce_crc_tfm = tfm;
	for (off = 0; off < 16 && ok; off++)
		for (len = 0; len + off <= sizeof(data) && ok; len += 37)
			ok = sroce_crc32_le(off * 0x1010101U, data + off,
					    len) ==
			     crc32_le(off * 0x1010101U, data + off, len);
	sroce_crc_tfm = NULL;
	return ok;
}

int __init sroce_crc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm))
		return 0; /* crc32_le() it is */
	if (crypto_shash_descsize(tfm) != sizeof(u32) ||
	    !strcmp(crypto_shash_driver_name(tfm), "crc32-generic")) {
		crypto_free_shash(tfm);
		return 0;
	}
	if (!sroce_crc_selftest(tfm)) {
		pr_err("sroce: %s disagrees with crc32_le, not used\n",
		       crypto_shash_driver_name(tfm));
		crypto_free_shash(tfm);
		return 0;
	}
	pr_info("sroce: ICRC with %s\n", crypto_shash_driver_name(tfm));
	sroce_crc_tfm = tfm;
	return 0;
}

void sroce_crc_exit(void)
{
	crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
}
