/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pd.h - protection domains.
 */
#ifndef _SROCE_PD_H
#define _SROCE_PD_H

#include <rdma/ib_verbs.h>

struct sroce_pd {
	struct ib_pd ibpd; /* must be first (core-allocated) */
};

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* _SROCE_PD_H */
