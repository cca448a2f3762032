/* SPDX-License-Identifier: GPL-2.0 */
/*
 * limits.h - object limits a device is created with.
 *
 * The limits that count a device's objects (QPs, CQs, MRs, MWs, PDs, AHs,
 * SRQs, multicast groups and multicast attachments) each have a module
 * parameter, writable at run time, that may lower it for the devices
 * created afterwards (the sizes of one object, such as queue depths, SGEs
 * or the attachments of one group, have none); a device keeps the limits
 * it was created with (query_device advertises them, object creation
 * enforces them).  As
 * mlx5's profiles do, this lets a host, or a test on a slow kernel, size
 * a device below the compile-time maxima.
 */
#ifndef SROCE_LIMITS_H
#define SROCE_LIMITS_H

struct ib_device_attr;

/* Copy the current limits into a new device's @attr (before registration). */
void sroce_limits_fill(struct ib_device_attr *attr);

#endif /* SROCE_LIMITS_H */
