/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * abi.h - the project's declaration of libibverbs' private provider ABI.
 *
 * Debian ships only rdma-core's public headers (infiniband/verbs.h); the
 * provider interface (driver.h, kern-abi.h in rdma-core's tree) is private
 * and changes with releases.  This file declares the part of it sroce uses,
 * for the rdma-core release the Makefile detected (SROCE_RDMA_CORE, the
 * third field of `pkg-config --modversion libibverbs`).  Every size and
 * offset we depend on is pinned with a static_assert, so building against a
 * release whose layout differs fails here instead of corrupting memory at
 * run time.
 *
 * The entry points live under the symbol version IBVERBS_PRIVATE_34 (rdma-core
 * 43 to 56); linking with -libverbs records that version, so the dynamic
 * loader also refuses a libibverbs with a different private ABI.
 *
 * Adding a release: add its block to "Per-release layout facts" below (the
 * sizes that differ), add it to SUPPORTED_RDMA_CORE in the Makefile, and
 * re-run the build: the asserts show what else moved.
 */
#ifndef SROCE_PROVIDER_ABI_H
#define SROCE_PROVIDER_ABI_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* ---- Per-release layout facts ---- */

#ifndef SROCE_RDMA_CORE
#error "SROCE_RDMA_CORE (rdma-core release) is not set: build with provider/Makefile"
#endif

#if SROCE_RDMA_CORE == 44
/* struct ibv_qp_ex before wr_flush (added in v45). */
#define SROCE_ABI_QP_EX_SIZE 352
#define SROCE_ABI_PORT_ATTR_SIZE 52
#elif SROCE_RDMA_CORE == 56
/*
 * Layouts known from provider-abi.md, not yet built or tested here: the
 * Makefile refuses 56 until someone does.  What differs from 44:
 * ibv_qp_ex gained wr_flush (so verbs_qp grows by 8), ibv_port_attr gained
 * 4 bytes, ibv_cmd_create_cq_ex2 and an extra ibv_cmd_reg_dmabuf_mr
 * argument exist (neither used here).
 */
#define SROCE_ABI_QP_EX_SIZE 360
#define SROCE_ABI_PORT_ATTR_SIZE 56
#else
#error "unsupported rdma-core release: add its layout facts to provider/abi.h"
#endif

/* The public structs the private ones embed must be what we expect. */
static_assert(sizeof(struct ibv_device) == 664, "ibv_device layout");
static_assert(sizeof(struct ibv_context) == 328, "ibv_context layout");
static_assert(sizeof(struct verbs_context) == 648, "verbs_context layout");
static_assert(offsetof(struct verbs_context, context) == 320,
	      "ibv_context must be the last member of verbs_context");
static_assert(sizeof(struct ibv_qp) == 160, "ibv_qp layout");
static_assert(sizeof(struct ibv_qp_ex) == SROCE_ABI_QP_EX_SIZE,
	      "ibv_qp_ex layout");
static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "ibv_qp_ex layout");
static_assert(sizeof(struct ibv_cq) == 128, "ibv_cq layout");
static_assert(sizeof(struct ibv_cq_ex) == 288, "ibv_cq_ex layout");
static_assert(sizeof(struct ibv_port_attr) == SROCE_ABI_PORT_ATTR_SIZE,
	      "ibv_port_attr layout");
static_assert(sizeof(struct ibv_mr) == 48, "ibv_mr layout");

/* ---- Intrusive list node (rdma-core's ccan list_node) ---- */

struct sroce_abi_list_node {
	struct sroce_abi_list_node *next;
	struct sroce_abi_list_node *prev;
};
static_assert(sizeof(struct sroce_abi_list_node) == 16, "list_node layout");

/* ---- Device matching and registration ---- */

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind; /* VERBS_MATCH_* */
};
static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent size");
static_assert(offsetof(struct verbs_match_ent, kind) == 20,
	      "verbs_match_ent.kind");

/* Length of the name arrays in struct verbs_sysfs_dev. */
#define SROCE_ABI_SYSFS_NAME_MAX 64
#define SROCE_ABI_SYSFS_PATH_MAX 256

/* One rdma device as libibverbs found it in sysfs/netlink. */
struct verbs_sysfs_dev {
	struct sroce_abi_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[SROCE_ABI_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[SROCE_ABI_SYSFS_NAME_MAX];
	char ibdev_path[SROCE_ABI_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};
static_assert(sizeof(struct verbs_sysfs_dev) == 992, "verbs_sysfs_dev size");
static_assert(offsetof(struct verbs_sysfs_dev, provider_data) == 16,
	      "verbs_sysfs_dev.provider_data");
static_assert(offsetof(struct verbs_sysfs_dev, match) == 24,
	      "verbs_sysfs_dev.match");
static_assert(offsetof(struct verbs_sysfs_dev, sysfs_name) == 36,
	      "verbs_sysfs_dev.sysfs_name");
static_assert(offsetof(struct verbs_sysfs_dev, sysfs_cdev) == 104,
	      "verbs_sysfs_dev.sysfs_cdev");
static_assert(offsetof(struct verbs_sysfs_dev, ibdev_name) == 112,
	      "verbs_sysfs_dev.ibdev_name");
static_assert(offsetof(struct verbs_sysfs_dev, ibdev_path) == 176,
	      "verbs_sysfs_dev.ibdev_path");
static_assert(offsetof(struct verbs_sysfs_dev, modalias) == 432,
	      "verbs_sysfs_dev.modalias");
static_assert(offsetof(struct verbs_sysfs_dev, node_guid) == 944,
	      "verbs_sysfs_dev.node_guid");
static_assert(offsetof(struct verbs_sysfs_dev, driver_id) == 952,
	      "verbs_sysfs_dev.driver_id");
static_assert(offsetof(struct verbs_sysfs_dev, abi_ver) == 968,
	      "verbs_sysfs_dev.abi_ver");
static_assert(offsetof(struct verbs_sysfs_dev, time_created) == 976,
	      "verbs_sysfs_dev.time_created");

struct verbs_device;

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	/* Called for every device after the table match; final say. */
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};
static_assert(sizeof(struct verbs_device_ops) == 72, "verbs_device_ops size");
static_assert(offsetof(struct verbs_device_ops, match_table) == 16,
	      "verbs_device_ops.match_table");
static_assert(offsetof(struct verbs_device_ops, match_device) == 32,
	      "verbs_device_ops.match_device");
static_assert(offsetof(struct verbs_device_ops, alloc_context) == 40,
	      "verbs_device_ops.alloc_context");
static_assert(offsetof(struct verbs_device_ops, import_context) == 48,
	      "verbs_device_ops.import_context");
static_assert(offsetof(struct verbs_device_ops, alloc_device) == 56,
	      "verbs_device_ops.alloc_device");
static_assert(offsetof(struct verbs_device_ops, uninit_device) == 64,
	      "verbs_device_ops.uninit_device");

struct verbs_device {
	struct ibv_device device; /* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct sroce_abi_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};
static_assert(sizeof(struct verbs_device) == 712, "verbs_device size");
static_assert(offsetof(struct verbs_device, ops) == 664, "verbs_device.ops");
static_assert(offsetof(struct verbs_device, refcount) == 672,
	      "verbs_device.refcount");
static_assert(offsetof(struct verbs_device, sysfs) == 696,
	      "verbs_device.sysfs");
static_assert(offsetof(struct verbs_device, core_support) == 704,
	      "verbs_device.core_support");

/* ---- Provider-visible object wrappers ---- */

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};
static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr size");
static_assert(offsetof(struct verbs_mr, mr_type) == 48, "verbs_mr.mr_type");
static_assert(offsetof(struct verbs_mr, access) == 52, "verbs_mr.access");

struct verbs_xrcd;

/* verbs_qp.comp_mask bits: libibverbs reads VERBS_QP_EX in ibv_qp_to_qp_ex. */
enum {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

/*
 * libibverbs casts every struct ibv_qp to this (ibv_qp_to_qp_ex reads
 * comp_mask), so a provider must always allocate a whole verbs_qp.
 */
struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};
static_assert(offsetof(struct verbs_qp, comp_mask) == SROCE_ABI_QP_EX_SIZE,
	      "verbs_qp.comp_mask");
static_assert(sizeof(struct verbs_qp) == SROCE_ABI_QP_EX_SIZE + 16,
	      "verbs_qp size");

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};
static_assert(sizeof(struct verbs_cq) == 288, "verbs_cq size");

/* ---- The per-context operation table ---- */

/*
 * One pointer per verb, sorted by name.  verbs_set_ops() copies the non-NULL
 * ones; the rest answer EOPNOTSUPP.  Members sroce does not implement are
 * declared with their real types all the same, so the table reads like the
 * ABI it is.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/* Slot n of the table is at n * 8: pin every slot sroce fills. */
#define SROCE_ABI_OPS_SLOT(member, n)                               \
	static_assert(offsetof(struct verbs_context_ops, member) == \
			      (n) * sizeof(void (*)(void)),         \
		      "verbs_context_ops." #member)
SROCE_ABI_OPS_SLOT(alloc_mw, 2);
SROCE_ABI_OPS_SLOT(alloc_pd, 5);
SROCE_ABI_OPS_SLOT(bind_mw, 10);
SROCE_ABI_OPS_SLOT(create_ah, 13);
SROCE_ABI_OPS_SLOT(create_cq, 15);
SROCE_ABI_OPS_SLOT(create_cq_ex, 16);
SROCE_ABI_OPS_SLOT(create_qp, 19);
SROCE_ABI_OPS_SLOT(create_qp_ex, 20);
SROCE_ABI_OPS_SLOT(create_srq, 22);
SROCE_ABI_OPS_SLOT(dealloc_mw, 25);
SROCE_ABI_OPS_SLOT(dealloc_pd, 26);
SROCE_ABI_OPS_SLOT(dereg_mr, 28);
SROCE_ABI_OPS_SLOT(destroy_ah, 29);
SROCE_ABI_OPS_SLOT(destroy_cq, 31);
SROCE_ABI_OPS_SLOT(destroy_qp, 34);
SROCE_ABI_OPS_SLOT(destroy_srq, 36);
SROCE_ABI_OPS_SLOT(free_context, 39);
SROCE_ABI_OPS_SLOT(modify_qp, 47);
SROCE_ABI_OPS_SLOT(modify_srq, 49);
SROCE_ABI_OPS_SLOT(poll_cq, 53);
SROCE_ABI_OPS_SLOT(post_recv, 54);
SROCE_ABI_OPS_SLOT(post_send, 55);
SROCE_ABI_OPS_SLOT(post_srq_recv, 57);
SROCE_ABI_OPS_SLOT(query_device_ex, 58);
SROCE_ABI_OPS_SLOT(query_port, 60);
SROCE_ABI_OPS_SLOT(query_qp, 61);
SROCE_ABI_OPS_SLOT(query_srq, 64);
SROCE_ABI_OPS_SLOT(reg_mr, 68);
SROCE_ABI_OPS_SLOT(req_notify_cq, 69);
SROCE_ABI_OPS_SLOT(resize_cq, 71);
SROCE_ABI_OPS_SLOT(unimport_pd, 75);
static_assert(sizeof(struct verbs_context_ops) == 76 * 8,
	      "verbs_context_ops size");

/* ---- Command buffers of the uverbs write() interface ---- */

/*
 * The ibv_cmd_* helpers take the provider's command buffer: the uverbs
 * header, the kernel's core request struct, then driver data.  The helpers
 * fill the header and the core struct themselves and find the driver data
 * from cmd_size; these wrappers only give them the right size and shape.
 * Tag names are the ones the helper prototypes use.
 */
#define SROCE_ABI_WRITE_CMD(tag, kabi)                                         \
	struct tag {                                                           \
		struct ib_uverbs_cmd_hdr hdr;                                  \
		struct kabi core;                                              \
	};                                                                     \
	static_assert(sizeof(struct tag) == sizeof(struct ib_uverbs_cmd_hdr) + \
						    sizeof(struct kabi),       \
		      #tag " size")

/* Extended commands add struct ib_uverbs_ex_cmd_hdr after the header. */
#define SROCE_ABI_WRITE_CMD_EX(tag, kabi)                                   \
	struct tag {                                                        \
		struct ib_uverbs_cmd_hdr hdr;                               \
		struct ib_uverbs_ex_cmd_hdr ex_hdr;                         \
		struct kabi core;                                           \
	};                                                                  \
	static_assert(sizeof(struct tag) ==                                 \
			      sizeof(struct ib_uverbs_cmd_hdr) +            \
				      sizeof(struct ib_uverbs_ex_cmd_hdr) + \
				      sizeof(struct kabi),                  \
		      #tag " size");                                        \
	static_assert(sizeof(struct tag) % 8 == 0, #tag " alignment")

static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8, "ib_uverbs_cmd_hdr");
static_assert(sizeof(struct ib_uverbs_ex_cmd_hdr) == 16,
	      "ib_uverbs_ex_cmd_hdr");

SROCE_ABI_WRITE_CMD(ibv_get_context, ib_uverbs_get_context);
SROCE_ABI_WRITE_CMD(ibv_query_port, ib_uverbs_query_port);
SROCE_ABI_WRITE_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
SROCE_ABI_WRITE_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
SROCE_ABI_WRITE_CMD(ibv_create_cq, ib_uverbs_create_cq);
SROCE_ABI_WRITE_CMD(ibv_resize_cq, ib_uverbs_resize_cq);
SROCE_ABI_WRITE_CMD(ibv_create_qp, ib_uverbs_create_qp);
SROCE_ABI_WRITE_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
SROCE_ABI_WRITE_CMD(ibv_query_qp, ib_uverbs_query_qp);
SROCE_ABI_WRITE_CMD(ibv_create_srq, ib_uverbs_create_srq);
SROCE_ABI_WRITE_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);
SROCE_ABI_WRITE_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
SROCE_ABI_WRITE_CMD(ibv_query_srq, ib_uverbs_query_srq);
SROCE_ABI_WRITE_CMD_EX(ibv_create_cq_ex, ib_uverbs_ex_create_cq);
SROCE_ABI_WRITE_CMD_EX(ibv_create_qp_ex, ib_uverbs_ex_create_qp);

/* Core response sizes the driver data is appended to. */
static_assert(sizeof(struct ib_uverbs_get_context_resp) == 8,
	      "ib_uverbs_get_context_resp");
static_assert(sizeof(struct ib_uverbs_create_cq_resp) == 8,
	      "ib_uverbs_create_cq_resp");
static_assert(sizeof(struct ib_uverbs_ex_create_cq_resp) == 16,
	      "ib_uverbs_ex_create_cq_resp");
static_assert(sizeof(struct ib_uverbs_resize_cq_resp) == 8,
	      "ib_uverbs_resize_cq_resp");
static_assert(sizeof(struct ib_uverbs_create_qp_resp) == 32,
	      "ib_uverbs_create_qp_resp");
static_assert(sizeof(struct ib_uverbs_ex_create_qp_resp) == 40,
	      "ib_uverbs_ex_create_qp_resp");
static_assert(sizeof(struct ib_uverbs_create_srq_resp) == 16,
	      "ib_uverbs_create_srq_resp");
static_assert(sizeof(struct ib_uverbs_create_ah_resp) == 4,
	      "ib_uverbs_create_ah_resp");

/* ---- Helpers exported by libibverbs under IBVERBS_PRIVATE_34 ---- */

void verbs_register_driver_34(const struct verbs_device_ops *ops);

/* Allocates alloc_size bytes, closes cmd_fd on failure. */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

#endif /* SROCE_PROVIDER_ABI_H */
