/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfc.h - Priority-based Flow Control (IEEE 802.1Qbb): the frame codec,
 * pause quanta <-> time at a link speed, the per-priority pause state of
 * the honouring side with its storm watchdog, and the XOFF/XON generation
 * hysteresis of the receiving side.
 *
 * Pure core: no locks, no clock, no allocation.  Every function takes the
 * current time (@now, nanoseconds of a monotonic clock) as an argument and
 * returns what the caller must do (send a frame, kick waiters, count an
 * event); kernel/pfc.c owns the locking, the timers and the counters.
 */
#ifndef _SROCE_PROTO_PFC_H
#define _SROCE_PROTO_PFC_H

#include "env.h"

#define SROCE_PFC_NPRIO 8
#define SROCE_PFC_ETHERTYPE 0x8808 /* MAC control */
#define SROCE_PFC_OPCODE 0x0101 /* 802.1Qbb PFC; 0x0001 is 802.3x PAUSE */
#define SROCE_PFC_QUANTUM_BITS 512 /* one pause quantum = 512 bit times */
#define SROCE_PFC_MAX_QUANTA 0xffff
/* Minimum Ethernet frame without the FCS the NIC appends. */
#define SROCE_PFC_FRAME_LEN 60

/* 01:80:C2:00:00:01, the MAC control multicast address (802.3 Annex 31B). */
extern const u8 sroce_pfc_dmac[6];

/* MAC control header of a PFC frame, after the Ethernet header. */
struct sroce_pfc_hdr {
	__be16 opcode; /* SROCE_PFC_OPCODE */
	__be16 class_enable; /* bit n: time[n] is valid; bits 15:8 reserved */
	__be16 time[SROCE_PFC_NPRIO]; /* pause time in quanta, 0 = XON */
};

static_assert(sizeof(struct sroce_pfc_hdr) == 20);
static_assert(offsetof(struct sroce_pfc_hdr, class_enable) == 2);
static_assert(offsetof(struct sroce_pfc_hdr, time) == 4);
/* Ethernet header (14) + PFC header fit the minimum frame. */
static_assert(14 + sizeof(struct sroce_pfc_hdr) <= SROCE_PFC_FRAME_LEN);

/* A decoded, validated PFC frame. */
struct sroce_pfc_req {
	u8 enable; /* class-enable vector */
	u16 quanta[SROCE_PFC_NPRIO]; /* valid where enable has the bit */
};

/* Why a received MAC control frame was refused (all counted alike). */
enum sroce_pfc_bad {
	SROCE_PFC_OK = 0,
	SROCE_PFC_BAD_SHORT, /* fewer bytes than a PFC header */
	SROCE_PFC_BAD_OPCODE, /* 802.3x PAUSE or another MAC control op */
	SROCE_PFC_BAD_RESERVED, /* class-enable bits 15:8 set */
	SROCE_PFC_BAD_EMPTY, /* no class enabled */
};

/*
 * Decode the MAC control payload @buf (@len bytes after the Ethernet
 * header).  Trailing padding is ignored.  Return: SROCE_PFC_OK and *req
 * filled, or the reason the frame is malformed (*req untouched).
 */
enum sroce_pfc_bad sroce_pfc_parse(const void *buf, u32 len,
				   struct sroce_pfc_req *req);

/*
 * Build a whole SROCE_PFC_FRAME_LEN-byte frame in @frame: destination
 * sroce_pfc_dmac, source @smac, EtherType 0x8808, opcode 0x0101, the
 * class-enable vector and quanta of @req (times of disabled classes are
 * written as 0), zero padding.
 */
void sroce_pfc_build(u8 *frame, const u8 *smac,
		     const struct sroce_pfc_req *req);

/* Pause time of @quanta at @speed_mbps, in ns (rounded down); speed > 0. */
u64 sroce_pfc_quanta_to_ns(u32 quanta, u32 speed_mbps);
/* Quanta covering @ns at @speed_mbps (rounded up, at most 0xffff). */
u32 sroce_pfc_ns_to_quanta(u64 ns, u32 speed_mbps);

/*
 * Headroom (bytes) one priority needs above its XOFF threshold to absorb
 * what is in flight after the XOFF decision (wire.md, 802.1Qbb Annex N):
 * the round trip over @cable_m metres of cable at 5 ns/m, one maximum
 * frame (@mtu + Ethernet/VLAN overhead) finishing at each end, the PFC
 * frame itself and the peer's response delay at @speed_mbps.
 */
u32 sroce_pfc_headroom(u32 mtu, u32 speed_mbps, u32 cable_m);

/* Default XON threshold: two maximum frames. */
u32 sroce_pfc_default_xon(u32 mtu);
/* Default XOFF threshold: the XON threshold plus the headroom. */
u32 sroce_pfc_default_xoff(u32 mtu, u32 speed_mbps, u32 cable_m);

/* ---- honouring received pauses, with the storm watchdog ---- */

/* Events of the honouring side, returned as a mask. */
enum {
	SROCE_PFC_EV_XOFF = BIT(0), /* priority became paused */
	SROCE_PFC_EV_XON = BIT(1), /* pause ended (XON, expiry or storm) */
	SROCE_PFC_EV_EXPIRED = BIT(2), /* ... by expiry of the pause time */
	SROCE_PFC_EV_IGNORED = BIT(3), /* XOFF ignored: priority is stormed */
	SROCE_PFC_EV_STORM = BIT(4), /* watchdog declared a storm */
	SROCE_PFC_EV_RESTORED = BIT(5), /* watchdog restored the priority */
};

/* Watchdog parameters; detect_ns == 0 disables the watchdog. */
struct sroce_pfc_wd_cfg {
	u64 detect_ns; /* paused this long (see pfc.c) -> storm */
	u64 recover_ns; /* no XOFF for this long -> restore */
};

/* Honouring state of one priority.  Zeroed = not paused, no storm. */
struct sroce_pfc_rx_prio {
	bool paused; /* transmission of this priority is held */
	bool stormed; /* watchdog tripped: XOFF is ignored */
	bool episode; /* episode_start is valid */
	u64 pause_start; /* when the current pause began */
	u64 until; /* when the current pause expires */
	u64 episode_start; /* first XOFF of the current pause episode */
	u64 last_resume; /* when the last pause ended */
	u64 last_xoff; /* last XOFF received (stormed: for the restore) */
};

/* What one call reports: events and pause time that just ended. */
struct sroce_pfc_rx_out {
	u32 events;
	u64 paused_ns; /* duration of a pause that ended in this call */
};

/*
 * A PFC frame asked to pause the priority for @pause_ns (> 0: XOFF) or to
 * resume it (0: XON) at @now.  Applies expiry and the watchdog first.
 */
void sroce_pfc_rx_pause(struct sroce_pfc_rx_prio *p,
			const struct sroce_pfc_wd_cfg *wd, u64 pause_ns,
			u64 now, struct sroce_pfc_rx_out *out);

/*
 * Time passes: ends an expired pause, declares a storm, restores a stormed
 * priority.  Call it at p->until and periodically while paused or stormed
 * (sroce_pfc_rx_next_poll()).
 */
void sroce_pfc_rx_poll(struct sroce_pfc_rx_prio *p,
		       const struct sroce_pfc_wd_cfg *wd, u64 now,
		       struct sroce_pfc_rx_out *out);

/*
 * The earliest time sroce_pfc_rx_poll() has something to do for @p, or
 * U64_MAX if nothing is pending.
 */
u64 sroce_pfc_rx_next_poll(const struct sroce_pfc_rx_prio *p,
			   const struct sroce_pfc_wd_cfg *wd);

/* ---- generating XOFF/XON from a receive backlog ---- */

/* Generation parameters of one priority. */
struct sroce_pfc_gen_cfg {
	u64 xoff_bytes; /* backlog >= this: send XOFF */
	u64 xon_bytes; /* backlog <= this: send XON (xon < xoff) */
	u64 refresh_ns; /* re-send XOFF this often while above XON */
	u64 max_xoff_ns; /* never hold XOFF longer than this (> 0) */
};

/* Generation state of one priority.  Zeroed = XON, nothing sent. */
struct sroce_pfc_gen_prio {
	bool xoff; /* the peer was last told XOFF */
	bool warned; /* storm warning raised in this XOFF episode */
	bool suppressed; /* bounded-XOFF rule tripped: no XOFF for now */
	u64 xoff_since; /* first XOFF of the current episode */
	u64 last_sent; /* last XOFF (refresh) sent */
	u64 suppressed_since;
};

enum sroce_pfc_gen_action {
	SROCE_PFC_GEN_NONE,
	SROCE_PFC_GEN_XOFF, /* send a frame with the pause time */
	SROCE_PFC_GEN_XON, /* send a frame with time 0 */
};

/* Events of the generating side (mask in *events). */
enum {
	SROCE_PFC_GEN_EV_WARNING = BIT(0), /* XOFF held for max_xoff/2 */
	SROCE_PFC_GEN_EV_ERROR = BIT(1), /* XOFF held for max_xoff: stopped */
};

/*
 * One step of the hysteresis at @now with @backlog bytes queued for the
 * priority.  Return: the frame to send, if any.
 */
enum sroce_pfc_gen_action sroce_pfc_gen_step(struct sroce_pfc_gen_prio *g,
					     const struct sroce_pfc_gen_cfg *c,
					     u64 backlog, u64 now, u32 *events);

#endif /* _SROCE_PROTO_PFC_H */
