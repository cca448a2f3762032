// SPDX-License-Identifier: GPL-2.0
/*
 * pfc_sysfs.c - the pfc_* knobs under /sys/class/infiniband/<dev>/
 * (Documentation/pfc.rst, Documentation/ABI/testing/
 * sysfs-class-infiniband-sroce).  Out-of-range writes fail with -EINVAL and
 * change nothing.  They exist from registration to unregistration, inside
 * the life of sdev->pfc (allocated before, freed in dealloc_driver).
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>

#include "cc.h"
#include "device.h"
#include "pfc.h"

static struct sroce_pfc *sroce_pfc_of(struct device *dev)
{
	return rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev)->pfc;
}

static struct sroce_dev *sroce_pfc_sdev(struct device *dev)
{
	return rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);
}

static const char *const sroce_pfc_mode_names[] = {
	[SROCE_PFC_MODE_OFF] = "off",
	[SROCE_PFC_MODE_SW] = "sw",
	[SROCE_PFC_MODE_DCB] = "dcb",
	[SROCE_PFC_MODE_BOTH] = "both",
};

static_assert(ARRAY_SIZE(sroce_pfc_mode_names) == SROCE_PFC_MODE_MAX);

static ssize_t pfc_mode_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	enum sroce_pfc_mode mode = READ_ONCE(sroce_pfc_of(dev)->mode);

	return sysfs_emit(buf, "%s\n", sroce_pfc_mode_names[mode]);
}

static ssize_t pfc_mode_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	int mode = sysfs_match_string(sroce_pfc_mode_names, buf);
	int err;

	if (mode < 0)
		return -EINVAL;
	err = sroce_pfc_set_mode(sroce_pfc_sdev(dev), mode);
	return err ? err : count;
}

struct device_attribute sroce_pfc_attr_mode =
	__ATTR(pfc_mode, 0644, pfc_mode_show, pfc_mode_store);

/* 64 priorities, space separated, index = DSCP. */
static ssize_t pfc_dscp2prio_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct sroce_pfc *pfc = sroce_pfc_of(dev);
	int len = 0, i;

	for (i = 0; i < SROCE_PFC_NDSCP; i++)
		len += sysfs_emit_at(buf, len, "%u%c",
				     READ_ONCE(pfc->dscp2prio[i]),
				     i == SROCE_PFC_NDSCP - 1 ? '\n' : ' ');
	return len;
}

/* "DSCP PRIO": one entry, as `dcb app add ... dscp-prio DSCP:PRIO`. */
static ssize_t pfc_dscp2prio_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	unsigned int dscp, prio;
	char extra;

	if (sscanf(buf, "%u %u %c", &dscp, &prio, &extra) != 2 ||
	    dscp >= SROCE_PFC_NDSCP || prio >= SROCE_PFC_NPRIO)
		return -EINVAL;
	WRITE_ONCE(sroce_pfc_of(dev)->dscp2prio[dscp], prio);
	return count;
}

struct device_attribute sroce_pfc_attr_dscp2prio =
	__ATTR(pfc_dscp2prio, 0644, pfc_dscp2prio_show, pfc_dscp2prio_store);

/* ---- numeric knobs, one table ---- */

static u32 sroce_pfc_enable_get(struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->pfc->enable);
}

static int sroce_pfc_enable_set(struct sroce_dev *sdev, u32 v)
{
	return sroce_pfc_set_enable(sdev, v);
}

/*
 * pfc_cnp_prio is the congestion-control knob ecn/roce_np/cnp_802p_prio
 * under a PFC name: one value, kept in sdev->cc, that ecn.c gives CNPs.
 */
static u32 sroce_pfc_cnp_prio_get(struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->cc->cnp_802p_prio);
}

static int sroce_pfc_cnp_prio_set(struct sroce_dev *sdev, u32 v)
{
	WRITE_ONCE(sdev->cc->cnp_802p_prio, v);
	return 0;
}

static u32 sroce_pfc_detect_get(struct sroce_dev *sdev)
{
	return div_u64(sroce_pfc_get_wd(sdev, true), NSEC_PER_MSEC);
}

static int sroce_pfc_detect_set(struct sroce_dev *sdev, u32 v)
{
	sroce_pfc_set_wd(sdev, true, (u64)v * NSEC_PER_MSEC);
	return 0;
}

static u32 sroce_pfc_restore_get(struct sroce_dev *sdev)
{
	return div_u64(sroce_pfc_get_wd(sdev, false), NSEC_PER_MSEC);
}

static int sroce_pfc_restore_set(struct sroce_dev *sdev, u32 v)
{
	sroce_pfc_set_wd(sdev, false, (u64)v * NSEC_PER_MSEC);
	return 0;
}

static u32 sroce_pfc_speed_get(struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->pfc->speed_knob);
}

static int sroce_pfc_speed_set(struct sroce_dev *sdev, u32 v)
{
	sroce_pfc_set_speed(sdev, v, true);
	return 0;
}

#define SROCE_PFC_GEN_ACCESSORS(name, id)                                \
	static u32 sroce_pfc_##name##_get(struct sroce_dev *sdev)        \
	{                                                                \
		return sroce_pfc_gen_get(sdev, SROCE_PFC_GK_##id);       \
	}                                                                \
	static int sroce_pfc_##name##_set(struct sroce_dev *sdev, u32 v) \
	{                                                                \
		sroce_pfc_gen_set(sdev, SROCE_PFC_GK_##id, v);           \
		return 0;                                                \
	}

SROCE_PFC_GEN_ACCESSORS(xon, XON)
SROCE_PFC_GEN_ACCESSORS(headroom, HEADROOM)
SROCE_PFC_GEN_ACCESSORS(xoff_max, XOFF_MAX_MS)
SROCE_PFC_GEN_ACCESSORS(rx_delay, RX_DELAY_US)
SROCE_PFC_GEN_ACCESSORS(rx_mark, RX_MARK_BYTES)

static ssize_t sroce_pfc_knob_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct sroce_pfc_knob *k =
		container_of(attr, struct sroce_pfc_knob, attr);
	u32 v = k->get(sroce_pfc_sdev(dev));

	return sysfs_emit(buf, k->hex ? "0x%02x\n" : "%u\n", v);
}

static ssize_t sroce_pfc_knob_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	struct sroce_pfc_knob *k =
		container_of(attr, struct sroce_pfc_knob, attr);
	u32 v;
	int err;

	if (kstrtou32(buf, 0, &v))
		return -EINVAL;
	if (!(v == 0 && k->zero_ok) && (v < k->min || v > k->max))
		return -EINVAL;
	err = k->set(sroce_pfc_sdev(dev), v);
	return err ? err : count;
}

#define SROCE_PFC_KNOB(id, _name, _get, _set, _min, _max, ...)           \
	[SROCE_PFC_KNOB_##                                               \
		id] = { .attr = __ATTR(_name, 0644, sroce_pfc_knob_show, \
				       sroce_pfc_knob_store),            \
			.get = _get,                                     \
			.set = _set,                                     \
			.min = _min,                                     \
			.max = _max,                                     \
			__VA_ARGS__ }

struct sroce_pfc_knob sroce_pfc_knobs[SROCE_PFC_KNOB_MAX] = {
	SROCE_PFC_KNOB(ENABLE, pfc_enable, sroce_pfc_enable_get,
		       sroce_pfc_enable_set, 0, 0xff, .hex = true),
	SROCE_PFC_KNOB(CNP_PRIO, pfc_cnp_prio, sroce_pfc_cnp_prio_get,
		       sroce_pfc_cnp_prio_set, 0, SROCE_PFC_NPRIO - 1),
	/* 0 turns the watchdog off. */
	SROCE_PFC_KNOB(STORM_DETECT_MS, pfc_storm_detect_ms,
		       sroce_pfc_detect_get, sroce_pfc_detect_set, 0,
		       SROCE_PFC_MAX_INTERVAL_MS),
	SROCE_PFC_KNOB(STORM_RESTORE_MS, pfc_storm_restore_ms,
		       sroce_pfc_restore_get, sroce_pfc_restore_set, 1,
		       SROCE_PFC_MAX_INTERVAL_MS),
	/* 0: the netdev's ethtool speed. */
	SROCE_PFC_KNOB(SPEED_MBPS, pfc_speed_mbps, sroce_pfc_speed_get,
		       sroce_pfc_speed_set, SROCE_PFC_MIN_SPEED,
		       SROCE_PFC_MAX_SPEED, .zero_ok = true),
	/* 0: derived from MTU (and speed for the headroom). */
	SROCE_PFC_KNOB(XON_BYTES, pfc_xon_bytes, sroce_pfc_xon_get,
		       sroce_pfc_xon_set, SROCE_PFC_MIN_THRESH,
		       SROCE_PFC_MAX_THRESH, .zero_ok = true),
	SROCE_PFC_KNOB(HEADROOM_BYTES, pfc_headroom_bytes,
		       sroce_pfc_headroom_get, sroce_pfc_headroom_set,
		       SROCE_PFC_MIN_THRESH, SROCE_PFC_MAX_THRESH,
		       .zero_ok = true),
	SROCE_PFC_KNOB(XOFF_MAX_MS, pfc_xoff_max_ms, sroce_pfc_xoff_max_get,
		       sroce_pfc_xoff_max_set, 1, SROCE_PFC_MAX_INTERVAL_MS),
	/* Testing only (Documentation/pfc.rst); 0 = off. */
	SROCE_PFC_KNOB(RX_DELAY_US, rx_delay_us, sroce_pfc_rx_delay_get,
		       sroce_pfc_rx_delay_set, 0, SROCE_PFC_MAX_RX_DELAY_US),
	/* Testing only: receive-backlog ECN marking; 0 = off. */
	SROCE_PFC_KNOB(RX_MARK_BYTES, rx_mark_bytes, sroce_pfc_rx_mark_get,
		       sroce_pfc_rx_mark_set, SROCE_PFC_MIN_THRESH,
		       SROCE_PFC_MAX_THRESH, .zero_ok = true),
};

/*
 * Read-only: priorities whose transmission is paused now, and stormed; the
 * speed of a quantum; priorities sroce holds by XOFF, the thresholds in
 * effect and the receive backlog of each priority in bytes.
 */
static ssize_t pfc_state_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct sroce_pfc *pfc = sroce_pfc_of(dev);
	u8 stormed = 0;
	int len, i;

	spin_lock_bh(&pfc->lock);
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		if (pfc->rx[i].stormed)
			stormed |= BIT(i);
	spin_unlock_bh(&pfc->lock);
	len = sysfs_emit(buf, "paused 0x%02lx stormed 0x%02x speed %u",
			 READ_ONCE(pfc->paused) & 0xff, stormed,
			 READ_ONCE(pfc->speed_mbps));
	len += sysfs_emit_at(buf, len, " xoff_sent 0x%02x xoff %u xon %u",
			     sroce_pfc_gen_xoff(pfc),
			     READ_ONCE(pfc->gen.xoff_bytes),
			     READ_ONCE(pfc->gen.xon_bytes));
	len += sysfs_emit_at(buf, len, " backlog");
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		len += sysfs_emit_at(buf, len, " %ld",
				     atomic_long_read(&pfc->gen.backlog[i]));
	return len + sysfs_emit_at(buf, len, "\n");
}

struct device_attribute sroce_pfc_attr_state =
	__ATTR(pfc_state, 0444, pfc_state_show, NULL);
