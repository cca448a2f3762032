/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim.h - ccsim, a packet-level discrete-event simulator of the congestion
 * control core (kernel/proto/cc*.c): N senders -> one switch egress port
 * (rate, buffer, RED/ECN, PFC, INT stamps) -> one receiver with a
 * notification point; or -> several such ports of the same switch, one
 * receiver behind each ([switch] ports, a flow's dst).
 *
 * Time is in picoseconds (u64) inside the simulator so that serialisation
 * at 40 Gb/s does not drift by rounding; the cc core gets nanoseconds, as
 * in the kernel.  Rates are in kbit/s (the core's unit), sizes in bytes.
 *
 * One role per file:
 *   evq.c       event queue (binary heap, ties broken by insertion order)
 *   port.c      switch egress ports: FIFO, RED/ECN marking, PFC per ingress
 *   flow.c      senders: start/stop/size, pacing, the cc core glue, NICs
 *               shared by several flows (round robin)
 *   np.c        receiver and notification point (CNP throttle), and
 *               the INT echo an ACK carries back to an HPCC sender
 *   rc.c        reliable transport (optional): PSNs, window, ACK/NAK,
 *               go-back-N and the retransmit timeout
 *   scenario.c  the scenario file parser (INI-like) and -D overrides
 *   output.c    CSV time series and the summary
 *   main.c      command line, the event loop
 *
 * A scenario with a [topo] section runs on a leaf-spine fabric instead
 * (fabric.h: its own files, sharing evq.c, scenario.c and flow.c's cc
 * glue helpers).
 */
#ifndef _CCSIM_SIM_H
#define _CCSIM_SIM_H

#include <stdio.h>

#include "cc.h"
#include "win.h"

#define SIM_PS_PER_NS 1000ULL
#define SIM_PS_PER_US 1000000ULL
#define SIM_PS_PER_MS 1000000000ULL
#define SIM_MAX_FLOWS 256
#define SIM_MAX_PORTS 8
#define SIM_MAX_CC_OV 32

/* ---- evq.c ---- */

enum sim_ev_kind {
	SIM_EV_START, /* a flow starts */
	SIM_EV_STOP, /* a flow stops sending */
	SIM_EV_SEND, /* a sender may transmit its next packet */
	SIM_EV_ARRIVE, /* a packet reaches the switch (data: bytes) */
	SIM_EV_DEPART, /* port .data finished serialising its head packet */
	SIM_EV_CNP, /* a CNP reaches a sender */
	SIM_EV_PAUSE, /* a PFC frame reaches a sender (data: 1 XOFF, 0 XON) */
	SIM_EV_SAMPLE, /* time series sample */
	SIM_EV_ACK, /* an ACK reaches a sender (data: next expected PSN) */
	SIM_EV_NAK, /* a sequence NAK reaches a sender (data: expected PSN) */
	SIM_EV_RTO, /* a sender's retransmit timer may have expired */
	SIM_EV_INT, /* an ACK with telemetry reaches a sender (on_int) */
	SIM_EV_NIC, /* shared NIC .flow finished its packet */
};

struct sim_event {
	u64 t; /* ps */
	u64 seq; /* insertion order: equal times pop in FIFO order */
	u32 kind; /* enum sim_ev_kind */
	u32 flow;
	u64 data;
};

struct sim_evq {
	struct sim_event *heap;
	size_t n, cap;
	u64 seq;
};

int sim_evq_init(struct sim_evq *q);
void sim_evq_free(struct sim_evq *q);
int sim_evq_push(struct sim_evq *q, u64 t, u32 kind, u32 flow, u64 data);
bool sim_evq_pop(struct sim_evq *q, struct sim_event *ev);

/* ---- scenario.c ---- */

enum sim_algo {
	SIM_CC_NONE,
	SIM_CC_DCQCN,
	SIM_CC_DCTCP,
	SIM_CC_HPCC,
	SIM_CC_TIMELY,
	SIM_CC_FIXED,
};

struct sim_flow_cfg {
	u64 start; /* ps */
	u64 stop; /* ps; 0 = until the end */
	u64 size; /* bytes; 0 = unlimited */
	u64 rate; /* NIC line rate, kbit/s; 0 = the port rate */
	u64 speed; /* device speed for the cc (line rate), kbit/s; 0 = rate */
	u64 window; /* bytes in flight (transport gbn); 0 = unlimited */
	u64 delay; /* ps, sender <-> switch one way */
	u32 nic; /* > 0: the flows with this nic share one NIC; 0 = its own */
	u32 count; /* this many identical flows ... */
	u64 stagger; /* ... each starting this many ps after the previous */
	/*
	 * fabric ([topo]): the hosts, and a path other than ECMP's; the
	 * single switch: dst is the egress port (receiver) it goes to
	 */
	u32 src, dst;
	u32 src_step; /* with count: each copy's src this much above */
	char via[64]; /* switch names between them ("L0 S1 L1"); "" = ECMP */
};

/*
 * The fabric ([topo], [workload]; fabric.h): a leaf-spine of
 * leaves x hosts_per_leaf hosts.  leaves = 0: the single bottleneck.
 */
struct sim_topo_cfg {
	u32 leaves, spines, hosts_per_leaf;
	u64 host_rate, core_rate; /* kbit/s: host-leaf, leaf-spine links */
	u64 host_delay, core_delay; /* ps, one way */
	u64 headroom; /* bytes an ingress may queue beyond xoff */
};

struct sim_wl_cfg {
	char cdf[256]; /* flow-size CDF file ("" = no random flows) */
	u32 load_ppm; /* offered load per host, 1e-6 of its link rate */
	u64 start, stop; /* ps: Poisson arrivals in [start, stop) */
	u64 incast_start, incast_interval; /* ps; interval 0 = no incast */
	u32 incast_fanin; /* senders per burst */
	u64 incast_size; /* bytes each */
	u32 incast_dst; /* receiver host; U32_MAX = a random one */
};

struct sim_cc_ov {
	char key[32];
	char val[32];
};

struct sim_config {
	char name[64];
	u64 duration; /* ps */
	u64 seed;
	u64 sample; /* ps between time series samples */
	u32 mtu; /* bytes per packet on the wire */
	u64 measure_start, measure_end; /* ps: the summary's window */
	u64 conv_window; /* ps: throughput window for convergence */
	u64 start_window; /* ps after a flow's first cc start it is watched */
	u32 conv_jain_ppm; /* converged: Jain index >= this / 1e6 */
	/* switch */
	u64 port_rate; /* kbit/s */
	u64 buffer; /* bytes */
	bool ecn;
	u64 kmin, kmax; /* bytes */
	u32 pmax_ppm; /* marking probability at Kmax, 1e-6 */
	u32 red_wlog; /* RED average: weight 2^-wlog per packet; 0 = instant */
	u32 loss_ppm; /* random loss at the port, 1e-6 (not congestion) */
	bool pfc;
	u64 xoff, xon; /* bytes queued per ingress port */
	u64 rx_delay; /* ps, switch <-> receiver one way */
	u32 nports; /* egress ports, one receiver each (flow dst) */
	/* transport */
	bool gbn; /* reliable: ACK/NAK, go-back-N, retransmit timeout */
	bool recovery; /* gbn with kernel/comp.c's window and backoff */
	u64 rto; /* ps: retransmit timeout */
	/* cc */
	u32 algo; /* enum sim_algo */
	u32 flavour; /* enum sroce_cc_flavour */
	u64 cnp_gap; /* ns: min_time_between_cnps */
	u64 pace_burst; /* ns of pacing credit after idle */
	int ncc_ov;
	struct sim_cc_ov cc_ov[SIM_MAX_CC_OV];
	/* flows (templates before sim_config_expand(), flows after) */
	int nflows;
	struct sim_flow_cfg flows[SIM_MAX_FLOWS];
	/* fabric */
	char dir[256]; /* the scenario file's directory (cdf paths) */
	struct sim_topo_cfg topo;
	struct sim_wl_cfg wl;
};

void sim_config_default(struct sim_config *c);
/* Parse @path into @c; errors go to stderr as path:line. 0 or -1. */
int sim_config_load(struct sim_config *c, const char *path);
/* "section.key=value" on top of the file; flow.* applies to every flow. */
int sim_config_override(struct sim_config *c, const char *arg);
/* Expand count/stagger, check ranges.  0 or -1 (message on stderr). */
int sim_config_finish(struct sim_config *c);

/* ---- the simulation ---- */

struct sim_pkt {
	u32 flow;
	u32 bytes;
	u32 psn; /* packet sequence number (packet index in the flow) */
	/* (without gbn too: there nothing is sent twice) */
	u8 ce; /* ECN congestion experienced */
	/* INT the port stamped as the packet left (struct sroce_cc_int_hop) */
	u64 int_ts; /* ns */
	u64 int_tx; /* bytes the port had sent, this packet included */
	u32 int_qlen; /* bytes left queued behind it */
};

/*
 * One packet's telemetry on its way back to the sender in an ACK.  The
 * way back takes the same time for every packet of a flow, so a flow's
 * echoes arrive in the order they left: a FIFO per flow.
 */
struct sim_echo {
	u64 ts, tx; /* the port's stamp (struct sim_pkt) */
	u32 qlen;
	u64 ack_seq; /* the ACK's cumulative sequence, bytes (sim_rc_seq()) */
};

struct sim_echoq {
	struct sim_echo *ring;
	size_t head, n, cap;
};

struct sim_port {
	struct sim_pkt *ring; /* FIFO of queued packets */
	size_t head, n, cap;
	u64 bytes; /* queued */
	bool busy; /* a packet is being serialised */
	u64 qavg; /* RED average queue, bytes << red_wlog */
	u64 losses; /* random losses (loss_ppm), counted in drops too */
	u64 idle_since; /* ps: the queue went empty (RED average decay) */
	u64 marks, drops, pauses, departed;
};

struct sim_flow {
	struct sim_flow_cfg cfg;
	struct sroce_cc_params params;
	struct sroce_cc_state cc;
	bool started, stopped, send_pending, paused, done;
	u64 edt; /* ns: pacing earliest departure time */
	u64 pace_waits; /* sroce_cc_pace_check() said wait */
	u64 cc_starts; /* CNPs that found the algorithm inactive */
	/*
	 * The first start_window after the flow's first cc start: when it
	 * began (ps), the highest cc rate seen in it (kbit/s), the bytes of
	 * the packets the flow began to send in it.
	 */
	bool start_seen;
	u64 start_at, start_rate, start_sent;
	/*
	 * The same for the start_window after each XON that found the
	 * algorithm active (xon_*: the current one, cut short by the next
	 * XON), and the one of them in which the flow sent most beyond its
	 * rate (xon_worst_*).
	 */
	bool xon_open;
	u64 xon_at, xon_rate, xon_sent;
	u64 xons, xon_worst_rate, xon_worst_sent;
	u64 nic_free; /* ps: its own NIC finished its last packet */
	bool nic_wait; /* waits for its shared NIC (cfg.nic) */
	u64 sent, delivered; /* bytes */
	u64 interval; /* bytes delivered since the last sample */
	u64 marks, cnps_sent, cnps_rcvd, cnps_ignored, pauses, drops;
	u64 paused_since, paused_time; /* ps */
	u64 done_at; /* ps: last byte delivered (sized flows) */
	/* switch side: bytes queued from this ingress port, PFC state */
	u64 ingress;
	bool xoff;
	/* notification point */
	u64 np_last; /* ns of the last CNP sent, 0 = never */
	/* transport (gbn): sender side */
	u32 snd_una; /* oldest unacknowledged PSN */
	u32 snd_nxt; /* next PSN to send (rewound by go-back-N) */
	u32 snd_max; /* highest PSN sent + 1: below it a send is a resend */
	u32 npkts; /* packets in a sized flow; 0 = unlimited */
	bool rto_pending; /* an SIM_EV_RTO is queued */
	u64 rto_at; /* ps: the timer expires unless progress moves it */
	u64 retx, timeouts, naks_rcvd; /* bytes resent, RTO expiries, NAKs */
	/* [sim] recovery: kernel/comp.c's recovery window (packets) */
	struct sroce_win win;
	u32 recover_psn, backoff;
	bool in_recovery;
	u64 cnp_cuts; /* window cuts by CNPs (req_cnp_window_cuts) */
	/* transport (gbn): receiver side */
	u32 rcv_nxt; /* next PSN expected */
	bool nak_sent; /* a NAK for rcv_nxt is out: drop silently until it */
	u64 ooo, dups; /* packets discarded: beyond rcv_nxt, below it */
	/* INT (algorithms with on_int): echoes on their way back */
	struct sim_echoq echoes;
	u64 int_acks; /* echoes that reached the sender */
	/*
	 * RTT probe (algorithms with on_ack), as kernel/cc.c keeps one: the
	 * PSN of the one packet out, when it began to leave (ps), whether
	 * the receiver has answered it (without gbn), samples taken
	 */
	bool probe_out, probe_acked;
	u32 probe_psn;
	u64 probe_ts;
	u64 rtt_samples;
};

struct sim_series {
	size_t n, cap;
	u64 *queue; /* bytes at each sample */
	u64 *bytes; /* [sample * nflows + flow]: delivered in the interval */
	u64 *rate; /* [sample * nflows + flow]: cc rate, kbit/s */
	u8 *on; /* [sample * nflows + flow]: flow was active */
};

/*
 * A NIC that several flows share ([flow] nic): one packet at a time, at
 * the flows' rate; when it is free the flows waiting for it are run in
 * turn from the one after the last that sent (round robin).
 */
struct sim_nic {
	u64 free; /* ps: it finished its last packet */
	u32 last; /* the flow that sent it */
	bool pending; /* a SIM_EV_NIC is queued */
};

struct sim {
	struct sim_config cfg;
	const struct sroce_cc_ops *ops;
	struct sim_evq q;
	struct sim_port ports[SIM_MAX_PORTS]; /* cfg.nports of them */
	struct sim_flow *flows;
	int nflows;
	struct sim_nic nics[SIM_MAX_FLOWS + 1]; /* [cfg.nic], 1 .. */
	u64 now; /* ps */
	u64 rng; /* splitmix64 state */
	u64 events;
	FILE *rate_csv, *tput_csv, *queue_csv, *flows_csv, *pfc_csv;
	struct sim_series ser;
};

/* splitmix64: the one random source (ECN marking), seeded per scenario. */
static inline u64 sim_rand(struct sim *s)
{
	u64 z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ps to serialise @bytes at @kbps. */
static inline u64 sim_tx_ps(u64 bytes, u64 kbps)
{
	return bytes * 8 * 1000000000ULL / kbps;
}

/* ---- port.c ---- */
int sim_port_init(struct sim *s);
void sim_port_free(struct sim *s);
void sim_port_arrive(struct sim *s, u32 flow, u32 bytes, u32 psn);
void sim_port_depart(struct sim *s, u32 port);

/* ---- flow.c ---- */
const struct sroce_cc_ops *sim_cc_ops(u32 algo);
int sim_cc_param_set(struct sroce_cc_params *p, const char *key,
		     const char *val);
int sim_flows_init(struct sim *s);
void sim_flow_start(struct sim *s, u32 i);
void sim_flow_kick(struct sim *s, u32 i);
void sim_flow_stop(struct sim *s, u32 i);
void sim_flow_send(struct sim *s, u32 i);
void sim_flow_cnp(struct sim *s, u32 i);
void sim_nic_free(struct sim *s, u32 nic);
void sim_flow_pause(struct sim *s, u32 i, bool on);
int sim_flow_echo_push(struct sim *s, u32 i, const struct sim_pkt *pkt,
		       u64 ack_seq);
void sim_flow_int(struct sim *s, u32 i);
void sim_flow_ack(struct sim *s, u32 i, u32 psn);
void sim_flows_free(struct sim *s);
void sim_flow_xon_close(struct sim *s, struct sim_flow *f);
bool sim_flow_on(const struct sim_flow *f);
u64 sim_flow_rate(struct sim *s, u32 i, u32 *alpha);

/* ---- np.c ---- */
void sim_np_receive(struct sim *s, const struct sim_pkt *pkt, u64 t);

/* ---- rc.c ---- */
void sim_rc_init(struct sim *s, u32 i);
bool sim_rc_may_send(const struct sim *s, const struct sim_flow *f);
u32 sim_rc_pkt_bytes(const struct sim *s, const struct sim_flow *f, u32 psn);
u64 sim_rc_seq(const struct sim *s, const struct sim_flow *f, u32 psn);
void sim_rc_sent(struct sim *s, u32 i, u32 psn, u32 bytes);
bool sim_rc_receive(struct sim *s, const struct sim_pkt *pkt, u64 at_rx);
void sim_rc_ack(struct sim *s, u32 i, u32 psn);
void sim_rc_nak(struct sim *s, u32 i, u32 psn);
void sim_rc_timeout(struct sim *s, u32 i);
void sim_rc_cnp(struct sim *s, u32 i);

/* ---- output.c ---- */
int sim_out_open(struct sim *s, const char *dir);
void sim_out_sample(struct sim *s);
void sim_out_close(struct sim *s);
int sim_out_summary(struct sim *s, FILE *fp);
void sim_out_pfc(struct sim *s, u32 flow, bool xoff);

#endif /* _CCSIM_SIM_H */
