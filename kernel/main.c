// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module init and exit.
 *
 * Init goes from the bottom up: namespace state, the data path's workqueue,
 * netdev events, then the rdma link type that lets user space create
 * devices.  Exit is the mirror image: once the link type is gone no newlink
 * can run, so every device can be removed before the notifier, the
 * workqueue and the pernet state go.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>
#include <rdma/sroce-abi.h>

#include "cc.h"
#include "compat/compat.h"
#include "crc.h"
#include "device.h"
#include "net.h"
#include "task.h"

static int __init sroce_mod_init(void)
{
	int err;

	err = sroce_crc_init();
	if (err)
		return err;
	err = sroce_net_init();
	if (err)
		goto err_crc;
	err = sroce_task_init();
	if (err)
		goto err_net;
	err = sroce_cc_init();
	if (err)
		goto err_task;
	err = sroce_device_init();
	if (err)
		goto err_cc;
	rdma_link_register(&sroce_link_ops);

	pr_info("sroce: software RoCE v2, uverbs ABI %u\n", SROCE_ABI_VERSION);
	return 0;

err_cc:
	sroce_cc_exit();
err_task:
	sroce_task_exit();
err_net:
	sroce_net_exit();
err_crc:
	sroce_crc_exit();
	return err;
}

static void __exit sroce_mod_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	sroce_device_exit();
	sroce_cc_exit();
	sroce_task_exit();
	sroce_net_exit();
	sroce_crc_exit();
}

module_init(sroce_mod_init);
module_exit(sroce_mod_exit);

MODULE_AUTHOR("The sroce authors");
MODULE_DESCRIPTION("Software RoCE v2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
