/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabric.h - ccsim's multi-hop mode: a leaf-spine fabric of store-and-
 * forward switches with the NP and RP of kernel/proto at every host, fed
 * by explicit flows and a workload (flow sizes from a CDF, Poisson
 * arrivals, incast bursts), measured by flow completion time.  A scenario
 * with a [topo] section runs here; without, the single bottleneck of
 * sim.h runs as before.
 *
 * One role per file:
 *   fab_scenario.c  the [topo] and [workload] keys
 *   topo.c          nodes, ports and links of the leaf-spine; paths
 *                   (ECMP by flow hash, or a flow's via list)
 *   switch.c        a port: data and control FIFOs, RED/ECN, INT
 *                   stamps, shared buffer, PFC per ingress with headroom
 *   nic.c           the hosts: senders (pacing, cc glue, round robin over
 *                   the NIC's flows) and receivers (NP, ACKs with INT)
 *   fab_rc.c        go-back-N ([sim] transport = gbn) for lossy fabrics
 *   workload.c      flow-size CDFs, Poisson arrivals, incast bursts
 *   fct.c           ideal FCT, slowdown by size bucket, fct.csv
 *   fabric.c        the event loop, samples, ports.csv and the summary
 *
 * Time in ps, rates in kbit/s, sizes in bytes, as in sim.h.
 */
#ifndef _CCSIM_FABRIC_H
#define _CCSIM_FABRIC_H

#include "sim.h"

/* egress ports on a path: host NIC, then up to 7 switch ports */
#define FAB_MAX_PATH 8
#define FAB_ACK_BYTES 64 /* an ACK or CNP on the wire */

/* Events of the fabric (struct sim_event.kind; .flow and .data say). */
enum fab_ev_kind {
	FAB_EV_FLOW = 100, /* flow .flow starts */
	FAB_EV_NIC, /* host .flow's NIC may send (a pacing wait ended) */
	FAB_EV_DEPART, /* port .flow finished serialising its packet */
	FAB_EV_ARRIVE, /* packet .data reaches port .flow */
	FAB_EV_PAUSE, /* a PFC frame reaches port .flow (.data 1 XOFF) */
	FAB_EV_SAMPLE, /* queue samples */
	FAB_EV_RTO, /* flow .flow's retransmit timer may have expired */
};

enum fab_node_kind { FAB_HOST, FAB_LEAF, FAB_SPINE };

struct fab_node {
	u8 kind; /* enum fab_node_kind */
	u32 index; /* among its kind */
	u32 port0, nports; /* its ports: port0 .. port0 + nports - 1 */
	u64 bytes; /* switch: bytes buffered (shared by its ports) */
	u64 drops; /* switch: packets dropped (buffer, headroom) */
};

/* One INT record, as a switch port stamps it on a departing packet. */
struct fab_int {
	u32 port;
	u32 qlen; /* bytes left queued */
	u64 ts; /* ns */
	u64 tx; /* bytes the port had sent, this packet included */
};

/* What a packet is: data, or an ACK, NAK or CNP on its way back. */
enum fab_pkt_kind { FAB_DATA, FAB_ACK, FAB_CNP, FAB_NAK };

struct fab_pkt {
	u32 flow;
	u32 bytes;
	u32 psn; /* data: its index in the flow; ACK, NAK: the next expected */
	u32 in; /* the port it came in by, at the switch holding it */
	u8 kind; /* enum fab_pkt_kind */
	/*
	 * The port sending it: data, path[hop]; an ACK or CNP, the peer of
	 * path[npath - 1 - hop] (the same links backwards)
	 */
	u8 hop;
	u8 ce; /* ECN congestion experienced */
	u8 probe; /* the sender's RTT probe: its ACK gives a sample */
	u8 nint; /* records in rec[] */
	u64 sent; /* ps: the sender began to send it (RTT) */
	u64 ack_seq; /* at the receiver: bytes of the flow received */
	struct fab_int rec[SROCE_CC_INT_MAX_HOPS];
	u32 next_free; /* pool free list */
};

/* A FIFO of packet indices. */
struct fab_fifo {
	u32 *ring;
	u32 head, n, cap;
};

/*
 * A port: the egress side (FIFOs served at the link rate towards peer)
 * and the ingress side (what came in by it and is still buffered, for
 * PFC) of one end of a link.  Two priorities: ACKs and CNPs (ctl) go
 * first and are never paused; data waits in q.  A host's port has no
 * data FIFO: its NIC puts data packets on the link one at a time.
 */
struct fab_port {
	u32 node, peer; /* peer: the port at the other end of the link */
	u64 rate; /* kbit/s */
	u64 delay; /* ps to the peer */
	/* egress */
	struct fab_fifo q, ctl;
	u32 cur; /* the packet being serialised (busy) */
	u64 bytes; /* data queued, the one being sent included */
	bool busy; /* serialising a packet */
	bool paused; /* by a PFC frame from the peer */
	u64 paused_since, paused_time; /* ps */
	u64 tx_bytes; /* sent, cumulative (INT) */
	u64 last_tx; /* ps: the last packet left */
	u64 qmax; /* bytes */
	/* ingress */
	u64 ingress; /* bytes that came in here, still buffered */
	bool xoff; /* an XOFF went to the peer and no XON yet */
	/* counters */
	u64 marks, drops, xoffs_sent, xoffs_rcvd;
};

struct fab_flow {
	u32 src, dst; /* hosts */
	u64 size; /* bytes; 0 = unlimited (explicit flows) */
	u64 start, stop; /* ps; stop 0 = never */
	u8 kind; /* 0 explicit, 1 workload (Poisson), 2 incast */
	u8 npath;
	u32 path[FAB_MAX_PATH]; /* egress ports, the sender's NIC first */
	u64 back; /* ps: an ACK's way back on the idle fabric */
	u64 ideal; /* ps: FCT alone on the empty fabric (fct.c) */
	/* sender */
	struct sroce_cc_state cc;
	u64 edt; /* ns: pacing */
	u64 sent; /* bytes */
	bool started, active; /* active: on its NIC's list */
	/* on_ack: the probe out (kernel/cc.c), the bytes up to its end */
	bool probe_out;
	u64 probe_end;
	u64 probe_ts; /* ps: the probe began to leave */
	u64 done_at; /* ps: the ACK of the last byte came back; 0 = not */
	u64 cnps_rcvd;
	/* transport = gbn (fab_rc.c): sender, PSNs */
	u32 npkts; /* packets of a sized flow, 0 = unlimited */
	u32 snd_una, snd_nxt, snd_max;
	bool rto_pending; /* a FAB_EV_RTO is queued */
	u64 rto_at; /* ps: the timer expires unless progress moves it */
	u64 retx, timeouts, naks; /* bytes resent, RTO expiries, NAKs in */
	/* receiver */
	u32 rcv_nxt; /* gbn: the next PSN expected */
	bool nak_sent; /* gbn: a NAK for rcv_nxt is out */
	u64 rcvd; /* bytes (gbn: in order) */
	u64 win_rcvd; /* of them, in [sim] measure_start..measure_end */
	u64 np_last; /* ns of the last CNP sent, 0 = never */
	u64 marks_rcvd;
};

/* The senders of one host, served round robin by its NIC. */
struct fab_nic {
	u32 *act; /* flows with data to send, in start order */
	u32 nact, cap;
	u32 rr; /* next to look at */
	u64 wake_at; /* ps of the FAB_EV_NIC queued, 0 = none */
};

struct fab {
	struct sim *s; /* config, event queue, cc ops, clock */
	struct sroce_cc_params params; /* every host's (same link rate) */
	u64 rng; /* RED marking */
	/* topology (topo.c) */
	u32 nhosts, nnodes, nports;
	struct fab_node *nodes;
	struct fab_port *ports;
	struct fab_nic *nics;
	/* flows */
	struct fab_flow *flows;
	u32 nflows, flows_cap;
	/* packets */
	struct fab_pkt *pkts;
	u32 npkts, pkts_cap, free_pkt; /* free_pkt: U32_MAX = none */
	/* samples: queue bytes per port, [sample * nports + port] */
	u32 *qs;
	u32 nsamples, samples_cap;
	u64 drops, marks, cnps, xoffs;
	u64 retx, timeouts; /* gbn: bytes resent, RTO expiries */
	FILE *queue_csv, *pfc_csv;
};

/* splitmix64 on @state: the fabric's random sources. */
static inline u64 fab_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- fab_scenario.c ---- */
bool fab_enabled(const struct sim_config *c);
int fab_set_topo(struct sim_config *c, const char *key, const char *val);
int fab_set_workload(struct sim_config *c, const char *key, const char *val);
int fab_config_finish(struct sim_config *c);

/* ---- topo.c ---- */
int fab_topo_init(struct fab *fb);
void fab_topo_free(struct fab *fb);
/* The name of @node ("h3", "L0", "S1") into @buf. */
void fab_node_name(const struct fab *fb, u32 node, char *buf, size_t len);
/* Route flow @i: its path, back and ideal.  0, or -1 (message). */
int fab_route(struct fab *fb, u32 i, const char *via);
/* The port an ACK or CNP of flow @f leaves by at hop @hop. */
static inline u32 fab_back_port(const struct fab *fb, const struct fab_flow *f,
				u32 hop)
{
	return fb->ports[f->path[f->npath - 1 - hop]].peer;
}

/* ---- switch.c ---- */
void fab_switch_arrive(struct fab *fb, u32 port, u32 pkt);
void fab_port_depart(struct fab *fb, u32 port);
void fab_port_pause(struct fab *fb, u32 port, bool on);
void fab_port_kick(struct fab *fb, u32 port);
void fab_port_send(struct fab *fb, u32 port, u32 pkt);
int fab_ctl_send(struct fab *fb, u32 port, u32 pkt);

/* ---- nic.c ---- */
u32 fab_pkt_alloc(struct fab *fb);
void fab_pkt_free(struct fab *fb, u32 pkt);
void fab_flow_rcvd(struct fab *fb, struct fab_flow *f, u32 bytes);
void fab_flow_start(struct fab *fb, u32 i);
void fab_nic_send(struct fab *fb, u32 host);
void fab_nic_wake(struct fab *fb, u32 host);
void fab_host_receive(struct fab *fb, u32 port, u32 pkt);
/* Put flow @i back on its NIC's list if it has data again (go-back-N). */
void fab_flow_wake(struct fab *fb, u32 i);
/* Send the ACK or NAK (@kind) @pkt turns into from receiver @port. */
void fab_reply(struct fab *fb, u32 port, u32 pkt, u8 kind, u64 ack_seq);

/* ---- fab_rc.c ---- */
void fab_rc_init(struct fab *fb, struct fab_flow *f);
bool fab_rc_has_data(const struct fab_flow *f);
/* The PSN @f sends next and its bytes. */
u32 fab_rc_next(const struct fab *fb, const struct fab_flow *f, u32 *bytes);
/* Byte offset of packet @psn in @f's stream. */
u64 fab_rc_seq(const struct fab *fb, const struct fab_flow *f, u32 psn);
void fab_rc_sent(struct fab *fb, u32 i, u32 psn, u32 bytes);
/* Data @pkt reached its receiver at @port: new, in order? (ACK/NAK sent) */
bool fab_rc_receive(struct fab *fb, u32 port, u32 pkt);
void fab_rc_ack(struct fab *fb, u32 i, u32 psn);
void fab_rc_nak(struct fab *fb, u32 i, u32 psn);
void fab_rc_timeout(struct fab *fb, u32 i);

/* ---- workload.c ---- */
/* A new flow (src, dst, size, start, kind); its index or -1. */
int fab_flow_add(struct fab *fb, u32 src, u32 dst, u64 size, u64 start,
		 u8 kind);
int fab_workload_init(struct fab *fb);

/* ---- fct.c ---- */
u64 fab_ideal_fct(const struct fab *fb, const struct fab_flow *f);
/* FCT / ideal FCT x 1000 of a finished flow */
u64 fab_slowdown_milli(const struct fab_flow *f);
int fab_fct_write(struct fab *fb, const char *dir, FILE *sum);

/* ---- fabric.c ---- */
int fab_main(struct sim *s, const char *dir, bool quiet);

#endif /* _CCSIM_FABRIC_H */
