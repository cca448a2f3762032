/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mad.h - the driver's process_mad op: sroce's Performance Management
 * Agent, which makes ib_core create /sys/class/infiniband/<dev>/ports/1/
 * counters/ (PortCounters, PortCountersExtended) from the device counters.
 */
#ifndef _SROCE_MAD_H
#define _SROCE_MAD_H

#include <rdma/ib_verbs.h>

/* process_mad, merged into the device's ops by device.c. */
extern const struct ib_device_ops sroce_mad_ops;

#endif /* _SROCE_MAD_H */
