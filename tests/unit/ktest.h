/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktest.h - a minimal KTAP test harness for the userspace unit tests of
 * kernel/proto/.
 *
 * A suite is a static array of cases; main.c runs every suite, prints one
 * KTAP subtest per suite and one result line per case, and ends with the
 * line "N passed, N failed" (counting cases).  A case fails when any
 * KTEST_EXPECT* inside it fails; each failure prints a "#" diagnostic.
 */
#ifndef _SROCE_KTEST_H
#define _SROCE_KTEST_H

#include <stdio.h>

#include "env.h"

struct ktest {
	const char *name; /* current case */
	int failures; /* failed expectations in this case */
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	size_t ncases;
};

#define KTEST_CASE(fn)  \
	{               \
#fn, fn \
	}
/* Defines name_suite from the array name_cases. */
#define KTEST_SUITE(name)                                              \
	const struct ktest_suite name##_suite = { #name, name##_cases, \
						  ARRAY_SIZE(name##_cases) }

/* The suites, one per test_*.c, run by main.c in this order. */
extern const struct ktest_suite crc32_suite;
extern const struct ktest_suite hdr_suite;
extern const struct ktest_suite aeth_suite;
extern const struct ktest_suite opcode_suite;
extern const struct ktest_suite psn_suite;
extern const struct ktest_suite icrc_suite;
extern const struct ktest_suite pfc_suite;
extern const struct ktest_suite dcqcn_suite;
extern const struct ktest_suite timely_suite;
extern const struct ktest_suite hpcc_suite;
extern const struct ktest_suite int_suite;
extern const struct ktest_suite pma_suite;
extern const struct ktest_suite win_suite;

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt,
		...) __printf(4, 5);

#define KTEST_EXPECT(t, cond)                                            \
	do {                                                             \
		if (!(cond))                                             \
			ktest_fail(t, __FILE__, __LINE__, "expected %s", \
				   #cond);                               \
	} while (0)

#define KTEST_EXPECT_EQ(t, a, b)                                             \
	do {                                                                 \
		unsigned long long _a = (unsigned long long)(a);             \
		unsigned long long _b = (unsigned long long)(b);             \
		if (_a != _b)                                                \
			ktest_fail(t, __FILE__, __LINE__,                    \
				   "%s == %s: 0x%llx != 0x%llx", #a, #b, _a, \
				   _b);                                      \
	} while (0)

#define KTEST_EXPECT_SEQ(t, a, b)                                             \
	do {                                                                  \
		long long _a = (long long)(a);                                \
		long long _b = (long long)(b);                                \
		if (_a != _b)                                                 \
			ktest_fail(t, __FILE__, __LINE__,                     \
				   "%s == %s: %lld != %lld", #a, #b, _a, _b); \
	} while (0)

#endif /* _SROCE_KTEST_H */
