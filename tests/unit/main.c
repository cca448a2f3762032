// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - run every unit test suite of kernel/proto/ and print KTAP.
 *
 * Exit status is 0 only if every case passed.  Diagnostics of a failing
 * case are capped so one broken codec cannot flood the log.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "ktest.h"

#define KTEST_MAX_DIAG 20

static const struct ktest_suite *const suites[] = {
	&crc32_suite, &hdr_suite, &aeth_suite,	&opcode_suite, &psn_suite,
	&icrc_suite,  &pfc_suite, &dcqcn_suite, &timely_suite, &hpcc_suite,
	&int_suite,   &pma_suite, &win_suite,
};

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt,
		...)
{
	va_list ap;

	if (t->failures++ >= KTEST_MAX_DIAG)
		return;
	printf("        # %s: %s:%d: ", t->name, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int main(void)
{
	size_t nsuites = ARRAY_SIZE(suites);
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%zu\n", nsuites);
	for (size_t s = 0; s < nsuites; s++) {
		const struct ktest_suite *suite = suites[s];
		int suite_failed = 0;

		printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n",
		       suite->name, suite->ncases);
		for (size_t c = 0; c < suite->ncases; c++) {
			struct ktest t = { .name = suite->cases[c].name };

			suite->cases[c].run(&t);
			if (t.failures > KTEST_MAX_DIAG)
				printf("        # %s: %d more failures\n",
				       t.name, t.failures - KTEST_MAX_DIAG);
			if (t.failures) {
				failed++;
				suite_failed = 1;
			} else {
				passed++;
			}
			printf("    %sok %zu %s\n", t.failures ? "not " : "",
			       c + 1, t.name);
		}
		printf("%sok %zu %s\n", suite_failed ? "not " : "", s + 1,
		       suite->name);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
