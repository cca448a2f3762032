/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * dp_tool.h - what the small single-device verbs tools (dp_mcast,
 * dp_limits, dp_srqresize, dp_inval) share: KTAP result lines, opening a
 * device by name, bringing a UD QP to RTS.
 */
#ifndef SROCE_TEST_DP_TOOL_H
#define SROCE_TEST_DP_TOOL_H

#include <stdint.h>

#include <infiniband/verbs.h>

/* Results reported so far and how many of them failed. */
extern int dpt_ntest, dpt_nfail;

/* "ok N name" or "# why" + "not ok N name" (why may be NULL). */
void dpt_report(int ok, const char *name, const char *why);
/* A verb returning 0 or an errno value must have returned @want. */
void dpt_expect(int got, int want, const char *name);
/* A create that must fail: @obj NULL and errno == @want. */
void dpt_refused(const void *obj, int want, const char *name);

/* ibv_open_device() of the device called @name; NULL if none. */
struct ibv_context *dpt_open(const char *name);

/* RESET -> INIT (port 1, @qkey) -> RTR -> RTS of a UD QP; 0 or errno. */
int dpt_ud_up(struct ibv_qp *qp, uint32_t qkey);

/*
 * Ring @qp's doorbell as the provider does: an empty POST_SEND command,
 * on which the kernel reads the mapped SQ (provider/post.c).  0 or errno.
 */
int dpt_doorbell(struct ibv_qp *qp);

#endif /* SROCE_TEST_DP_TOOL_H */
