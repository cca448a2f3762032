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

static ssize_t pfc_enable_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%02x\n",
			  READ_ONCE(sroce_pfc_of(dev)->enable));
}

static ssize_t pfc_enable_store(struct device *dev,
				struct device_attribute *attr, const char *buf,
				size_t count)
{
	u8 enable;
	int err;

	if (kstrtou8(buf, 0, &enable))
		return -EINVAL;
	err = sroce_pfc_set_enable(sroce_pfc_sdev(dev), enable);
	return err ? err : count;
}

struct device_attribute sroce_pfc_attr_enable =
	__ATTR(pfc_enable, 0644, pfc_enable_show, pfc_enable_store);

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

static ssize_t pfc_cnp_prio_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(sroce_pfc_of(dev)->cnp_prio));
}

static ssize_t pfc_cnp_prio_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	u8 prio;

	if (kstrtou8(buf, 0, &prio) || prio >= SROCE_PFC_NPRIO)
		return -EINVAL;
	WRITE_ONCE(sroce_pfc_of(dev)->cnp_prio, prio);
	return count;
}

struct device_attribute sroce_pfc_attr_cnp_prio =
	__ATTR(pfc_cnp_prio, 0644, pfc_cnp_prio_show, pfc_cnp_prio_store);

static ssize_t sroce_pfc_wd_show(struct device *dev, char *buf, bool detect)
{
	struct sroce_pfc *pfc = sroce_pfc_of(dev);
	u64 ns;

	spin_lock_bh(&pfc->lock);
	ns = detect ? pfc->wd.detect_ns : pfc->wd.recover_ns;
	spin_unlock_bh(&pfc->lock);
	return sysfs_emit(buf, "%llu\n", div_u64(ns, NSEC_PER_MSEC));
}

/* detect: 0 (watchdog off) .. max; restore: 1 .. max milliseconds. */
static ssize_t sroce_pfc_wd_store(struct device *dev, const char *buf,
				  size_t count, bool detect)
{
	u32 ms;

	if (kstrtou32(buf, 0, &ms) || ms > SROCE_PFC_MAX_INTERVAL_MS ||
	    (!detect && !ms))
		return -EINVAL;
	sroce_pfc_set_wd(sroce_pfc_sdev(dev), detect, (u64)ms * NSEC_PER_MSEC);
	return count;
}

static ssize_t pfc_storm_detect_ms_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	return sroce_pfc_wd_show(dev, buf, true);
}

static ssize_t pfc_storm_detect_ms_store(struct device *dev,
					 struct device_attribute *attr,
					 const char *buf, size_t count)
{
	return sroce_pfc_wd_store(dev, buf, count, true);
}

struct device_attribute sroce_pfc_attr_storm_detect_ms =
	__ATTR(pfc_storm_detect_ms, 0644, pfc_storm_detect_ms_show,
	       pfc_storm_detect_ms_store);

static ssize_t pfc_storm_restore_ms_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return sroce_pfc_wd_show(dev, buf, false);
}

static ssize_t pfc_storm_restore_ms_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t count)
{
	return sroce_pfc_wd_store(dev, buf, count, false);
}

struct device_attribute sroce_pfc_attr_storm_restore_ms =
	__ATTR(pfc_storm_restore_ms, 0644, pfc_storm_restore_ms_show,
	       pfc_storm_restore_ms_store);

static ssize_t pfc_speed_mbps_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(sroce_pfc_of(dev)->speed_knob));
}

/* 0: the netdev's ethtool speed; else SROCE_PFC_MIN_SPEED..MAX_SPEED. */
static ssize_t pfc_speed_mbps_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	u32 mbps;

	if (kstrtou32(buf, 0, &mbps) || (mbps && (mbps < SROCE_PFC_MIN_SPEED ||
						  mbps > SROCE_PFC_MAX_SPEED)))
		return -EINVAL;
	sroce_pfc_set_speed(sroce_pfc_sdev(dev), mbps, true);
	return count;
}

struct device_attribute sroce_pfc_attr_speed_mbps =
	__ATTR(pfc_speed_mbps, 0644, pfc_speed_mbps_show, pfc_speed_mbps_store);

/* Read-only: priorities whose transmission is paused now, and stormed. */
static ssize_t pfc_state_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct sroce_pfc *pfc = sroce_pfc_of(dev);
	u8 stormed = 0;
	int i;

	spin_lock_bh(&pfc->lock);
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		if (pfc->rx[i].stormed)
			stormed |= BIT(i);
	spin_unlock_bh(&pfc->lock);
	return sysfs_emit(buf, "paused 0x%02lx stormed 0x%02x speed %u\n",
			  READ_ONCE(pfc->paused) & 0xff, stormed,
			  READ_ONCE(pfc->speed_mbps));
}

struct device_attribute sroce_pfc_attr_state =
	__ATTR(pfc_state, 0444, pfc_state_show, NULL);
