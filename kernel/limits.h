/* SPDX-License-Identifier: GPL-2.0 */
/*
 * limits.h - object limits a device is created with.
 *
 * Each limit of enum sroce_limits that counts objects (QPs, CQs, MRs, ...)
 * has a module parameter, writable at run time, that may lower it for the
 * devices created afterwards; a device keeps the limits it was created
 * with (query_device advertises them, object creation enforces them).  As
 * mlx5's profiles do, this lets a host, or a test on a slow kernel, size
 * a device below the compile-time maxima.
 */
#ifndef SROCE_LIMITS_H
#define SROCE_LIMITS_H

struct ib_device_attr;

/* Copy the current limits into a new device's @attr (before registration). */
void sroce_limits_fill(struct ib_device_attr *attr);

#endif /* SROCE_LIMITS_H */
