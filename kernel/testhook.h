/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testhook.h - delays a test can inject into race windows.
 *
 * Only a module built with SROCE_TEST_HOOKS=1 (scripts/check-debug.sh
 * builds it so for the debug kernel) has them: a module parameter per
 * hook, test_<hook>_ms, 0 by default.  A normal build has neither the
 * parameters nor any code for them.  Each hook sits where a race found by
 * reading needs an unlucky schedule to show, so that its test can make
 * the schedule happen every time.
 *
 * sroce_test_delay() sleeps and may only be called where sleeping is
 * allowed; sroce_test_spin() busy-waits (mdelay) and may be called in any
 * context but hard IRQ, for hooks on paths that also run in softirq or
 * with BH disabled.
 */
#ifndef SROCE_TESTHOOK_H
#define SROCE_TESTHOOK_H

enum sroce_test_hook {
	/* newlink, after registration, before the ecn/ directories. */
	SROCE_TEST_NEWLINK_SYSFS,
	/* modify_qp to ERR, after qp->lock is dropped, before the flush. */
	SROCE_TEST_QP_FLUSH,
	/*
	 * sroce_req_post_cqes(), after each WQE's slot is given back, with
	 * req.lock dropped (spins: softirq, work and verbs callers).
	 */
	SROCE_TEST_CQE_POST,
	SROCE_TEST_NR,
};

#ifdef SROCE_TEST_HOOKS
void sroce_test_delay(enum sroce_test_hook hook);
void sroce_test_spin(enum sroce_test_hook hook);
#else
static inline void sroce_test_delay(enum sroce_test_hook hook)
{
}

static inline void sroce_test_spin(enum sroce_test_hook hook)
{
}
#endif

#endif /* SROCE_TESTHOOK_H */
