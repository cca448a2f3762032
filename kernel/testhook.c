// SPDX-License-Identifier: GPL-2.0
/*
 * testhook.c - the delays of testhook.h, in SROCE_TEST_HOOKS builds only.
 *
 * /sys/module/sroce/parameters/test_<hook>_ms: how long the next passes
 * through the hook sleep, in milliseconds (at most 10 s; 0: none).  Tests
 * set it around the one operation they race and put it back to 0.  A
 * hook that may run in atomic context busy-waits instead, at most
 * SROCE_TEST_MAX_SPIN_MS per pass: keep such a delay short, it holds a CPU
 * (and in softirq, that CPU's softirqs) for every pass.
 *
 * /sys/module/sroce/parameters/test_<hook>_hits (read-only): how many
 * passes have started such a sleep.  A test that sees it grow knows the
 * racing operation is inside the window now, not before or after it, and
 * only then starts the operation it races against.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "testhook.h"

#define SROCE_TEST_MAX_MS 10000
#define SROCE_TEST_MAX_SPIN_MS 50

static unsigned int sroce_test_ms[SROCE_TEST_NR]; /* READ_ONCE */
/*
 * Incremented with the sleep's start.  Not atomic: a test races one
 * operation through a hook at a time, and a lost count would only make
 * that test wait for its timeout and fail, never pass wrongly.
 */
static unsigned int sroce_test_hits[SROCE_TEST_NR];

module_param_named(test_newlink_sysfs_ms,
		   sroce_test_ms[SROCE_TEST_NEWLINK_SYSFS], uint, 0644);
MODULE_PARM_DESC(test_newlink_sysfs_ms,
		 "test hook: newlink sleeps this long before adding ecn/");
module_param_named(test_newlink_sysfs_hits,
		   sroce_test_hits[SROCE_TEST_NEWLINK_SYSFS], uint, 0444);
MODULE_PARM_DESC(test_newlink_sysfs_hits,
		 "test hook: newlink's sleeps before adding ecn/ so far");

module_param_named(test_qp_flush_ms, sroce_test_ms[SROCE_TEST_QP_FLUSH], uint,
		   0644);
MODULE_PARM_DESC(test_qp_flush_ms,
		 "test hook: modify_qp to ERR sleeps this long before flushing");
module_param_named(test_qp_flush_hits, sroce_test_hits[SROCE_TEST_QP_FLUSH],
		   uint, 0444);
MODULE_PARM_DESC(test_qp_flush_hits,
		 "test hook: modify_qp's sleeps before its flush so far");

module_param_named(test_cqe_post_ms, sroce_test_ms[SROCE_TEST_CQE_POST], uint,
		   0644);
MODULE_PARM_DESC(test_cqe_post_ms,
		 "test hook: each send CQE posted spins this long (max 50)");
module_param_named(test_cqe_post_hits, sroce_test_hits[SROCE_TEST_CQE_POST],
		   uint, 0444);
MODULE_PARM_DESC(test_cqe_post_hits,
		 "test hook: send CQE postings that busy-waited so far");

/* The delay @hook is set to, counting the pass as a hit when there is one. */
static unsigned int sroce_test_hit(enum sroce_test_hook hook)
{
	unsigned int ms = READ_ONCE(sroce_test_ms[hook]);

	if (ms)
		WRITE_ONCE(sroce_test_hits[hook], sroce_test_hits[hook] + 1);
	return ms;
}

void sroce_test_delay(enum sroce_test_hook hook)
{
	unsigned int ms;

	might_sleep();
	ms = sroce_test_hit(hook);
	if (ms)
		msleep(min_t(unsigned int, ms, SROCE_TEST_MAX_MS));
}

void sroce_test_spin(enum sroce_test_hook hook)
{
	unsigned int ms = sroce_test_hit(hook);

	if (ms)
		mdelay(min_t(unsigned int, ms, SROCE_TEST_MAX_SPIN_MS));
}
