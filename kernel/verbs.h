/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs.h - the ib_device_ops of the verbs objects (verbs.c).
 */
#ifndef _SROCE_VERBS_H
#define _SROCE_VERBS_H

#include <rdma/ib_verbs.h>

/* Object verbs: PD, MR, CQ, QP, AH, ucontext, mmap.  Merged by device.c. */
extern const struct ib_device_ops sroce_verbs_ops;

#endif /* _SROCE_VERBS_H */
