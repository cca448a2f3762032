// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pfc_frame.c - the PFC frame codec (kernel/proto/pfc.c): what
 * sroce_pfc_rcv() hands to sroce_pfc_parse(), and sroce_pfc_build().
 *
 * Input: the MAC control payload of a received frame (the bytes after
 * the Ethernet header, any length), whose first 6 bytes double as the
 * source MAC for the frame built back.
 *
 * Invariants:
 *  - sroce_pfc_parse() classifies exactly as 802.1Qbb says: shorter than
 *    the PFC header, an opcode other than 0x0101, class-enable bits 15:8
 *    set, no class enabled, or OK; on refusal *req is left untouched;
 *  - on OK the request holds the class-enable vector and the pause time
 *    of each enabled class, 0 for the others;
 *  - build -> parse round trip: the frame built from the request is a
 *    60-byte PFC frame (01:80:C2:00:00:01, the source MAC, EtherType
 *    0x8808) whose header is the input's with disabled times zeroed,
 *    zero padded, and parses back to the same request.
 */
#include "fuzz.h"
#include "pfc.h"

static u16 be16_at(const u8 *p)
{
	return p[0] << 8 | p[1];
}

static enum sroce_pfc_bad ref_parse(const u8 *b, size_t len)
{
	if (len < 20)
		return SROCE_PFC_BAD_SHORT;
	if (be16_at(b) != 0x0101)
		return SROCE_PFC_BAD_OPCODE;
	if (be16_at(b + 2) & 0xff00)
		return SROCE_PFC_BAD_RESERVED;
	if (!be16_at(b + 2))
		return SROCE_PFC_BAD_EMPTY;
	return SROCE_PFC_OK;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const u8 dmac[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	struct sroce_pfc_req req, back, poison;
	u8 frame[SROCE_PFC_FRAME_LEN + 8];
	u8 smac[6] = { 0 };
	enum sroce_pfc_bad r;
	u32 len = size > U32_MAX ? U32_MAX : size;

	memset(&poison, 0x5a, sizeof(poison));
	req = poison;
	r = sroce_pfc_parse(data, len, &req);
	FUZZ_ASSERT(r == ref_parse(data, size));
	if (r != SROCE_PFC_OK) {
		FUZZ_ASSERT(!memcmp(&req, &poison, sizeof(req)));
		return 0;
	}
	FUZZ_ASSERT(req.enable == data[3]);
	for (int i = 0; i < SROCE_PFC_NPRIO; i++)
		FUZZ_ASSERT(req.quanta[i] ==
			    (req.enable & (1 << i) ? be16_at(data + 4 + 2 * i) :
						     0));

	memcpy(smac, data, size < 6 ? size : 6);
	memset(frame, 0xa5, sizeof(frame));
	sroce_pfc_build(frame, smac, &req);
	FUZZ_ASSERT(!memcmp(frame, dmac, 6) && !memcmp(frame + 6, smac, 6));
	FUZZ_ASSERT(be16_at(frame + 12) == SROCE_PFC_ETHERTYPE);
	FUZZ_ASSERT(be16_at(frame + 14) == SROCE_PFC_OPCODE);
	FUZZ_ASSERT(be16_at(frame + 16) == req.enable);
	for (int i = 0; i < SROCE_PFC_NPRIO; i++)
		FUZZ_ASSERT(be16_at(frame + 18 + 2 * i) ==
			    (req.enable & (1 << i) ? be16_at(data + 4 + 2 * i) :
						     0));
	for (int i = 14 + 20; i < SROCE_PFC_FRAME_LEN; i++)
		FUZZ_ASSERT(frame[i] == 0);
	for (size_t i = SROCE_PFC_FRAME_LEN; i < sizeof(frame); i++)
		FUZZ_ASSERT(frame[i] == 0xa5); /* nothing past 60 bytes */

	back = poison;
	FUZZ_ASSERT(sroce_pfc_parse(frame + 14, SROCE_PFC_FRAME_LEN - 14,
				    &back) == SROCE_PFC_OK);
	FUZZ_ASSERT(back.enable == req.enable);
	FUZZ_ASSERT(!memcmp(back.quanta, req.quanta, sizeof(req.quanta)));
	return 0;
}
