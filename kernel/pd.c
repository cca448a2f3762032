// SPDX-License-Identifier: GPL-2.0
/*
 * pd.c - protection domains.
 *
 * A PD carries no state of its own yet: ib_core keeps the objects' pd
 * pointers and its use count.  The driver only accounts PDs per device.
 */
#include "device.h"
#include "pd.h"

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	return sroce_res_get(sdev, SROCE_RES_PD, sdev->attr.max_pd);
}

int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	sroce_res_put(to_sdev(ibpd->device), SROCE_RES_PD);
	return 0;
}
