// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.create_cq gets the uverbs attribute bundle (Linux 6.11). */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

static int probe_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return 0;
}

static const struct ib_device_ops probe_ops __maybe_unused = {
	.create_cq = probe_create_cq,
};
