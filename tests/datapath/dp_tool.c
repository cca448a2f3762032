// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_tool.c - helpers of the single-device verbs tools (dp_tool.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "dp_tool.h"

int dpt_ntest, dpt_nfail;

void dpt_report(int ok, const char *name, const char *why)
{
	dpt_ntest++;
	if (!ok) {
		dpt_nfail++;
		if (why && *why)
			printf("# %s\n", why);
	}
	printf("%sok %d %s\n", ok ? "" : "not ", dpt_ntest, name);
	fflush(stdout);
}

void dpt_expect(int got, int want, const char *name)
{
	char why[128];

	snprintf(why, sizeof(why), "returned %d (%s), expected %d", got,
		 got ? strerror(got) : "success", want);
	dpt_report(got == want, name, why);
}

void dpt_refused(const void *obj, int want, const char *name)
{
	int e = errno;
	char why[128];

	snprintf(why, sizeof(why), "%s (errno %d %s), expected errno %d",
		 obj ? "created" : "refused", obj ? 0 : e,
		 obj ? "" : strerror(e), want);
	dpt_report(!obj && e == want, name, why);
}

struct ibv_context *dpt_open(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

int dpt_ud_up(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = qkey };
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_QKEY);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

struct dpt_doorbell_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send core;
};

int dpt_doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct dpt_doorbell_cmd cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_SEND,
			 .in_words = sizeof(cmd) / 4,
			 .out_words = sizeof(resp) / 4 },
		.core = { .response = (uintptr_t)&resp,
			  .qp_handle = qp->handle,
			  .wqe_size = sizeof(struct ib_uverbs_send_wr) },
	};

	if (write(qp->context->cmd_fd, &cmd, sizeof(cmd)) !=
	    (ssize_t)sizeof(cmd))
		return errno;
	return 0;
}
