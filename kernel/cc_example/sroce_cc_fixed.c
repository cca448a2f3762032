// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_cc_fixed.c - an algorithm in its own module: registers `fixed`
 * (kernel/proto/cc_fixed.c) with sroce.ko's sroce_cc_register().
 *
 *   insmod sroce_cc_fixed.ko
 *   echo fixed > /sys/class/infiniband/<dev>/ecn/roce_rp/cc_algo
 *   echo 100 > /sys/class/infiniband/<dev>/ecn/roce_rp/rpg_max_rate
 *
 * New QPs of the device then send at 100 Mb/s each.  The device and every
 * QP using the algorithm hold a reference on this module, so it can only
 * be removed once no device selects it and no QP of it is left.  Another
 * algorithm module is this file with its own ops: a name, and the hooks
 * of struct sroce_cc_ops over pure code (time and parameters as
 * arguments, no locks, no allocation).  Only init is required, and
 * sroce_cc_init_line_rate() is the common one; a NULL on_cnp ignores
 * CNPs and a NULL next_event means the rate never rises as time passes
 * (kernel/proto/cc.h, Documentation/cc.rst "Writing an algorithm").
 */
#include <linux/module.h>

#include "../cc.h"

static struct sroce_cc_algo sroce_cc_fixed = {
	.ops = &sroce_cc_fixed_ops,
	.owner = THIS_MODULE,
};

static int __init sroce_cc_fixed_init(void)
{
	return sroce_cc_register(&sroce_cc_fixed);
}

static void __exit sroce_cc_fixed_exit(void)
{
	sroce_cc_unregister(&sroce_cc_fixed);
}

module_init(sroce_cc_fixed_init);
module_exit(sroce_cc_fixed_exit);
MODULE_DESCRIPTION("sroce congestion control example: a fixed sending rate");
MODULE_LICENSE("GPL");
