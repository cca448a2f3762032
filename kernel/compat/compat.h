/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place for differences between kernels.
 *
 * sroce is written against the interfaces of Linux 6.1 (Debian 12) and
 * also builds for 6.12 (bookworm-backports).  Code outside kernel/compat/
 * never tests LINUX_VERSION_CODE: where kernels differ, a feature macro or
 * an inline wrapper goes here and the callers use the wrapper.
 *
 * The feature macros SROCE_HAVE_<NAME> come from compat/features.h, which
 * kernel/Kbuild generates before building anything: every probe
 * compat/probe/<name>.c that compiles against the kernel being built for
 * defines one (compat/probe.sh).  Configuration differences use the
 * kernel's own IS_ENABLED().
 *
 * Known differences to handle when newer kernels are targeted:
 *  - rdma_link_ops.newlink gained no extack up to 6.12; if it does, the
 *    ratelimited explanations in device.c can move into the extack.
 *  - ib_device_set_netdev() / ib_device_get_netdev() take netdev trackers
 *    from 6.13 on.
 */
#ifndef _SROCE_COMPAT_H
#define _SROCE_COMPAT_H

#include <linux/netdevice.h>
#include <net/dcbnl.h>

#include "compat/features.h"

/*
 * The netdev's DCB operations (PFC mode dcb pushes the enable bitmap
 * through them); a kernel without CONFIG_DCB has no such member, and
 * no netdev offers them there.
 */
static inline const struct dcbnl_rtnl_ops *
sroce_netdev_dcbnl_ops(const struct net_device *ndev)
{
#if IS_ENABLED(CONFIG_DCB)
	return ndev->dcbnl_ops;
#else
	return NULL;
#endif
}

#endif /* _SROCE_COMPAT_H */
