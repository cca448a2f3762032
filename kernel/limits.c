// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - module parameters that lower a new device's object limits.
 *
 * /sys/module/sroce/parameters/max_<kind> holds the limit the next device
 * gets; a write outside [min, compile-time maximum] fails with EINVAL and
 * changes nothing.  The parameters are read once per device, in newlink,
 * so a device's limits never change under its objects.  Documented in
 * Documentation/usage.rst, ABI record sysfs-module-sroce.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <rdma/ib_verbs.h>

#include "device.h"
#include "limits.h"

/* One limit: its current value and the range a write may set. */
struct sroce_limit {
	unsigned int val; /* WRITE_ONCE by the parameter's setter */
	unsigned int min;
	unsigned int max;
};

/*
 * At least 16 of each object: ib_mad and rdma_cm hold a PD, CQs and the
 * GSI QP on every device, and a device that cannot hold them is useless.
 */
#define SROCE_LIMIT(name, lo, hi)                                          \
	static struct sroce_limit sroce_lim_##name = {                     \
		.val = (hi), .min = (lo), .max = (hi)                      \
	};                                                                 \
	module_param_cb(name, &sroce_limit_ops, &sroce_lim_##name, 0644); \
	MODULE_PARM_DESC(name, "limit of the devices created from now on " \
			 "(at least " #lo ", at most the default)")

static int sroce_limit_set(const char *s, const struct kernel_param *kp)
{
	struct sroce_limit *l = kp->arg;
	unsigned int v;
	int err;

	err = kstrtouint(s, 0, &v);
	if (err)
		return err;
	if (v < l->min || v > l->max)
		return -EINVAL;
	WRITE_ONCE(l->val, v);
	return 0;
}

static int sroce_limit_get(char *buf, const struct kernel_param *kp)
{
	const struct sroce_limit *l = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%u\n", READ_ONCE(l->val));
}

static const struct kernel_param_ops sroce_limit_ops = {
	.set = sroce_limit_set,
	.get = sroce_limit_get,
};

SROCE_LIMIT(max_qp, 16, SROCE_MAX_QP);
SROCE_LIMIT(max_cq, 16, SROCE_MAX_CQ);
SROCE_LIMIT(max_mr, 16, SROCE_MAX_MR);
SROCE_LIMIT(max_mw, 16, SROCE_MAX_MW);
SROCE_LIMIT(max_pd, 16, SROCE_MAX_PD);
SROCE_LIMIT(max_ah, 16, SROCE_MAX_AH);
SROCE_LIMIT(max_srq, 16, SROCE_MAX_SRQ);
SROCE_LIMIT(max_mcast_grp, 1, SROCE_MAX_MCAST_GRP);
SROCE_LIMIT(max_total_mcast_qp_attach, 1, SROCE_MAX_MCAST_TOTAL_ATTACH);

void sroce_limits_fill(struct ib_device_attr *a)
{
	a->max_qp = READ_ONCE(sroce_lim_max_qp.val);
	a->max_cq = READ_ONCE(sroce_lim_max_cq.val);
	a->max_mr = READ_ONCE(sroce_lim_max_mr.val);
	a->max_mw = READ_ONCE(sroce_lim_max_mw.val);
	a->max_pd = READ_ONCE(sroce_lim_max_pd.val);
	a->max_ah = READ_ONCE(sroce_lim_max_ah.val);
	a->max_srq = READ_ONCE(sroce_lim_max_srq.val);
	a->max_mcast_grp = READ_ONCE(sroce_lim_max_mcast_grp.val);
	a->max_total_mcast_qp_attach =
		READ_ONCE(sroce_lim_max_total_mcast_qp_attach.val);
	a->max_res_rd_atom = a->max_qp * SROCE_MAX_RD_ATOM;
}
