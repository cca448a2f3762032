// SPDX-License-Identifier: GPL-2.0
/*
 * cc_sysfs.c - congestion control knobs under
 * /sys/class/infiniband/<dev>/ecn/, named as NVIDIA's:
 *
 *   ecn/roce_np/  min_time_between_cnps cnp_dscp cnp_802p_prio cnp_ecn
 *                 enable/<0..7>
 *   ecn/roce_rp/  rpg_* dce_tcp_* rate_* initial_alpha_value clamp_*
 *                 cnp_window_cut window_rtt_fair hpcc_* cc_algo
 *                 available_cc_algos flavour enable/<0..7>
 *   ecn/roce_tx/  default_dscp ect/<0..7>
 *
 * Units and ranges are in Documentation/ABI/testing/
 * sysfs-class-infiniband-sroce.  A value out of range is refused with
 * -EINVAL and changes nothing.  RP parameters are replaced as a whole
 * (RCU), so the data path always sees one consistent set; they apply to
 * every QP at its next event, cc_algo to QPs created afterwards.
 */
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cc.h"
#include "cc_sysfs.h"
#include "device.h"

/* ecn/roce_xx is two levels below the ib device's kobject. */
static struct sroce_dev *sroce_knob_dev(struct kobject *kobj)
{
	struct device *dev = kobj_to_dev(kobj->parent->parent);

	return rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);
}

static int sroce_knob_u32(const char *buf, u32 min, u32 max, u32 *val)
{
	if (kstrtou32(buf, 0, val) || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

/* ---- RP parameters: a table of fields of struct sroce_cc_params ---- */

enum sroce_knob_type { SROCE_KNOB_U32, SROCE_KNOB_U64, SROCE_KNOB_BOOL };

struct sroce_rp_knob {
	struct kobj_attribute attr;
	u16 off; /* offsetof in struct sroce_cc_params */
	u8 type; /* enum sroce_knob_type */
	u32 scale; /* stored = written * scale (Mb/s -> kbit/s) */
	u32 min, max; /* in the written unit */
};

static ssize_t sroce_rp_show(struct kobject *kobj, struct kobj_attribute *a,
			     char *buf)
{
	struct sroce_rp_knob *k = container_of(a, struct sroce_rp_knob, attr);
	struct sroce_dev *sdev = sroce_knob_dev(kobj);
	const void *field;
	u64 v;

	rcu_read_lock();
	field = (const u8 *)rcu_dereference(sdev->cc->rp) + k->off;
	if (k->type == SROCE_KNOB_U64)
		v = *(const u64 *)field;
	else if (k->type == SROCE_KNOB_U32)
		v = *(const u32 *)field;
	else
		v = *(const bool *)field;
	rcu_read_unlock();
	return sysfs_emit(buf, "%llu\n", v / k->scale);
}

/* Replace the RP parameters with a modified copy.  cc->lock held. */
static int sroce_rp_replace(struct sroce_cc_dev *cd,
			    struct sroce_cc_params *fresh)
{
	struct sroce_cc_params *old;

	lockdep_assert_held(&cd->lock);
	old = rcu_dereference_protected(cd->rp, lockdep_is_held(&cd->lock));
	rcu_assign_pointer(cd->rp, fresh);
	synchronize_rcu();
	kfree(old);
	return 0;
}

static ssize_t sroce_rp_store(struct kobject *kobj, struct kobj_attribute *a,
			      const char *buf, size_t count)
{
	struct sroce_rp_knob *k = container_of(a, struct sroce_rp_knob, attr);
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;
	struct sroce_cc_params *p;
	void *field;
	u32 v;

	if (sroce_knob_u32(buf, k->min, k->max, &v))
		return -EINVAL;
	mutex_lock(&cd->lock);
	p = kmemdup(rcu_dereference_protected(cd->rp,
					      lockdep_is_held(&cd->lock)),
		    sizeof(*p), GFP_KERNEL);
	if (!p) {
		mutex_unlock(&cd->lock);
		return -ENOMEM;
	}
	field = (u8 *)p + k->off;
	if (k->type == SROCE_KNOB_U64)
		*(u64 *)field = (u64)v * k->scale;
	else if (k->type == SROCE_KNOB_U32)
		*(u32 *)field = v * k->scale;
	else
		*(bool *)field = v;
	sroce_rp_replace(cd, p);
	mutex_unlock(&cd->lock);
	return count;
}

#define SROCE_RP_KNOB(_name, _field, _type, _scale, _min, _max)             \
	static struct sroce_rp_knob sroce_rp_##_name = {                    \
		.attr = __ATTR(_name, 0644, sroce_rp_show, sroce_rp_store), \
		.off = offsetof(struct sroce_cc_params, _field),            \
		.type = SROCE_KNOB_##_type,                                 \
		.scale = _scale,                                            \
		.min = _min,                                                \
		.max = _max,                                                \
	}

#define SROCE_MBPS SROCE_CC_KBPS_PER_MBPS
#define SROCE_MAX_MBPS 400000 /* 400 Gb/s */

SROCE_RP_KNOB(rpg_time_reset, time_reset_us, U32, 1, 0, 1000000);
SROCE_RP_KNOB(rpg_byte_reset, byte_reset, U32, 1, 0, 0x7fffffff);
SROCE_RP_KNOB(rpg_threshold, threshold, U32, 1, 1, 31);
SROCE_RP_KNOB(rpg_max_rate, line_rate, U64, SROCE_MBPS, 0, SROCE_MAX_MBPS);
SROCE_RP_KNOB(rpg_ai_rate, ai_rate, U64, SROCE_MBPS, 1, SROCE_MAX_MBPS);
SROCE_RP_KNOB(rpg_hai_rate, hai_rate, U64, SROCE_MBPS, 1, SROCE_MAX_MBPS);
SROCE_RP_KNOB(rpg_gd, gd, U32, 1, 0, 15);
SROCE_RP_KNOB(rpg_min_dec_fac, min_dec_fac, U32, 1, 0, 100);
SROCE_RP_KNOB(rpg_min_rate, min_rate, U64, SROCE_MBPS, 1, SROCE_MAX_MBPS);
SROCE_RP_KNOB(rate_to_set_on_first_cnp, first_cnp_rate, U64, SROCE_MBPS, 0,
	      SROCE_MAX_MBPS);
SROCE_RP_KNOB(dce_tcp_g, g, U32, 1, 0, 1024);
SROCE_RP_KNOB(dce_tcp_rtt, alpha_period_us, U32, 1, 1, 1000000);
SROCE_RP_KNOB(rate_reduce_monitor_period, monitor_period_us, U32, 1, 0,
	      1000000);
SROCE_RP_KNOB(initial_alpha_value, initial_alpha, U32, 1, 0, 1024);
SROCE_RP_KNOB(clamp_tgt_rate, clamp_tgt_rate, BOOL, 1, 0, 1);
SROCE_RP_KNOB(clamp_tgt_rate_after_time_inc, clamp_tgt_rate_after_time_inc,
	      BOOL, 1, 0, 1);
/* not NVIDIA's: a handled CNP also cuts an RC QP's recovery window */
SROCE_RP_KNOB(cnp_window_cut, cnp_win_cut, BOOL, 1, 0, 1);
/* not NVIDIA's: the window's step follows how much of it waits in the host */
SROCE_RP_KNOB(window_rtt_fair, win_rtt_fair, BOOL, 1, 0, 1);
/* HPCC (proto/cc_hpcc.c); cc_hpcc.c bounds T to 100 ms itself */
SROCE_RP_KNOB(hpcc_eta, hpcc_eta, U32, 1, 1, 100);
SROCE_RP_KNOB(hpcc_max_stage, hpcc_max_stage, U32, 1, 0, 255);
SROCE_RP_KNOB(hpcc_ai_rate, hpcc_ai_rate, U64, SROCE_MBPS, 1, SROCE_MAX_MBPS);
SROCE_RP_KNOB(hpcc_base_rtt_us, hpcc_base_rtt_us, U32, 1, 1, 100000);

/* flavour: "paper" or "mlx"; loads that flavour's defaults (rpg_max_rate kept). */
static const char *const sroce_flavours[] = {
	[SROCE_CC_PAPER] = "paper",
	[SROCE_CC_MLX] = "mlx",
};

static ssize_t flavour_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	struct sroce_dev *sdev = sroce_knob_dev(kobj);
	u8 f;

	rcu_read_lock();
	f = rcu_dereference(sdev->cc->rp)->flavour;
	rcu_read_unlock();
	return sysfs_emit(buf, "%s\n", sroce_flavours[f]);
}

static ssize_t flavour_store(struct kobject *kobj, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;
	struct sroce_cc_params *p;
	int f = sysfs_match_string(sroce_flavours, buf);
	u64 max_rate;

	if (f < 0)
		return -EINVAL;
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_lock(&cd->lock);
	max_rate = rcu_dereference_protected(cd->rp, lockdep_is_held(&cd->lock))
			   ->line_rate;
	sroce_cc_params_default(p, f, max_rate);
	sroce_rp_replace(cd, p);
	mutex_unlock(&cd->lock);
	return count;
}

static struct kobj_attribute sroce_rp_flavour = __ATTR_RW(flavour);

static ssize_t cc_algo_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	struct sroce_dev *sdev = sroce_knob_dev(kobj);
	ssize_t n;

	rcu_read_lock();
	n = sysfs_emit(buf, "%s\n", rcu_dereference(sdev->cc->algo)->ops->name);
	rcu_read_unlock();
	return n;
}

static ssize_t cc_algo_store(struct kobject *kobj, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;
	struct sroce_cc_algo *algo, *old;
	char name[SROCE_CC_NAME_MAX];

	if (count >= sizeof(name))
		return -EINVAL;
	strscpy(name, buf, sizeof(name));
	strim(name);
	mutex_lock(&cd->lock);
	mutex_lock(&sroce_cc_algo_lock);
	algo = sroce_cc_find(name);
	/* The device keeps a reference on an algorithm module it selects. */
	if (!algo ||
	    (algo->owner != THIS_MODULE && !try_module_get(algo->owner))) {
		mutex_unlock(&sroce_cc_algo_lock);
		mutex_unlock(&cd->lock);
		return -EINVAL;
	}
	old = rcu_dereference_protected(cd->algo, lockdep_is_held(&cd->lock));
	rcu_assign_pointer(cd->algo, algo);
	mutex_unlock(&sroce_cc_algo_lock);
	mutex_unlock(&cd->lock);
	/* QP creation takes its own reference under RCU. */
	synchronize_rcu();
	if (old->owner != THIS_MODULE)
		module_put(old->owner);
	return count;
}

static struct kobj_attribute sroce_rp_cc_algo = __ATTR_RW(cc_algo);

static ssize_t available_cc_algos_show(struct kobject *kobj,
				       struct kobj_attribute *a, char *buf)
{
	struct sroce_cc_algo *algo;
	ssize_t n = 0;

	mutex_lock(&sroce_cc_algo_lock);
	list_for_each_entry(algo, sroce_cc_algo_list(), list)
		n += sysfs_emit_at(buf, n, "%s%s", n ? " " : "",
				   algo->ops->name);
	mutex_unlock(&sroce_cc_algo_lock);
	n += sysfs_emit_at(buf, n, "\n");
	return n;
}

static struct kobj_attribute sroce_rp_available = __ATTR_RO(available_cc_algos);

/* ---- NP and TX byte knobs ---- */

struct sroce_byte_knob {
	struct kobj_attribute attr;
	u16 off; /* offsetof in struct sroce_cc_dev */
	u8 max;
};

static ssize_t sroce_byte_show(struct kobject *kobj, struct kobj_attribute *a,
			       char *buf)
{
	struct sroce_byte_knob *k =
		container_of(a, struct sroce_byte_knob, attr);
	u8 *field = (u8 *)sroce_knob_dev(kobj)->cc + k->off;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*field));
}

static ssize_t sroce_byte_store(struct kobject *kobj, struct kobj_attribute *a,
				const char *buf, size_t count)
{
	struct sroce_byte_knob *k =
		container_of(a, struct sroce_byte_knob, attr);
	u8 *field = (u8 *)sroce_knob_dev(kobj)->cc + k->off;
	u32 v;

	if (sroce_knob_u32(buf, 0, k->max, &v))
		return -EINVAL;
	WRITE_ONCE(*field, v);
	return count;
}

#define SROCE_BYTE_KNOB(_var, _name, _off, _max)             \
	static struct sroce_byte_knob _var = {               \
		.attr = __ATTR(_name, 0644, sroce_byte_show, \
			       sroce_byte_store),            \
		.off = _off,                                 \
		.max = _max,                                 \
	}

#define SROCE_CD(f) offsetof(struct sroce_cc_dev, f)
SROCE_BYTE_KNOB(sroce_np_dscp, cnp_dscp, SROCE_CD(cnp_dscp), 63);
SROCE_BYTE_KNOB(sroce_np_prio, cnp_802p_prio, SROCE_CD(cnp_802p_prio), 7);
SROCE_BYTE_KNOB(sroce_np_ecn, cnp_ecn, SROCE_CD(cnp_ecn), 2);
SROCE_BYTE_KNOB(sroce_tx_dscp, default_dscp, SROCE_CD(default_dscp), 63);

static ssize_t min_time_between_cnps_show(struct kobject *kobj,
					  struct kobj_attribute *a, char *buf)
{
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;

	return sysfs_emit(buf, "%u\n", READ_ONCE(cd->min_time_between_cnps));
}

static ssize_t min_time_between_cnps_store(struct kobject *kobj,
					   struct kobj_attribute *a,
					   const char *buf, size_t count)
{
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;
	u32 v;

	if (sroce_knob_u32(buf, 0, 1000000, &v))
		return -EINVAL;
	WRITE_ONCE(cd->min_time_between_cnps, v);
	return count;
}

static struct kobj_attribute sroce_np_min_time =
	__ATTR_RW(min_time_between_cnps);

/* ---- per-priority files: enable/<n> (bits), ect/<n> (ECN bits) ---- */

/* The directory tells what a per-priority file sets; its name the prio. */
static u8 *sroce_prio_field(struct kobject *kobj, struct kobj_attribute *a,
			    u8 *prio, bool *ect)
{
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;
	const char *dir = kobject_name(kobj);

	*prio = a->attr.name[0] - '0';
	*ect = !strcmp(dir, "roce_tx");
	if (*ect)
		return &cd->ect[*prio];
	return !strcmp(dir, "roce_np") ? &cd->np_enable : &cd->rp_enable;
}

static ssize_t sroce_prio_show(struct kobject *kobj, struct kobj_attribute *a,
			       char *buf)
{
	u8 prio, v;
	bool ect;

	v = READ_ONCE(*sroce_prio_field(kobj, a, &prio, &ect));
	return sysfs_emit(buf, "%u\n", ect ? v : !!(v & BIT(prio)));
}

static ssize_t sroce_prio_store(struct kobject *kobj, struct kobj_attribute *a,
				const char *buf, size_t count)
{
	struct sroce_cc_dev *cd = sroce_knob_dev(kobj)->cc;
	u8 prio, *field;
	bool ect;
	u32 v;

	field = sroce_prio_field(kobj, a, &prio, &ect);
	/* ECN bits: 0 not-ECT, 1 ECT(1), 2 ECT(0); CE is not a choice. */
	if (sroce_knob_u32(buf, 0, ect ? 2 : 1, &v))
		return -EINVAL;
	mutex_lock(&cd->lock);
	if (ect)
		WRITE_ONCE(*field, v);
	else
		WRITE_ONCE(*field,
			   v ? *field | BIT(prio) : *field & ~BIT(prio));
	mutex_unlock(&cd->lock);
	return count;
}

/* Shared by enable/ of roce_np and roce_rp and by ect/ of roce_tx. */
static struct kobj_attribute sroce_prio_attr[SROCE_CC_PRIOS] = {
	__ATTR(0, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(1, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(2, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(3, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(4, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(5, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(6, 0644, sroce_prio_show, sroce_prio_store),
	__ATTR(7, 0644, sroce_prio_show, sroce_prio_store),
};

static struct attribute *sroce_prio_attrs[] = {
	&sroce_prio_attr[0].attr,
	&sroce_prio_attr[1].attr,
	&sroce_prio_attr[2].attr,
	&sroce_prio_attr[3].attr,
	&sroce_prio_attr[4].attr,
	&sroce_prio_attr[5].attr,
	&sroce_prio_attr[6].attr,
	&sroce_prio_attr[7].attr,
	NULL,
};

/* ---- groups ---- */

static struct attribute *sroce_np_attrs[] = {
	&sroce_np_min_time.attr,
	&sroce_np_dscp.attr.attr,
	&sroce_np_prio.attr.attr,
	&sroce_np_ecn.attr.attr,
	NULL,
};

static struct attribute *sroce_rp_attrs[] = {
	&sroce_rp_rpg_time_reset.attr.attr,
	&sroce_rp_rpg_byte_reset.attr.attr,
	&sroce_rp_rpg_threshold.attr.attr,
	&sroce_rp_rpg_max_rate.attr.attr,
	&sroce_rp_rpg_ai_rate.attr.attr,
	&sroce_rp_rpg_hai_rate.attr.attr,
	&sroce_rp_rpg_gd.attr.attr,
	&sroce_rp_rpg_min_dec_fac.attr.attr,
	&sroce_rp_rpg_min_rate.attr.attr,
	&sroce_rp_rate_to_set_on_first_cnp.attr.attr,
	&sroce_rp_dce_tcp_g.attr.attr,
	&sroce_rp_dce_tcp_rtt.attr.attr,
	&sroce_rp_rate_reduce_monitor_period.attr.attr,
	&sroce_rp_initial_alpha_value.attr.attr,
	&sroce_rp_clamp_tgt_rate.attr.attr,
	&sroce_rp_clamp_tgt_rate_after_time_inc.attr.attr,
	&sroce_rp_cnp_window_cut.attr.attr,
	&sroce_rp_window_rtt_fair.attr.attr,
	&sroce_rp_hpcc_eta.attr.attr,
	&sroce_rp_hpcc_max_stage.attr.attr,
	&sroce_rp_hpcc_ai_rate.attr.attr,
	&sroce_rp_hpcc_base_rtt_us.attr.attr,
	&sroce_rp_flavour.attr,
	&sroce_rp_cc_algo.attr,
	&sroce_rp_available.attr,
	NULL,
};

static struct attribute *sroce_tx_attrs[] = {
	&sroce_tx_dscp.attr.attr,
	NULL,
};

static const struct attribute_group sroce_np_group = {
	.attrs = sroce_np_attrs,
};

static const struct attribute_group sroce_np_en_group = {
	.name = "enable",
	.attrs = sroce_prio_attrs,
};

static const struct attribute_group *sroce_np_groups[] = {
	&sroce_np_group,
	&sroce_np_en_group,
	NULL,
};

static const struct attribute_group sroce_rp_group = {
	.attrs = sroce_rp_attrs,
};

static const struct attribute_group sroce_rp_en_group = {
	.name = "enable",
	.attrs = sroce_prio_attrs,
};

static const struct attribute_group *sroce_rp_groups[] = {
	&sroce_rp_group,
	&sroce_rp_en_group,
	NULL,
};

static const struct attribute_group sroce_tx_group = {
	.attrs = sroce_tx_attrs,
};

static const struct attribute_group sroce_tx_ect_group = {
	.name = "ect",
	.attrs = sroce_prio_attrs,
};

static const struct attribute_group *sroce_tx_groups[] = {
	&sroce_tx_group,
	&sroce_tx_ect_group,
	NULL,
};

static struct kobject *sroce_cc_sysfs_dir(struct kobject *parent,
					  const char *name,
					  const struct attribute_group **groups)
{
	struct kobject *kobj = kobject_create_and_add(name, parent);

	if (!kobj)
		return NULL;
	if (groups && sysfs_create_groups(kobj, groups)) {
		kobject_put(kobj);
		return NULL;
	}
	return kobj;
}

int sroce_cc_sysfs_add(struct sroce_dev *sdev)
{
	struct sroce_cc_dev *cd = sdev->cc;

	cd->kobj_ecn = sroce_cc_sysfs_dir(&sdev->ib_dev.dev.kobj, "ecn", NULL);
	if (!cd->kobj_ecn)
		goto err;
	cd->kobj_np =
		sroce_cc_sysfs_dir(cd->kobj_ecn, "roce_np", sroce_np_groups);
	if (!cd->kobj_np)
		goto err;
	cd->kobj_rp =
		sroce_cc_sysfs_dir(cd->kobj_ecn, "roce_rp", sroce_rp_groups);
	if (!cd->kobj_rp)
		goto err;
	cd->kobj_tx =
		sroce_cc_sysfs_dir(cd->kobj_ecn, "roce_tx", sroce_tx_groups);
	if (!cd->kobj_tx)
		goto err;
	return 0;
err:
	sroce_cc_sysfs_del(sdev);
	return -ENOMEM;
}

void sroce_cc_sysfs_del(struct sroce_dev *sdev)
{
	struct sroce_cc_dev *cd = sdev->cc;

	if (!cd)
		return;
	/* kobject_put() removes the files and waits for their users. */
	kobject_put(cd->kobj_tx);
	kobject_put(cd->kobj_rp);
	kobject_put(cd->kobj_np);
	kobject_put(cd->kobj_ecn);
	cd->kobj_tx = NULL;
	cd->kobj_rp = NULL;
	cd->kobj_np = NULL;
	cd->kobj_ecn = NULL;
}
