// SPDX-License-Identifier: GPL-2.0
/*
 * test_icrc.c - CRC-32 shim and RoCE v2 ICRC.
 *
 * Vectors (the .txt files of vectors/, one "<name> <hex>" per line, IP header through
 * ICRC) come from two independent sources: packets built and checksummed
 * by vectors/mkvec.py with zlib, and packets rdma_rxe sent in a guest
 * (vectors/capture.sh).  Each must verify, verify again when computed in
 * pieces, stop verifying after any change to covered bytes, and keep
 * verifying after changes to the masked fields.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "ktest.h"
#include "icrc.h"
#include "hdr.h"
#include "vec_ud.h"

#ifndef SROCE_VECTOR_DIR
#error "SROCE_VECTOR_DIR must name tests/unit/vectors"
#endif

#define MAX_PKT 9200

struct vec {
	char name[64];
	u8 pkt[MAX_PKT];
	size_t len; /* IP header .. ICRC */
};

static void crc32_known_answer(struct ktest *t)
{
	static const char s[] = "123456789";

	/* The CRC-32 check value (ISO-HDLC / zlib). */
	KTEST_EXPECT_EQ(t, ~crc32_le(~0U, s, 9), 0xcbf43926);
	KTEST_EXPECT_EQ(t, crc32_le(0x12345678, s, 0), 0x12345678);
	KTEST_EXPECT_EQ(t, crc32_le(crc32_le(~0U, s, 4), s + 4, 5),
			crc32_le(~0U, s, 9));
}

static const struct ktest_case crc32_cases[] = {
	KTEST_CASE(crc32_known_answer),
};

KTEST_SUITE(crc32);

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse "<name> <hex>"; 1 on success, 0 for comments/blank, -1 on error. */
static int parse_line(const char *line, struct vec *v)
{
	const char *p;
	size_t n = 0;

	if (line[0] == '#' || line[0] == '\n' || !line[0])
		return 0;
	if (sscanf(line, "%63s", v->name) != 1)
		return -1;
	p = line + strlen(v->name);
	while (*p == ' ')
		p++;
	while (hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
		if (n == MAX_PKT)
			return -1;
		v->pkt[n++] = hexval(p[0]) << 4 | hexval(p[1]);
		p += 2;
	}
	v->len = n;
	return n ? 1 : -1;
}

static bool is_v6(const struct vec *v)
{
	return v->pkt[0] >> 4 == 6;
}

static size_t iphlen(const struct vec *v)
{
	return is_v6(v) ? 40 : (v->pkt[0] & 0xf) * 4;
}

/* The ICRC bytes at the end of the packet, read little-endian. */
static u32 wire_icrc(const struct vec *v)
{
	const u8 *p = v->pkt + v->len - SROCE_ICRC_LEN;

	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/* The ICRC computed with the prefix fed by begin() and the rest in two. */
static void check_pieces(struct ktest *t, const struct vec *v)
{
	size_t body = v->len - SROCE_ICRC_LEN;
	__le32 whole, got;
	int n;

	KTEST_EXPECT_SEQ(t, sroce_icrc_compute(v->pkt, body, &whole), 0);
	for (size_t split = 0;; split++) {
		struct sroce_icrc ic;

		n = sroce_icrc_begin(&ic, v->pkt, body);
		KTEST_EXPECT_SEQ(t, n, (int)(iphlen(v) + 8 + SROCE_BTH_LEN));
		if (n < 0 || (size_t)n + split > body)
			break;
		sroce_icrc_update(&ic, v->pkt + n, split);
		sroce_icrc_update(&ic, v->pkt + n + split, body - n - split);
		got = sroce_icrc_final(&ic);
		if (got != whole) {
			ktest_fail(t, __FILE__, __LINE__,
				   "%s: split %zu differs", v->name, split);
			break;
		}
	}
}

/* Offsets (from the IP header) of bytes the ICRC must ignore. */
static size_t masked_offsets(const struct vec *v, size_t *off)
{
	size_t ip = iphlen(v), n = 0;

	if (is_v6(v)) {
		off[n++] = 0; /* TC high nibble (low nibble of byte 0) */
		off[n++] = 1; /* TC low nibble, flow label */
		off[n++] = 3; /* flow label */
		off[n++] = 7; /* hop limit */
	} else {
		off[n++] = 1; /* TOS */
		off[n++] = 8; /* TTL */
		off[n++] = 10; /* checksum */
		off[n++] = 11;
	}
	off[n++] = ip + 6; /* UDP checksum */
	off[n++] = ip + 7;
	off[n++] = ip + 8 + 4; /* FECN/BECN/resv6a */
	return n;
}

static void check_vector(struct ktest *t, struct vec *v)
{
	size_t off[8], n, ip = iphlen(v);
	int err;

	err = sroce_icrc_check(v->pkt, v->len);
	if (err) {
		__le32 want = 0;

		sroce_icrc_compute(v->pkt, v->len - 4, &want);
		ktest_fail(t, __FILE__, __LINE__,
			   "%s: ICRC check %d, computed %08x, wire %08x",
			   v->name, err, le32_to_cpu(want), wire_icrc(v));
		return;
	}
	check_pieces(t, v);

	/* Masked fields: any value keeps the ICRC valid. */
	n = masked_offsets(v, off);
	for (size_t i = 0; i < n; i++) {
		/* Byte 0 of IPv6 keeps its version nibble. */
		u8 flip = (is_v6(v) && off[i] == 0) ? 0x0f : 0xff;

		v->pkt[off[i]] ^= flip;
		KTEST_EXPECT_SEQ(t, sroce_icrc_check(v->pkt, v->len), 0);
		v->pkt[off[i]] ^= flip;
	}

	/*
	 * Covered bytes: IP addresses, UDP ports, DestQP, PSN, payload, the
	 * ICRC itself; one flipped bit must be caught.
	 */
	const size_t covered[] = {
		is_v6(v) ? 8 : 12, /* source address */
		ip + 2, /* UDP destination port */
		ip + 8 + 7, /* DestQP low byte */
		ip + 8 + 11, /* PSN low byte */
		ip + 8 + 0, /* opcode */
		v->len - 5, /* last byte before the ICRC */
		v->len - 1, /* ICRC */
	};
	for (size_t i = 0; i < ARRAY_SIZE(covered); i++) {
		v->pkt[covered[i]] ^= 0x01;
		KTEST_EXPECT_SEQ(t, sroce_icrc_check(v->pkt, v->len), -EBADMSG);
		v->pkt[covered[i]] ^= 0x01;
	}
}

/* Runs every vector of one file; the file must hold at least @min. */
static void run_file(struct ktest *t, const char *file, int min, int min_v6)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	int count = 0, v6 = 0;
	struct vec *v = malloc(sizeof(*v));
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SROCE_VECTOR_DIR, file);
	f = fopen(path, "r");
	if (!f || !v) {
		ktest_fail(t, __FILE__, __LINE__, "cannot read %s", path);
		free(v);
		if (f)
			fclose(f);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		int r = parse_line(line, v);

		if (r < 0)
			ktest_fail(t, __FILE__, __LINE__, "%s: bad line", file);
		if (r <= 0)
			continue;
		count++;
		v6 += is_v6(v);
		check_vector(t, v);
	}
	free(line);
	free(v);
	fclose(f);
	KTEST_EXPECT(t, count >= min);
	KTEST_EXPECT(t, v6 >= min_v6);
}

static void icrc_handmade_vectors(struct ktest *t)
{
	run_file(t, "handmade.txt", 5, 1);
}

static void icrc_rxe_vectors(struct ktest *t)
{
	run_file(t, "rxe.txt", 4, 1);
}

/* The first hand-made vector rebuilt with the codecs: same bytes. */
static void icrc_codec_built_packet(struct ktest *t)
{
	u8 pkt[60] = { 0 };
	__le32 icrc;

	vec_ud_build(pkt, NULL, 0);
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute(pkt, 56, &icrc), 0);
	KTEST_EXPECT(t, !memcmp(&icrc, vec_ud_icrc, 4));
	memcpy(pkt + 56, &icrc, 4);
	KTEST_EXPECT_SEQ(t, sroce_icrc_check(pkt, 60), 0);
}

static void icrc_malformed(struct ktest *t)
{
	u8 pkt[128] = { 0 };
	struct sroce_icrc ic;
	__le32 icrc;

	pkt[0] = 0x45;
	pkt[9] = 17;
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 40), 40);
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 39), -EINVAL);
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 0), -EINVAL);
	pkt[9] = 6; /* TCP */
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 128), -EINVAL);
	pkt[9] = 17;
	pkt[0] = 0x44; /* IHL 4 */
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 128), -EINVAL);
	pkt[0] = 0x4f; /* IHL 15: 60 bytes */
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 80), 80);
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 79), -EINVAL);
	pkt[0] = 0x55; /* version 5 */
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 128), -EINVAL);
	pkt[0] = 0x60;
	pkt[6] = 17;
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 60), 60);
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 59), -EINVAL);
	pkt[6] = 0; /* hop-by-hop ext header */
	KTEST_EXPECT_SEQ(t, sroce_icrc_begin(&ic, pkt, 128), -EINVAL);
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute(pkt, 128, &icrc), -EINVAL);
	KTEST_EXPECT_SEQ(t, sroce_icrc_check(pkt, 3), -EINVAL);
}

static const struct ktest_case icrc_cases[] = {
	KTEST_CASE(icrc_handmade_vectors),
	KTEST_CASE(icrc_rxe_vectors),
	KTEST_CASE(icrc_codec_built_packet),
	KTEST_CASE(icrc_malformed),
};

KTEST_SUITE(icrc);
