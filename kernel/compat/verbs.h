/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/verbs.h - ib_device_ops entries whose prototype changed.
 *
 * Only verbs.c, which fills the ops table, includes this.  The verbs keep
 * the 6.1 prototypes; where a kernel passes something else, an adapter
 * here turns it into what the verb expects.
 */
#ifndef _SROCE_COMPAT_VERBS_H
#define _SROCE_COMPAT_VERBS_H

#include <rdma/uverbs_ioctl.h>

#include "compat.h"
#include "../cq.h"

#ifdef SROCE_HAVE_CREATE_CQ_BUNDLE
/*
 * create_cq gets the whole uverbs attribute bundle; the udata is its
 * driver_udata.  ib_alloc_cq() (kernel consumers) passes no bundle.
 */
static inline int sroce_compat_create_cq(struct ib_cq *ibcq,
					 const struct ib_cq_init_attr *attr,
					 struct uverbs_attr_bundle *attrs)
{
	return sroce_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define sroce_compat_create_cq sroce_create_cq
#endif

#endif /* _SROCE_COMPAT_VERBS_H */
