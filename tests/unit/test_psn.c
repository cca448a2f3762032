// SPDX-License-Identifier: GPL-2.0
/*
 * test_psn.c - 24-bit PSN arithmetic, especially around the wrap.
 */
#include "ktest.h"
#include "psn.h"

static void psn_add_wraps(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, sroce_psn_next(0), 1);
	KTEST_EXPECT_EQ(t, sroce_psn_next(0xfffffe), 0xffffff);
	KTEST_EXPECT_EQ(t, sroce_psn_next(0xffffff), 0);
	KTEST_EXPECT_EQ(t, sroce_psn_add(0xfffff0, 0x20), 0x10);
	KTEST_EXPECT_EQ(t, sroce_psn_add(5, 0x1000000), 5);
	KTEST_EXPECT_EQ(t, sroce_psn_add(5, 0xffffffff), 4);
	KTEST_EXPECT_EQ(t, sroce_psn_mask(0xff123456), 0x123456);
	KTEST_EXPECT_EQ(t, SROCE_PSN_MAX, 0xffffff);
}

static void psn_diff_signed(struct ktest *t)
{
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(5, 5), 0);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(6, 5), 1);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(5, 6), -1);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0, 0xffffff), 1);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0xffffff, 0), -1);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0x10, 0xfffff0), 0x20);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0x800000, 0), -0x800000);
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0, 0x7fffff), -0x7fffff);
	/* Bits above 24 are ignored. */
	KTEST_EXPECT_SEQ(t, sroce_psn_diff(0xff000003, 1), 2);
	for (u32 i = 0; i < 64; i++) {
		u32 base = sroce_psn_add(0xfffc00, i * 0x31);
		u32 later = sroce_psn_add(base, 1000);

		KTEST_EXPECT_SEQ(t, sroce_psn_diff(later, base), 1000);
		KTEST_EXPECT_SEQ(t, sroce_psn_diff(base, later), -1000);
	}
}

static void psn_before_after(struct ktest *t)
{
	KTEST_EXPECT(t, sroce_psn_before(0xffffff, 0));
	KTEST_EXPECT(t, sroce_psn_after(0, 0xffffff));
	KTEST_EXPECT(t, !sroce_psn_before(0, 0xffffff));
	KTEST_EXPECT(t, !sroce_psn_after(7, 7));
	KTEST_EXPECT(t, !sroce_psn_before(7, 7));
	KTEST_EXPECT(t, sroce_psn_before(1, 2));
	KTEST_EXPECT(t, sroce_psn_after(0x100, 0xffff00));
	KTEST_EXPECT(t, sroce_psn_before(0xffff00, 0x100));
}

static void psn_in_range(struct ktest *t)
{
	KTEST_EXPECT(t, sroce_psn_in_range(0, 0xfffff0, 0x10));
	KTEST_EXPECT(t, sroce_psn_in_range(0xfffff0, 0xfffff0, 0x10));
	KTEST_EXPECT(t, sroce_psn_in_range(0x10, 0xfffff0, 0x10));
	KTEST_EXPECT(t, !sroce_psn_in_range(0x11, 0xfffff0, 0x10));
	KTEST_EXPECT(t, !sroce_psn_in_range(0xffffef, 0xfffff0, 0x10));
	KTEST_EXPECT(t, sroce_psn_in_range(5, 5, 5));
}

static const struct ktest_case psn_cases[] = {
	KTEST_CASE(psn_add_wraps),
	KTEST_CASE(psn_diff_signed),
	KTEST_CASE(psn_before_after),
	KTEST_CASE(psn_in_range),
};

KTEST_SUITE(psn);
