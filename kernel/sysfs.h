/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs.h - attributes of /sys/class/infiniband/<dev>/ that identify a
 * sroce device (Documentation/ABI/testing/sysfs-class-infiniband-sroce).
 */
#ifndef _SROCE_SYSFS_H
#define _SROCE_SYSFS_H

#include <linux/sysfs.h>

/*
 * ops.device_group: sroce_abi_version, netdev, board_id, hca_type and the
 * knobs (sysfs.c).  Created by
 * ib_register_device() before the device is announced to user space.
 */
extern const struct attribute_group sroce_dev_attr_group;

#endif /* _SROCE_SYSFS_H */
