/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cc_sysfs.h - the ecn/ directory of congestion control knobs under the
 * ib device (Documentation/ABI/testing/sysfs-class-infiniband-sroce).
 */
#ifndef _SROCE_CC_SYSFS_H
#define _SROCE_CC_SYSFS_H

struct sroce_dev;

/* After ib_register_device(): create ecn/{roce_np,roce_rp,roce_tx}. */
int sroce_cc_sysfs_add(struct sroce_dev *sdev);
/* Remove them (waits for running reads/writes); safe if never added. */
void sroce_cc_sysfs_del(struct sroce_dev *sdev);

#endif /* _SROCE_CC_SYSFS_H */
