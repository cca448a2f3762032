// SPDX-License-Identifier: GPL-2.0
/*
 * crc32.c - table-driven reflected CRC-32 for the unit tests, standing in
 * for the kernel's lib/crc32.c crc32_le().
 */
#include "sroce_shim.h"

#define CRC32_POLY_LE 0xedb88320U

static u32 crc32_table[256];

/* Built before main() so tests never see a half-filled table. */
__attribute__((constructor)) static void crc32_table_init(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY_LE : c >> 1;
		crc32_table[i] = c;
	}
}

u32 crc32_le(u32 crc, const void *p, size_t len)
{
	const u8 *b = p;

	while (len--)
		crc = crc32_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}
