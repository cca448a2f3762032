// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_bth.c - the BTH and extension header codecs of kernel/proto/hdr.h.
 *
 * Input: the bytes of a BTH, RETH, AETH, AtomicETH, AtomicAckETH, DETH,
 * ImmDt and IETH in turn (84 bytes, as on the wire), then one 64-bit value
 * per field for its setter, then the arguments of sroce_bth_init().
 *
 * Invariants, for every field of every header:
 *  - the getter returns the field's bits as an independent big-endian
 *    reading of the wire bytes finds them;
 *  - the setter stores its argument, cut to the field's width, in exactly
 *    the field's bits: every other byte and bit is left as it was;
 *  - decode -> encode: the getters' values written with the setters into
 *    a zeroed header give back the input, except the reserved bits that
 *    have no accessor (BTH resv7, DETH bits 31:24), which come back zero;
 *  - the fields of a header cover all its bits but those reserved ones,
 *    without overlap;
 *  - sroce_bth_init() writes what the single setters write, and
 *    sroce_cnp_init() the BTH of Annex A17; sroce_bth_pad_for() pads to 4.
 */
#include "fuzz.h"
#include "hdr.h"
#include "opcode.h"

enum {
	H_BTH,
	H_RETH,
	H_AETH,
	H_ATMETH,
	H_ATMACK,
	H_DETH,
	H_IMMDT,
	H_IETH,
	H_NUM,
};

static const unsigned int hdr_len[H_NUM] = {
	[H_BTH] = SROCE_BTH_LEN,       [H_RETH] = SROCE_RETH_LEN,
	[H_AETH] = SROCE_AETH_LEN,     [H_ATMETH] = SROCE_ATMETH_LEN,
	[H_ATMACK] = SROCE_ATMACK_LEN, [H_DETH] = SROCE_DETH_LEN,
	[H_IMMDT] = SROCE_IMMDT_LEN,   [H_IETH] = SROCE_IETH_LEN,
};

#define HDR_MAX 32

/*
 * A field: a big-endian word of @size bytes at @off whose bits @mask it
 * owns.  @argmask is the width of the setter's parameter (0: bool).
 */
struct field {
	const char *name;
	unsigned int hdr, off, size;
	u64 mask, argmask;
	u64 (*get)(const void *h);
	void (*set)(void *h, u64 v);
};

/* hdr, field, offset, size, mask, parameter width */
#define FIELDS(X)                                     \
	X(bth, opcode, 0, 1, 0xff, 0xff)              \
	X(bth, se, 1, 1, 0x80, 0)                     \
	X(bth, migreq, 1, 1, 0x40, 0)                 \
	X(bth, padcnt, 1, 1, 0x30, 0xff)              \
	X(bth, tver, 1, 1, 0x0f, 0xff)                \
	X(bth, pkey, 2, 2, 0xffff, 0xffff)            \
	X(bth, fecn, 4, 4, 0x80000000, 0)             \
	X(bth, becn, 4, 4, 0x40000000, 0)             \
	X(bth, resv6a, 4, 4, 0x3f000000, 0xff)        \
	X(bth, destqp, 4, 4, 0x00ffffff, 0xffffffff)  \
	X(bth, ackreq, 8, 4, 0x80000000, 0)           \
	X(bth, psn, 8, 4, 0x00ffffff, 0xffffffff)     \
	X(reth, va, 0, 8, U64_MAX, U64_MAX)           \
	X(reth, rkey, 8, 4, 0xffffffff, 0xffffffff)   \
	X(reth, len, 12, 4, 0xffffffff, 0xffffffff)   \
	X(aeth, syndrome, 0, 4, 0xff000000, 0xff)     \
	X(aeth, msn, 0, 4, 0x00ffffff, 0xffffffff)    \
	X(atmeth, va, 0, 8, U64_MAX, U64_MAX)         \
	X(atmeth, rkey, 8, 4, 0xffffffff, 0xffffffff) \
	X(atmeth, swap, 12, 8, U64_MAX, U64_MAX)      \
	X(atmeth, compare, 20, 8, U64_MAX, U64_MAX)   \
	X(atmack, orig, 0, 8, U64_MAX, U64_MAX)       \
	X(deth, qkey, 0, 4, 0xffffffff, 0xffffffff)   \
	X(deth, srcqp, 4, 4, 0x00ffffff, 0xffffffff)  \
	X(ieth, rkey, 0, 4, 0xffffffff, 0xffffffff)

#define ACCESSORS(h, f, off, size, mask, am)      \
	static u64 get_##h##_##f(const void *p)   \
	{                                         \
		return sroce_##h##_##f(p);        \
	}                                         \
	static void set_##h##_##f(void *p, u64 v) \
	{                                         \
		sroce_##h##_set_##f(p, v);        \
	}
FIELDS(ACCESSORS)

/* ImmDt is kept in wire order: its "value" is the big-endian word. */
static u64 get_immdt_imm(const void *p)
{
	return be32_to_cpu(sroce_immdt_imm(p));
}

static void set_immdt_imm(void *p, u64 v)
{
	sroce_immdt_set_imm(p, cpu_to_be32((u32)v));
}

#define ENTRY(h, f, o, sz, m, am) \
	{ .name = #h "." #f,      \
	  .hdr = H_##h##_,        \
	  .off = o,               \
	  .size = sz,             \
	  .mask = m,              \
	  .argmask = am,          \
	  .get = get_##h##_##f,   \
	  .set = set_##h##_##f },

#define H_bth_ H_BTH
#define H_reth_ H_RETH
#define H_aeth_ H_AETH
#define H_atmeth_ H_ATMETH
#define H_atmack_ H_ATMACK
#define H_deth_ H_DETH
#define H_ieth_ H_IETH
#define H_immdt_ H_IMMDT

/* ImmDt has its own accessors (above), the rest FIELDS' generated ones. */
#define ALL_FIELDS(X) FIELDS(X) X(immdt, imm, 0, 4, 0xffffffff, 0xffffffff)

static const struct field fields[] = { ALL_FIELDS(ENTRY) };

/* Bits with no accessor: BTH resv7 (byte 8, 30:24), DETH bits 31:24. */
static u8 reserved_bit(unsigned int hdr, unsigned int byte)
{
	if (hdr == H_BTH && byte == 8)
		return 0x7f;
	if (hdr == H_DETH && byte == 4)
		return 0xff;
	return 0;
}

/* Headers live in aligned storage, as in an skb's linear part. */
union hdr_buf {
	u64 align;
	u8 b[HDR_MAX];
};

static u64 wire_word(const u8 *h, unsigned int off, unsigned int size)
{
	u64 v = 0;

	for (unsigned int i = 0; i < size; i++)
		v = v << 8 | h[off + i];
	return v;
}

static void wire_put(u8 *h, unsigned int off, unsigned int size, u64 v)
{
	for (unsigned int i = size; i--; v >>= 8)
		h[off + i] = (u8)v;
}

static unsigned int mask_shift(u64 mask)
{
	return __builtin_ctzll(mask);
}

/* The value a setter must store for argument @v. */
static u64 field_value(const struct field *f, u64 v)
{
	u64 width = f->mask >> mask_shift(f->mask);

	if (!f->argmask)
		return v != 0;
	return v & f->argmask & width;
}

/* Which bits of each header some field owns; overlaps are findings. */
static void check_coverage(u8 owned[H_NUM][HDR_MAX])
{
	memset(owned, 0, H_NUM * HDR_MAX);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];
		u8 m[8];

		FUZZ_ASSERT(f->off + f->size <= hdr_len[f->hdr]);
		wire_put(m, 0, f->size, f->mask);
		for (unsigned int b = 0; b < f->size; b++) {
			FUZZ_ASSERT(!(owned[f->hdr][f->off + b] & m[b]));
			owned[f->hdr][f->off + b] |= m[b];
		}
	}
	for (unsigned int h = 0; h < H_NUM; h++)
		for (unsigned int b = 0; b < hdr_len[h]; b++)
			FUZZ_ASSERT((owned[h][b] ^ reserved_bit(h, b)) == 0xff);
}

static void check_field(const struct field *f, const union hdr_buf *in, u64 v)
{
	unsigned int sh = mask_shift(f->mask);
	u64 want = field_value(f, v);
	union hdr_buf out = *in;
	u64 word;

	/* Decode agrees with an independent reading of the wire. */
	word = wire_word(in->b, f->off, f->size);
	FUZZ_ASSERT(f->get(in->b) == (word & f->mask) >> sh);

	/* Encode touches exactly the field's bits. */
	f->set(out.b, v);
	FUZZ_ASSERT(f->get(out.b) == want);
	word = (word & ~f->mask) | ((want << sh) & f->mask);
	{
		union hdr_buf exp = *in;

		wire_put(exp.b, f->off, f->size, word);
		FUZZ_ASSERT(!memcmp(out.b, exp.b, hdr_len[f->hdr]));
	}
}

/* decode -> encode into a zeroed header gives back the input. */
static void check_roundtrip(unsigned int h, const union hdr_buf *in,
			    u8 owned[H_NUM][HDR_MAX])
{
	union hdr_buf out = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (fields[i].hdr == h)
			fields[i].set(out.b, fields[i].get(in->b));
	for (unsigned int b = 0; b < hdr_len[h]; b++)
		FUZZ_ASSERT(out.b[b] == (in->b[b] & owned[h][b]));
}

static void check_init(struct fuzz_in *in)
{
	u8 opcode = fuzz_u8(in), pad = fuzz_u8(in), flags = fuzz_u8(in);
	u16 pkey = fuzz_u16(in);
	u32 qpn = fuzz_u32(in), psn = fuzz_u32(in), len = fuzz_u32(in);
	bool se = flags & 1, ackreq = flags & 2;
	struct sroce_bth a, b;
	struct sroce_cnp_pad cpad;
	u8 p;

	memset(&a, 0xa5, sizeof(a)); /* init writes every byte */
	sroce_bth_init(&a, opcode, se, pad, pkey, qpn, ackreq, psn);
	memset(&b, 0, sizeof(b));
	sroce_bth_set_opcode(&b, opcode);
	sroce_bth_set_se(&b, se);
	sroce_bth_set_padcnt(&b, pad);
	sroce_bth_set_pkey(&b, pkey);
	sroce_bth_set_destqp(&b, qpn);
	sroce_bth_set_ackreq(&b, ackreq);
	sroce_bth_set_psn(&b, psn);
	FUZZ_ASSERT(!memcmp(&a, &b, sizeof(a)));

	memset(&cpad, 0xa5, sizeof(cpad));
	sroce_cnp_init(&a, &cpad, qpn);
	FUZZ_ASSERT(sroce_bth_opcode(&a) == SROCE_OP_CNP);
	FUZZ_ASSERT(sroce_bth_becn(&a) && !sroce_bth_fecn(&a));
	FUZZ_ASSERT(sroce_bth_pkey(&a) == SROCE_DEFAULT_PKEY);
	FUZZ_ASSERT(sroce_bth_destqp(&a) == (qpn & SROCE_QPN_MASK));
	FUZZ_ASSERT(sroce_bth_psn(&a) == 0 && !sroce_bth_ackreq(&a));
	FUZZ_ASSERT(a.flags == 0 && sroce_bth_resv6a(&a) == 0);
	for (size_t i = 0; i < sizeof(cpad.reserved); i++)
		FUZZ_ASSERT(cpad.reserved[i] == 0);

	p = sroce_bth_pad_for(len);
	FUZZ_ASSERT(p < 4 && ((u64)len + p) % 4 == 0);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 owned[H_NUM][HDR_MAX];
	static bool covered;
	union hdr_buf hdrs[H_NUM];
	struct fuzz_in in;

	if (!covered) {
		check_coverage(owned); /* a property of the table: once */
		covered = true;
	}
	fuzz_in_init(&in, data, size);
	for (unsigned int h = 0; h < H_NUM; h++) {
		memset(&hdrs[h], 0, sizeof(hdrs[h]));
		fuzz_bytes(&in, hdrs[h].b, hdr_len[h]);
		check_roundtrip(h, &hdrs[h], owned);
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		check_field(&fields[i], &hdrs[fields[i].hdr], fuzz_u64(&in));
	check_init(&in);
	return 0;
}
