// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce.c - registration with libibverbs, device matching, contexts.
 *
 * sroce.ko is out of tree, so its devices carry driver_id
 * RDMA_DRIVER_UNKNOWN and no modalias, and `rdma link add` lets the user
 * name them anything.  Matching on a driver id or a name prefix would
 * therefore be wrong; instead every sroce ib device exposes the sysfs
 * attribute SROCE_SYSFS_ABI_ATTR, and match_device() claims exactly the
 * devices that have it.
 *
 * How libibverbs 44 gets there (libibverbs/init.c, match_device()): the
 * table match (driver id, then "rdma_device:N<name>", then device/modalias)
 * runs first and only records what it found; when the provider has a
 * match_device callback, that callback is then called unconditionally and
 * has the final say.  So a table holding only the sentinel is enough for
 * the callback to see every device, whatever its name.  After it accepts,
 * libibverbs also checks the device's uverbs ABI version against
 * match_min/max_abi_version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/sroce-abi.h>

#include "mw.h"
#include "poll.h"
#include "post.h"
#include "sroce.h"
#include "srq.h"
#include "verbs.h"

/* Out-of-tree drivers have no id of their own (RDMA_DRIVER_UNKNOWN). */
#define SROCE_DRIVER_ID 0

struct sroce_get_context_uresp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_context_resp drv;
};
static_assert(offsetof(struct sroce_get_context_uresp, drv) ==
		      sizeof(struct ib_uverbs_get_context_resp),
	      "sroce_get_context_uresp: padding before driver data");
static_assert(sizeof(struct sroce_get_context_uresp) ==
		      sizeof(struct ib_uverbs_get_context_resp) +
			      sizeof(struct sroce_alloc_context_resp),
	      "sroce_get_context_uresp: padding after driver data");

/*
 * Read the device's sroce ABI attribute into *abi.  False when the device
 * has none (not an sroce device, silently) or when it is unreadable (an
 * sroce device we cannot use: say so).
 */
static bool sroce_read_abi_attr(struct verbs_sysfs_dev *sysfs_dev,
				unsigned long *abi)
{
	char buf[16];
	char *end;
	int len;

	errno = 0;
	len = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					SROCE_SYSFS_ABI_ATTR);
	if (len < 0 && errno == ENOENT)
		return false;

	if (len > 0) {
		errno = 0;
		*abi = strtoul(buf, &end, 10);
		if (!errno && end != buf && !*end)
			return true;
	}
	fprintf(stderr,
		SROCE_LOG_PREFIX "device %s: unreadable %s; not using it\n",
		sysfs_dev->ibdev_name, SROCE_SYSFS_ABI_ATTR);
	return false;
}

static bool sroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	unsigned long abi;

	if (!sroce_read_abi_attr(sysfs_dev, &abi))
		return false;

	if (abi != SROCE_ABI_VERSION) {
		fprintf(stderr,
			SROCE_LOG_PREFIX
			"device %s: kernel sroce ABI %lu, provider ABI %u: rebuild or upgrade libsroce and sroce.ko together\n",
			sysfs_dev->ibdev_name, abi, SROCE_ABI_VERSION);
		return false;
	}
	return true;
}

static struct verbs_device *
sroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sroce_device *sdev;

	(void)sysfs_dev;
	sdev = calloc(1, sizeof(*sdev));
	if (!sdev)
		return NULL;
	return &sdev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free((struct sroce_device *)vdev);
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *sctx = to_sctx(ibctx);

	verbs_uninit_context(&sctx->vctx);
	free(sctx);
}

static const struct verbs_context_ops sroce_ctx_ops = {
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	/* Multicast attach/detach are plain kernel commands. */
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = sroce_bind_mw,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.create_srq = sroce_create_srq,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = sroce_free_context,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device_ex = sroce_query_device_ex,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_mr = sroce_reg_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,
};

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd, void *private_data)
{
	struct sroce_get_context_uresp resp = {};
	struct ibv_get_context cmd = {};
	struct sroce_context *sctx;
	int ret;

	(void)private_data;
	/* Takes ownership of cmd_fd: closed on failure or by uninit. */
	sctx = _verbs_init_and_alloc_context(
		ibdev, cmd_fd, sizeof(*sctx),
		(struct verbs_context *)offsetof(struct sroce_context, vctx),
		SROCE_DRIVER_ID);
	if (!sctx)
		return NULL;

	ret = ibv_cmd_get_context(&sctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_uninit;

	if (resp.drv.abi_version != SROCE_ABI_VERSION) {
		/* sysfs said otherwise at match time: module reloaded? */
		fprintf(stderr,
			SROCE_LOG_PREFIX
			"device %s: kernel sroce ABI %u, provider ABI %u: rebuild or upgrade libsroce and sroce.ko together\n",
			ibdev->name, resp.drv.abi_version, SROCE_ABI_VERSION);
		ret = EPROTO;
		goto err_uninit;
	}
	sctx->abi_version = resp.drv.abi_version;

	verbs_set_ops(&sctx->vctx, &sroce_ctx_ops);
	return &sctx->vctx;

err_uninit:
	verbs_uninit_context(&sctx->vctx);
	free(sctx);
	errno = ret;
	return NULL;
}

/* Only the sentinel: sroce_match_device() decides (see the top comment). */
static const struct verbs_match_ent sroce_match_table[] = {
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	/* sroce.ko reports SROCE_ABI_VERSION as the uverbs ABI version. */
	.match_min_abi_version = SROCE_ABI_VERSION,
	.match_max_abi_version = SROCE_ABI_VERSION,
	.match_table = sroce_match_table,
	.match_device = sroce_match_device,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
};

/* Runs when libibverbs dlopen()s us; the only way in. */
static void __attribute__((constructor)) sroce_register_driver(void)
{
	verbs_register_driver_34(&sroce_dev_ops);
}
