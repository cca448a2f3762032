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

static int sroce_limit_set(const char *s, const struct kernel_param *kp)
{
	struct sroce_limit *l = kp->arg;
	unsigned int v;
	int err;

	err = kstrtouint(s, 10, &v);
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

/*
 * At least 16 of each object: ib_mad and rdma_cm hold a PD, CQs and the
 * GSI QP on every device, and a device that cannot hold them is useless.
 */
static struct sroce_limit sroce_lim_qp = { SROCE_MAX_QP, 16, SROCE_MAX_QP };
static struct sroce_limit sroce_lim_cq = { SROCE_MAX_CQ, 16, SROCE_MAX_CQ };
static struct sroce_limit sroce_lim_mr = { SROCE_MAX_MR, 16, SROCE_MAX_MR };
static struct sroce_limit sroce_lim_mw = { SROCE_MAX_MW, 16, SROCE_MAX_MW };
static struct sroce_limit sroce_lim_pd = { SROCE_MAX_PD, 16, SROCE_MAX_PD };
static struct sroce_limit sroce_lim_ah = { SROCE_MAX_AH, 16, SROCE_MAX_AH };
static struct sroce_limit sroce_lim_srq = { SROCE_MAX_SRQ, 16, SROCE_MAX_SRQ };
static struct sroce_limit sroce_lim_mcg = { SROCE_MAX_MCAST_GRP, 1,
					    SROCE_MAX_MCAST_GRP };
static struct sroce_limit sroce_lim_mca = { SROCE_MAX_MCAST_TOTAL_ATTACH, 1,
					    SROCE_MAX_MCAST_TOTAL_ATTACH };

/* The range is in usage.rst; reading a parameter first shows its maximum. */
#define SROCE_LIMIT_DESC \
	"limit of the devices created from now on (default: the maximum)"

module_param_cb(max_qp, &sroce_limit_ops, &sroce_lim_qp, 0644);
MODULE_PARM_DESC(max_qp, SROCE_LIMIT_DESC);
module_param_cb(max_cq, &sroce_limit_ops, &sroce_lim_cq, 0644);
MODULE_PARM_DESC(max_cq, SROCE_LIMIT_DESC);
module_param_cb(max_mr, &sroce_limit_ops, &sroce_lim_mr, 0644);
MODULE_PARM_DESC(max_mr, SROCE_LIMIT_DESC);
module_param_cb(max_mw, &sroce_limit_ops, &sroce_lim_mw, 0644);
MODULE_PARM_DESC(max_mw, SROCE_LIMIT_DESC);
module_param_cb(max_pd, &sroce_limit_ops, &sroce_lim_pd, 0644);
MODULE_PARM_DESC(max_pd, SROCE_LIMIT_DESC);
module_param_cb(max_ah, &sroce_limit_ops, &sroce_lim_ah, 0644);
MODULE_PARM_DESC(max_ah, SROCE_LIMIT_DESC);
module_param_cb(max_srq, &sroce_limit_ops, &sroce_lim_srq, 0644);
MODULE_PARM_DESC(max_srq, SROCE_LIMIT_DESC);
module_param_cb(max_mcast_grp, &sroce_limit_ops, &sroce_lim_mcg, 0644);
MODULE_PARM_DESC(max_mcast_grp, SROCE_LIMIT_DESC);
module_param_cb(max_total_mcast_qp_attach, &sroce_limit_ops, &sroce_lim_mca,
		0644);
MODULE_PARM_DESC(max_total_mcast_qp_attach, SROCE_LIMIT_DESC);

void sroce_limits_fill(struct ib_device_attr *a)
{
	unsigned int grp, per_grp;

	a->max_qp = READ_ONCE(sroce_lim_qp.val);
	a->max_cq = READ_ONCE(sroce_lim_cq.val);
	a->max_mr = READ_ONCE(sroce_lim_mr.val);
	a->max_mw = READ_ONCE(sroce_lim_mw.val);
	a->max_pd = READ_ONCE(sroce_lim_pd.val);
	a->max_ah = READ_ONCE(sroce_lim_ah.val);
	a->max_srq = READ_ONCE(sroce_lim_srq.val);
	/*
	 * A group exists only while a QP is attached to it, so no more
	 * groups than attachments; and no more attachments than the groups
	 * can hold, so that each advertised limit can be reached.
	 */
	grp = min(READ_ONCE(sroce_lim_mcg.val), READ_ONCE(sroce_lim_mca.val));
	per_grp = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_mcast_grp = grp;
	a->max_total_mcast_qp_attach =
		min(READ_ONCE(sroce_lim_mca.val), grp * per_grp);
	a->max_res_rd_atom = a->max_qp * SROCE_MAX_RD_ATOM;
}
