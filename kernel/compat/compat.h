/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place for differences between kernel versions.
 *
 * sroce is written against the interfaces of Linux 6.1 (Debian 12).  Code
 * outside kernel/compat/ never tests LINUX_VERSION_CODE: when a later
 * kernel changes an interface sroce uses, a feature macro or an inline
 * wrapper goes here and the callers use the wrapper.
 *
 * Known differences to handle when newer kernels are targeted:
 *  - rdma_link_ops.newlink gained no extack up to 6.12; if it does, the
 *    ratelimited explanations in device.c can move into the extack.
 *  - ib_device_set_netdev() / ib_device_get_netdev() take netdev trackers
 *    from 6.13 on.
 */
#ifndef _SROCE_COMPAT_H
#define _SROCE_COMPAT_H

/* Nothing yet: Linux 6.1 is the oldest and only kernel sroce builds for. */

#endif /* _SROCE_COMPAT_H */
