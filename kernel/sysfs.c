// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - device attributes under /sys/class/infiniband/<dev>/.
 *
 * sroce_abi_version is how libsroce recognises a sroce device whatever its
 * name; netdev names the bound Ethernet device; board_id and hca_type name
 * the model for monitoring tools.  All are read-only and
 * exist from ib_register_device() (before the KOBJ_ADD uevent) until
 * unregistration.  rx_steer switches receive steering (rxq.h), tx_batch
 * the sending of request packets in UDP GSO batches (pkt.c), ack_coalesce
 * whether unsignaled messages ask for ACKs (req_pkt.c), rx_queue_max_bytes
 * bounds the memory of all receive queues of the device (rxq.h).
 */
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "device.h"
#include "pfc.h"
#include "pkt.h"
#include "rxq.h"
#include "sysfs.h"

static ssize_t sroce_abi_version_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(sroce_abi_version);

static ssize_t netdev_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);
	char name[IFNAMSIZ];

	/*
	 * The netdev is held until dealloc, which comes after the sysfs
	 * files are removed.  A rename may race: copy the name into a local
	 * buffer, which is always terminated.
	 */
	strscpy(name, READ_ONCE(sdev->ndev)->name, sizeof(name));
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(netdev);

/*
 * board_id and hca_type, the model strings HCA drivers (mlx4, mlx5) show.
 * Monitoring reads them: a node_exporter built with procfs before 0.12
 * (Debian 12's 1.5.0 among them) fails its whole infiniband collector on a
 * device without board_id.
 */
static ssize_t board_id_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "sroce software RoCE v2\n");
}
static DEVICE_ATTR_RO(board_id);

static ssize_t hca_type_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "sroce\n");
}
static DEVICE_ATTR_RO(hca_type);

/* The bool switch at byte @off of the device (read with READ_ONCE). */
static bool *sroce_sysfs_switch(struct device *dev, size_t off)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);

	return (bool *)((u8 *)sdev + off);
}

static ssize_t sroce_switch_show(struct device *dev, size_t off, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(*sroce_sysfs_switch(dev, off)));
}

static ssize_t sroce_switch_store(struct device *dev, size_t off,
				  const char *buf, size_t count)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	WRITE_ONCE(*sroce_sysfs_switch(dev, off), on);
	return count;
}

static ssize_t rx_steer_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sroce_switch_show(dev, offsetof(struct sroce_dev, rx_steer),
				 buf);
}

static ssize_t rx_steer_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	return sroce_switch_store(dev, offsetof(struct sroce_dev, rx_steer),
				  buf, count);
}
static DEVICE_ATTR_RW(rx_steer);

static ssize_t ack_coalesce_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sroce_switch_show(dev, offsetof(struct sroce_dev, ack_coalesce),
				 buf);
}

static ssize_t ack_coalesce_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	return sroce_switch_store(dev, offsetof(struct sroce_dev, ack_coalesce),
				  buf, count);
}
static DEVICE_ATTR_RW(ack_coalesce);

static const char *const sroce_tx_batch_names[] = {
	[SROCE_TX_BATCH_OFF] = "off",
	[SROCE_TX_BATCH_ON] = "on",
	[SROCE_TX_BATCH_AUTO] = "auto",
};

static ssize_t tx_batch_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);

	return sysfs_emit(buf, "%s (%s)\n",
			  sroce_tx_batch_names[READ_ONCE(sdev->tx_batch)],
			  sroce_txb_enabled(sdev) ? "active" : "inactive");
}

static ssize_t tx_batch_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);
	int i;

	i = sysfs_match_string(sroce_tx_batch_names, buf);
	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(sdev->tx_batch, i);
	return count;
}
static DEVICE_ATTR_RW(tx_batch);

static ssize_t rx_queue_max_bytes_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);

	return sysfs_emit(buf, "%lu\n", READ_ONCE(sdev->rxq_max_bytes));
}

static ssize_t rx_queue_max_bytes_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(dev, struct sroce_dev, ib_dev);
	unsigned long v;
	int err;

	err = kstrtoul(buf, 0, &v);
	if (err)
		return err;
	if (v < SROCE_RXQ_DEV_MIN_BYTES || v > SROCE_RXQ_DEV_LIMIT_BYTES)
		return -ERANGE;
	/* Packets already queued stay; new ones see the bound. */
	WRITE_ONCE(sdev->rxq_max_bytes, v);
	return count;
}
static DEVICE_ATTR_RW(rx_queue_max_bytes);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_sroce_abi_version.attr,
	&dev_attr_netdev.attr,
	&dev_attr_board_id.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_rx_steer.attr,
	&dev_attr_ack_coalesce.attr,
	&dev_attr_tx_batch.attr,
	&dev_attr_rx_queue_max_bytes.attr,
	&sroce_pfc_attr_mode.attr,
	&sroce_pfc_attr_dscp2prio.attr,
	&sroce_pfc_attr_state.attr,
	SROCE_PFC_KNOB_ATTR(ENABLE),
	SROCE_PFC_KNOB_ATTR(CNP_PRIO),
	SROCE_PFC_KNOB_ATTR(STORM_DETECT_MS),
	SROCE_PFC_KNOB_ATTR(STORM_RESTORE_MS),
	SROCE_PFC_KNOB_ATTR(SPEED_MBPS),
	SROCE_PFC_KNOB_ATTR(XON_BYTES),
	SROCE_PFC_KNOB_ATTR(HEADROOM_BYTES),
	SROCE_PFC_KNOB_ATTR(XOFF_MAX_MS),
	SROCE_PFC_KNOB_ATTR(RX_DELAY_US),
	SROCE_PFC_KNOB_ATTR(RX_MARK_BYTES),
	NULL,
};

const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};
