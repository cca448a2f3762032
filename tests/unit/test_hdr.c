// SPDX-License-Identifier: GPL-2.0
/*
 * test_hdr.c - round trip of every header field, with a neighbour check.
 *
 * Each field is described here by hand by its position in IBA bit
 * numbering (bit 0 = most significant bit of the first byte) and width.  A
 * reference bit writer computes what the whole header must look like after
 * a set; the codec's setter must produce exactly that, on buffers filled
 * with several patterns, so a setter that touches one bit of a neighbour
 * fails.  The getter must agree with the reference reader on random bytes.
 */
#include <stdlib.h>

#include "ktest.h"
#include "hdr.h"

struct field {
	const char *name;
	size_t hdr_len; /* bytes of the header the field lives in */
	unsigned int bit; /* first bit, IBA numbering */
	unsigned int width;
	void (*set)(void *h, u64 v);
	u64 (*get)(const void *h);
};

static void ref_set(u8 *buf, unsigned int bit, unsigned int width, u64 v)
{
	for (unsigned int i = 0; i < width; i++) {
		unsigned int b = bit + i;
		u8 m = 0x80 >> (b % 8);

		if ((v >> (width - 1 - i)) & 1)
			buf[b / 8] |= m;
		else
			buf[b / 8] &= ~m;
	}
}

static u64 ref_get(const u8 *buf, unsigned int bit, unsigned int width)
{
	u64 v = 0;

	for (unsigned int i = 0; i < width; i++) {
		unsigned int b = bit + i;

		v = (v << 1) | ((buf[b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

/* Wrappers with one signature so the table below can drive every codec. */
#define FIELD(hdr, fld, type, bitpos, w)                                  \
	static void set_##hdr##_##fld(void *h, u64 v)                     \
	{                                                                 \
		sroce_##hdr##_set_##fld(h, (type)v);                      \
	}                                                                 \
	static u64 get_##hdr##_##fld(const void *h)                       \
	{                                                                 \
		return sroce_##hdr##_##fld(h);                            \
	}                                                                 \
	static const struct field f_##hdr##_##fld = {                     \
		#hdr "." #fld,	   sizeof(struct sroce_##hdr), bitpos, w, \
		set_##hdr##_##fld, get_##hdr##_##fld,                     \
	}

FIELD(bth, opcode, u8, 0, 8);
FIELD(bth, se, bool, 8, 1);
FIELD(bth, migreq, bool, 9, 1);
FIELD(bth, padcnt, u8, 10, 2);
FIELD(bth, tver, u8, 12, 4);
FIELD(bth, pkey, u16, 16, 16);
FIELD(bth, fecn, bool, 32, 1);
FIELD(bth, becn, bool, 33, 1);
FIELD(bth, resv6a, u8, 34, 6);
FIELD(bth, destqp, u32, 40, 24);
FIELD(bth, ackreq, bool, 64, 1);
FIELD(bth, psn, u32, 72, 24);
FIELD(reth, va, u64, 0, 64);
FIELD(reth, rkey, u32, 64, 32);
FIELD(reth, len, u32, 96, 32);
FIELD(aeth, syndrome, u8, 0, 8);
FIELD(aeth, msn, u32, 8, 24);
FIELD(atmeth, va, u64, 0, 64);
FIELD(atmeth, rkey, u32, 64, 32);
FIELD(atmeth, swap, u64, 96, 64);
FIELD(atmeth, compare, u64, 160, 64);
FIELD(atmack, orig, u64, 0, 64);
FIELD(deth, qkey, u32, 0, 32);
FIELD(deth, srcqp, u32, 40, 24);
FIELD(ieth, rkey, u32, 0, 32);

/* ImmDt is kept in wire order: convert at the wrapper. */
static void set_immdt_imm(void *h, u64 v)
{
	sroce_immdt_set_imm(h, cpu_to_be32((u32)v));
}

static u64 get_immdt_imm(const void *h)
{
	return be32_to_cpu(sroce_immdt_imm(h));
}

static const struct field f_immdt_imm = {
	"immdt.imm",   sizeof(struct sroce_immdt), 0, 32, set_immdt_imm,
	get_immdt_imm,
};

static const struct field *const fields[] = {
	&f_bth_opcode,	   &f_bth_se,	   &f_bth_migreq,  &f_bth_padcnt,
	&f_bth_tver,	   &f_bth_pkey,	   &f_bth_fecn,	   &f_bth_becn,
	&f_bth_resv6a,	   &f_bth_destqp,  &f_bth_ackreq,  &f_bth_psn,
	&f_reth_va,	   &f_reth_rkey,   &f_reth_len,	   &f_aeth_syndrome,
	&f_aeth_msn,	   &f_atmeth_va,   &f_atmeth_rkey, &f_atmeth_swap,
	&f_atmeth_compare, &f_atmack_orig, &f_deth_qkey,   &f_deth_srcqp,
	&f_immdt_imm,	   &f_ieth_rkey,
};

static u64 width_mask(unsigned int width)
{
	return width == 64 ? ~0ULL : (1ULL << width) - 1;
}

/*
 * Headers sit 4-byte but not 8-byte aligned on the wire (after a 20-byte
 * IPv4 header, UDP and BTH): place them at offset 4 of an 8-aligned buffer.
 */
struct wirebuf {
	u64 align;
	u8 bytes[4 + 32];
};

static void check_set(struct ktest *t, const struct field *f, u8 fill, u64 v)
{
	struct wirebuf w, ref;
	u8 *h = w.bytes + 4;
	bool is_bool = f->set == set_bth_se || f->set == set_bth_migreq ||
		       f->set == set_bth_fecn || f->set == set_bth_becn ||
		       f->set == set_bth_ackreq;
	u64 want = is_bool ? !!v : v & width_mask(f->width);

	memset(w.bytes, fill, sizeof(w.bytes));
	memcpy(ref.bytes, w.bytes, sizeof(w.bytes));
	ref_set(ref.bytes + 4, f->bit, f->width, want);

	f->set(h, v);
	if (memcmp(w.bytes, ref.bytes, sizeof(w.bytes)))
		ktest_fail(t, __FILE__, __LINE__,
			   "%s set 0x%llx on 0x%02x: header differs from ref",
			   f->name, (unsigned long long)v, fill);
	KTEST_EXPECT_EQ(t, f->get(h), want);
}

static const u8 fills[] = { 0x00, 0xff, 0xa5, 0x5a };

static void hdr_set_neighbours(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct field *f = fields[i];
		u64 m = width_mask(f->width);
		const u64 vals[] = { 0,
				     m,
				     1,
				     m >> 1,
				     0x0123456789abcdefULL & m,
				     0xfedcba9876543210ULL & m };

		for (size_t p = 0; p < ARRAY_SIZE(fills); p++)
			for (size_t k = 0; k < ARRAY_SIZE(vals); k++)
				check_set(t, f, fills[p], vals[k]);
	}
}

/* Setters must truncate values wider than the field, not spill over. */
static void hdr_set_masks_input(struct ktest *t)
{
	static const struct field *const narrow[] = {
		&f_bth_padcnt, &f_bth_tver, &f_bth_resv6a, &f_bth_destqp,
		&f_bth_psn,    &f_aeth_msn, &f_deth_srcqp,
	};

	for (size_t i = 0; i < ARRAY_SIZE(narrow); i++)
		for (size_t p = 0; p < ARRAY_SIZE(fills); p++) {
			check_set(t, narrow[i], fills[p], 0xffffffffULL);
			check_set(t, narrow[i], fills[p], 0xa5a5a5a5ULL);
		}
}

static void hdr_get_random(struct ktest *t)
{
	struct wirebuf w;
	u8 *h = w.bytes + 4;

	srandom(1);
	for (int round = 0; round < 200; round++) {
		for (size_t b = 0; b < sizeof(w.bytes); b++)
			w.bytes[b] = random() & 0xff;
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
			const struct field *f = fields[i];

			KTEST_EXPECT_EQ(t, f->get(h),
					ref_get(h, f->bit, f->width));
		}
	}
}

/* The fields of each header must tile it (minus reserved bits) exactly. */
static void hdr_fields_cover(struct ktest *t)
{
	static const struct {
		const char *prefix;
		size_t len;
		unsigned int reserved_bits;
	} hdrs[] = {
		{ "bth.", SROCE_BTH_LEN, 7 }, /* resv7 */
		{ "reth.", SROCE_RETH_LEN, 0 },
		{ "aeth.", SROCE_AETH_LEN, 0 },
		{ "atmeth.", SROCE_ATMETH_LEN, 0 },
		{ "atmack.", SROCE_ATMACK_LEN, 0 },
		{ "deth.", SROCE_DETH_LEN, 8 }, /* reserved before SrcQP */
		{ "immdt.", SROCE_IMMDT_LEN, 0 },
		{ "ieth.", SROCE_IETH_LEN, 0 },
	};

	for (size_t h = 0; h < ARRAY_SIZE(hdrs); h++) {
		unsigned int bits = 0;

		for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
			const struct field *f = fields[i];

			if (strncmp(f->name, hdrs[h].prefix,
				    strlen(hdrs[h].prefix)))
				continue;
			KTEST_EXPECT_EQ(t, f->hdr_len, hdrs[h].len);
			KTEST_EXPECT(t, f->bit + f->width <= hdrs[h].len * 8);
			bits += f->width;
		}
		KTEST_EXPECT_EQ(t, bits + hdrs[h].reserved_bits,
				hdrs[h].len * 8);
	}
}

/* A whole BTH built with the setters, against bytes written by hand. */
static void hdr_bth_bytes(struct ktest *t)
{
	static const u8 want[SROCE_BTH_LEN] = {
		0x04, 0xb0, 0xff, 0xff, 0x40, 0x00,
		0x00, 0xd2, 0x80, 0x12, 0x34, 0x56,
	};
	struct sroce_bth bth;

	memset(&bth, 0, sizeof(bth));
	sroce_bth_set_opcode(&bth, 0x04);
	sroce_bth_set_se(&bth, true);
	sroce_bth_set_padcnt(&bth, 3);
	sroce_bth_set_pkey(&bth, SROCE_DEFAULT_PKEY);
	sroce_bth_set_becn(&bth, true);
	sroce_bth_set_destqp(&bth, 0xd2);
	sroce_bth_set_ackreq(&bth, true);
	sroce_bth_set_psn(&bth, 0x123456);
	KTEST_EXPECT(t, !memcmp(&bth, want, sizeof(want)));

	KTEST_EXPECT_EQ(t, sroce_bth_pad_for(0), 0);
	KTEST_EXPECT_EQ(t, sroce_bth_pad_for(1), 3);
	KTEST_EXPECT_EQ(t, sroce_bth_pad_for(5), 3);
	KTEST_EXPECT_EQ(t, sroce_bth_pad_for(6), 2);
	KTEST_EXPECT_EQ(t, sroce_bth_pad_for(7), 1);
	KTEST_EXPECT_EQ(t, sroce_bth_pad_for(4096), 0);
}

/* sroce_bth_init() equals the setters applied to a zeroed BTH. */
static void hdr_bth_init(struct ktest *t)
{
	srandom(2);
	for (int round = 0; round < 1000; round++) {
		struct sroce_bth a, b;
		u8 op = random(), pad = random();
		bool se = random() & 1, ackreq = random() & 1;
		u16 pkey = random();
		u32 qpn = random(), psn = random();

		memset(&a, 0xa5, sizeof(a));
		sroce_bth_init(&a, op, se, pad, pkey, qpn, ackreq, psn);
		memset(&b, 0, sizeof(b));
		sroce_bth_set_opcode(&b, op);
		sroce_bth_set_se(&b, se);
		sroce_bth_set_padcnt(&b, pad);
		sroce_bth_set_pkey(&b, pkey);
		sroce_bth_set_destqp(&b, qpn);
		sroce_bth_set_ackreq(&b, ackreq);
		sroce_bth_set_psn(&b, psn);
		KTEST_EXPECT(t, !memcmp(&a, &b, sizeof(a)));
	}
}

static const struct ktest_case hdr_cases[] = {
	KTEST_CASE(hdr_set_neighbours), KTEST_CASE(hdr_set_masks_input),
	KTEST_CASE(hdr_get_random),	KTEST_CASE(hdr_fields_cover),
	KTEST_CASE(hdr_bth_bytes),	KTEST_CASE(hdr_bth_init),
};

KTEST_SUITE(hdr);
