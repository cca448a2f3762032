/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * sroce-abi.h - the one definition of the interface between sroce.ko and
 * libsroce (the libibverbs provider).
 *
 * Everything shared between kernel and user space is declared here: the
 * ABI version, the driver-specific parts of the uverbs create commands and
 * responses, and the layout of the rings that are mmap()ed into the user
 * process (send queue, receive queue, completion queue).
 *
 * Rings
 * -----
 * A ring is one virtually contiguous buffer: a struct sroce_ring_hdr (three
 * cache lines) followed by 2^log2_slots slots of slot_size bytes each.
 * prod and cons are free-running 32-bit counters; slot i lives at index
 * (i & (nslots - 1)).  The ring is empty when prod == cons and full when
 * prod - cons == nslots.
 *
 * Each ring has exactly one producer and one consumer.  The producer writes
 * a slot, then publishes it with a store-release of prod; the consumer reads
 * prod with a load-acquire before reading slots, and releases a slot by a
 * store-release of cons.  That is the only cross-side ordering required.
 *
 *   ring   producer        consumer
 *   SQ     user space      kernel
 *   RQ     user space      kernel
 *   CQ     kernel          user space
 *
 * The kernel never trusts a value it reads from a ring: it keeps a private
 * copy of the index it owns, treats a peer index that is more than nslots
 * ahead as a protocol error, and copies every slot out before validating it.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Bumped on every incompatible change of this file.  Reported as the
 * uverbs ABI version of every sroce device and in the sysfs attribute
 * /sys/class/infiniband/<dev>/sroce_abi_version, which the provider reads
 * to recognise sroce devices whatever their name.
 */
#define SROCE_ABI_VERSION 1

/* Name of the sysfs attribute (under the ib device) that identifies sroce. */
#define SROCE_SYSFS_ABI_ATTR "sroce_abi_version"

/* Cache line the ring indices are padded to. */
#define SROCE_RING_CACHELINE 64

struct sroce_ring_hdr {
	/* Line 0: geometry, written once by the kernel before mapping. */
	__u32 log2_slots; /* number of slots = 1 << log2_slots */
	__u32 slot_size; /* bytes per slot, multiple of 16 */
	__u32 flags; /* SROCE_RING_F_* (kernel writes) */
	__u32 reserved0[13];
	/* Line 1: producer index, written only by the producer. */
	__u32 prod;
	__u32 reserved1[15];
	/* Line 2: consumer index, written only by the consumer. */
	__u32 cons;
	__u32 reserved2[15];
};

/* Set by the kernel when the owning object is in error (e.g. QP flushed). */
#define SROCE_RING_F_ERROR (1U << 0)

/* Offset of slot 0 from the start of the mapping. */
#define SROCE_RING_DATA_OFFSET ((__u32)sizeof(struct sroce_ring_hdr))

/* Scatter/gather element, as in struct ibv_sge. */
struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Send WQE opcodes: the values of enum ibv_wr_opcode. */
enum sroce_wr_opcode {
	SROCE_WR_RDMA_WRITE = 0,
	SROCE_WR_RDMA_WRITE_WITH_IMM = 1,
	SROCE_WR_SEND = 2,
	SROCE_WR_SEND_WITH_IMM = 3,
	SROCE_WR_RDMA_READ = 4,
	SROCE_WR_ATOMIC_CMP_AND_SWP = 5,
	SROCE_WR_ATOMIC_FETCH_AND_ADD = 6,
	SROCE_WR_LOCAL_INV = 7,
	SROCE_WR_BIND_MW = 8,
	SROCE_WR_SEND_WITH_INV = 9,
};

/* WQE flags: the values of enum ibv_send_flags. */
#define SROCE_WQE_FENCE (1U << 0)
#define SROCE_WQE_SIGNALED (1U << 1)
#define SROCE_WQE_SOLICITED (1U << 2)
#define SROCE_WQE_INLINE (1U << 3)

/*
 * Send queue slot.  A fixed 64-byte header followed by either num_sge
 * struct sroce_sge or, with SROCE_WQE_INLINE, inline_len bytes of data.
 */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode; /* enum sroce_wr_opcode */
	__u32 flags; /* SROCE_WQE_* */
	__u32 num_sge; /* SGEs after the header (not inline) */
	__u32 inline_len; /* bytes of inline data (inline only) */
	union {
		__be32 imm_data; /* *_WITH_IMM */
		__u32 invalidate_rkey; /* SEND_WITH_INV, LOCAL_INV */
		__u32 bind_rkey; /* BIND_MW: the window's new rkey */
	} ex;
	union {
		__u32 reserved0;
		__u32 bind_access; /* BIND_MW: IBV_ACCESS_REMOTE_* */
	};
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah_num; /* from struct sroce_create_ah_resp */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			__aligned_u64 addr; /* first byte of the window */
			__aligned_u64 length; /* 0 unbinds */
			__u32 mr_lkey; /* MR the window lies in */
			__u32 mw_rkey; /* the window's current rkey */
		} bind; /* BIND_MW */
	} wr;
};

/* Receive queue slot: header then num_sge struct sroce_sge. */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/*
 * CQE flags.  Not the values of enum ibv_wc_flags: the provider translates.
 * (They equal the kernel's IB_WC_* bits, which sroce.ko asserts.)
 */
#define SROCE_CQE_F_GRH (1U << 0) /* UD: 40-byte GRH area filled */
#define SROCE_CQE_F_WITH_IMM (1U << 1) /* ex.imm_data valid */
#define SROCE_CQE_F_WITH_INV (1U << 2) /* ex.invalidate_rkey valid */
#define SROCE_CQE_F_IP_CSUM_OK (1U << 3)

/*
 * Completion queue slot.  The first 48 bytes are struct ib_uverbs_wc so the
 * provider can fill struct ibv_wc field by field.
 */
struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status; /* enum ibv_wc_status */
	__u32 opcode; /* enum ibv_wc_opcode */
	__u32 vendor_err;
	__u32 byte_len;
	union {
		__be32 imm_data;
		__u32 invalidate_rkey;
	} ex;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags; /* SROCE_CQE_F_* */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type; /* enum ib_gid_type style, 0 if unknown */
	__aligned_u64 timestamp; /* ns, 0 when not recorded */
	__u32 reserved[2];
};

/* ---- uverbs driver data ---- */

struct sroce_alloc_context_resp {
	__u32 abi_version; /* SROCE_ABI_VERSION */
	__u32 reserved;
};

/*
 * create_cq: no driver input.  The response tells where to mmap the ring.
 */
struct sroce_create_cq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size; /* bytes to map */
	__u32 reserved;
};

/* resize_cq: the new ring replaces the old one. */
struct sroce_resize_cq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 reserved;
};

/*
 * create_qp: no driver input.  Rings not used by the QP (e.g. the RQ of a
 * QP bound to an SRQ) have mmap_size 0.
 */
struct sroce_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 rq_mmap_offset;
	__u32 sq_mmap_size;
	__u32 rq_mmap_size;
	__u32 max_inline_data; /* as granted; fits in one SQ slot */
	__u32 reserved;
};

/* create_srq: the shared receive ring. */
struct sroce_create_srq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 srq_num;
};

/*
 * modify_srq with IBV_SRQ_MAX_WR (resize) of a user SRQ.  The command has
 * no response, so its driver data names the user address where the kernel
 * writes the new ring's mapping before it moves the posted WQEs there.
 * Without it a user SRQ resize fails with EOPNOTSUPP.
 */
struct sroce_modify_srq_cmd {
	__aligned_u64 resp_addr; /* user address of a sroce_resize_srq_resp */
};

struct sroce_resize_srq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 reserved;
};

/* create_ah: the number a UD send WQE uses to name this AH. */
struct sroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

#endif /* SROCE_ABI_USER_H */
