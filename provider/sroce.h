/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce.h - the provider's device and context objects.
 *
 * Owned by sroce.c (registration, device matching, context lifetime).  The
 * verb files use these to get from an ibv_* handle to sroce state.
 */
#ifndef SROCE_PROVIDER_SROCE_H
#define SROCE_PROVIDER_SROCE_H

#include <stddef.h>
#include <stdint.h>

#include "abi.h"

/* Prefix of every message the provider prints. */
#define SROCE_LOG_PREFIX "libsroce: "

/* One sroce ib device, created when libibverbs matches it to us. */
struct sroce_device {
	struct verbs_device vdev; /* must be first: libibverbs frees through it */
};

static_assert(offsetof(struct sroce_device, vdev) == 0,
	      "sroce_device.vdev must be first");

/* One open of an sroce device (ibv_open_device). */
struct sroce_context {
	/*
	 * Must be first: _verbs_init_and_alloc_context() is told where it is
	 * and libibverbs hands us &vctx.context back on every verb.
	 */
	struct verbs_context vctx;
	uint32_t abi_version; /* from sroce_alloc_context_resp */
};
static_assert(offsetof(struct sroce_context, vctx) == 0,
	      "sroce_context.vctx must be first");

/*
 * Every ibv_context libibverbs gives us is the one we allocated, so the
 * container is found by offsets alone (verbs_get_ctx() would add a NULL
 * case that cannot happen here).
 */
static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return (struct sroce_context *)((char *)ibctx -
					offsetof(struct verbs_context,
						 context) -
					offsetof(struct sroce_context, vctx));
}

#endif /* SROCE_PROVIDER_SROCE_H */
