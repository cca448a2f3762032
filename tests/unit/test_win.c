// SPDX-License-Identifier: GPL-2.0
/*
 * test_win.c - the recovery window of an RC requester (kernel/proto/win.c)
 * against sequences computed by hand from the model in win.h: a loss
 * halves the flight (at least SROCE_WIN_LOSS_MIN), a timeout leaves
 * SROCE_WIN_MIN, a reduction goes at once to the flight plus one and then
 * down by one per two acknowledged, slow start then congestion avoidance
 * up to the largest window, and the undo of a spurious timeout.
 */
#include "ktest.h"
#include "win.h"

#define MAX 256 /* the kernel's SROCE_REQ_WINDOW */

#define EXPECT_WIN(t, w, sz, thresh, a, shr)               \
	do {                                               \
		KTEST_EXPECT_EQ(t, (w)->size, sz);         \
		KTEST_EXPECT_EQ(t, (w)->ssthresh, thresh); \
		KTEST_EXPECT_EQ(t, (w)->acc, a);           \
		KTEST_EXPECT_EQ(t, (w)->shrink, shr);      \
	} while (0)

static void win_init_full(struct ktest *t)
{
	struct sroce_win w = {
		.size = 7, .ssthresh = 3, .acc = 5, .shrink = true
	};

	sroce_win_init(&w, MAX);
	EXPECT_WIN(t, &w, MAX, MAX, 0, false);
	/* Nothing to grow into: ACKs leave it and count nothing. */
	sroce_win_grow(&w, 100, MAX);
	EXPECT_WIN(t, &w, MAX, MAX, 0, false);
}

static void win_cut_halves_flight(struct ktest *t)
{
	struct sroce_win w;

	sroce_win_init(&w, MAX);
	sroce_win_cut(&w, 100, false);
	EXPECT_WIN(t, &w, 50, 50, 0, false);
	sroce_win_cut(&w, 7, false);
	EXPECT_WIN(t, &w, 3, 3, 0, false);
	/* Never below SROCE_WIN_LOSS_MIN. */
	sroce_win_cut(&w, 5, false);
	EXPECT_WIN(t, &w, 2, 2, 0, false);
	sroce_win_cut(&w, 1, false);
	EXPECT_WIN(t, &w, SROCE_WIN_LOSS_MIN, SROCE_WIN_LOSS_MIN, 0, false);
	sroce_win_cut(&w, 0, false);
	EXPECT_WIN(t, &w, 2, 2, 0, false);
	/* From the flight, not the window: a larger flight raises it. */
	sroce_win_cut(&w, 40, false);
	EXPECT_WIN(t, &w, 20, 20, 0, false);
}

static void win_cut_timeout(struct ktest *t)
{
	struct sroce_win w;

	sroce_win_init(&w, MAX);
	sroce_win_cut(&w, 100, true);
	EXPECT_WIN(t, &w, SROCE_WIN_MIN, 50, 0, false);
	KTEST_EXPECT_EQ(t, SROCE_WIN_MIN, 1);
	sroce_win_cut(&w, 1, true);
	EXPECT_WIN(t, &w, 1, 2, 0, false);
	sroce_win_cut(&w, 0, true);
	EXPECT_WIN(t, &w, 1, 2, 0, false);
}

static void win_slow_start(struct ktest *t)
{
	struct sroce_win w;

	sroce_win_init(&w, MAX);
	sroce_win_cut(&w, 100, true);
	/* Below ssthresh: as many more as each ACK acknowledged. */
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 2, 50, 0, false);
	sroce_win_grow(&w, 2, MAX);
	EXPECT_WIN(t, &w, 4, 50, 0, false);
	sroce_win_grow(&w, 40, MAX);
	EXPECT_WIN(t, &w, 44, 50, 0, false);
	/* The last step of slow start may pass ssthresh. */
	sroce_win_grow(&w, 10, MAX);
	EXPECT_WIN(t, &w, 54, 50, 0, false);
}

static void win_congestion_avoidance(struct ktest *t)
{
	struct sroce_win w;

	sroce_win_init(&w, MAX);
	sroce_win_cut(&w, 108, false);
	EXPECT_WIN(t, &w, 54, 54, 0, false);
	/* One more per window's worth acknowledged. */
	sroce_win_grow(&w, 53, MAX);
	EXPECT_WIN(t, &w, 54, 54, 53, false);
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 55, 54, 0, false);
	/* 166 = 55 + 56 + 55 left: two steps, each of the window then. */
	sroce_win_grow(&w, 166, MAX);
	EXPECT_WIN(t, &w, 57, 54, 55, false);
}

static void win_growth_capped(struct ktest *t)
{
	struct sroce_win w;

	/* Slow start stops at the largest window. */
	sroce_win_init(&w, 10);
	sroce_win_cut(&w, 10, true);
	EXPECT_WIN(t, &w, 1, 5, 0, false);
	sroce_win_grow(&w, 100, 10);
	EXPECT_WIN(t, &w, 10, 5, 0, false);
	/* So does congestion avoidance: 4 + 5 + ... + 9 = 39 of 1000. */
	sroce_win_cut(&w, 8, false);
	EXPECT_WIN(t, &w, 4, 4, 0, false);
	sroce_win_grow(&w, 1000, 10);
	EXPECT_WIN(t, &w, 10, 4, 961, false);
	/* At the largest, nothing counts. */
	sroce_win_grow(&w, 1, 10);
	EXPECT_WIN(t, &w, 10, 4, 961, false);
	/* A larger largest window: the count goes on. */
	sroce_win_grow(&w, 1, 12);
	EXPECT_WIN(t, &w, 12, 4, 941, false);
}

static void win_reduce_gradual(struct ktest *t)
{
	struct sroce_win w;

	sroce_win_init(&w, MAX);
	/* Half the window, at once only down to the flight plus one. */
	sroce_win_reduce(&w, 200);
	EXPECT_WIN(t, &w, 201, 128, 0, true);
	/* Then one down for each two acknowledged. */
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 201, 128, 1, true);
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 200, 128, 0, true);
	sroce_win_grow(&w, 10, MAX);
	EXPECT_WIN(t, &w, 195, 128, 0, true);
	sroce_win_grow(&w, 3, MAX);
	EXPECT_WIN(t, &w, 194, 128, 1, true);
	/* Down to ssthresh and no further; the shrink is over. */
	sroce_win_grow(&w, 200, MAX);
	EXPECT_WIN(t, &w, 128, 128, 0, false);
	/* Congestion avoidance from there. */
	sroce_win_grow(&w, 127, MAX);
	EXPECT_WIN(t, &w, 128, 128, 127, false);
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 129, 128, 0, false);
}

static void win_reduce_bounds(struct ktest *t)
{
	struct sroce_win w;

	/* A full flight: nothing at once. */
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, MAX);
	EXPECT_WIN(t, &w, MAX, MAX / 2, 0, true);
	/* A small flight: at once at ssthresh, not below it. */
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, 20);
	EXPECT_WIN(t, &w, 128, 128, 0, false);
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, 0);
	EXPECT_WIN(t, &w, 128, 128, 0, false);
	/* From the window, not the flight: 128 halves to 64. */
	sroce_win_reduce(&w, 100);
	EXPECT_WIN(t, &w, 101, 64, 0, true);
	/* Never below SROCE_WIN_LOSS_MIN. */
	sroce_win_init(&w, 3);
	sroce_win_reduce(&w, 1);
	EXPECT_WIN(t, &w, 2, 2, 0, false);
	/* A reduction during a shrink starts over, its count reset. */
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, 200);
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 201, 128, 1, true);
	sroce_win_reduce(&w, 150);
	EXPECT_WIN(t, &w, 151, 100, 0, true);
}

static void win_settle_before_loss(struct ktest *t)
{
	struct sroce_win w;

	/* Not shrinking: nothing to do, not even the count. */
	sroce_win_init(&w, MAX);
	sroce_win_cut(&w, 108, false);
	sroce_win_grow(&w, 5, MAX);
	sroce_win_settle(&w);
	EXPECT_WIN(t, &w, 54, 54, 5, false);
	/* Shrinking: at its target at once. */
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, 200);
	sroce_win_grow(&w, 3, MAX);
	EXPECT_WIN(t, &w, 200, 128, 1, true);
	sroce_win_settle(&w);
	EXPECT_WIN(t, &w, 128, 128, 1, false);
	/* A loss then halves what was in flight. */
	sroce_win_cut(&w, 150, false);
	EXPECT_WIN(t, &w, 75, 75, 0, false);
	/* A cut ends a shrink by itself too. */
	sroce_win_reduce(&w, 74);
	EXPECT_WIN(t, &w, 75, 37, 0, true);
	sroce_win_cut(&w, 75, true);
	EXPECT_WIN(t, &w, 1, 37, 0, false);
}

static void win_undo_spurious(struct ktest *t)
{
	struct sroce_win w, saved;

	/* Back to what the timeout cut. */
	sroce_win_init(&w, MAX);
	saved = w;
	sroce_win_cut(&w, 100, true);
	sroce_win_grow(&w, 3, MAX);
	EXPECT_WIN(t, &w, 4, 50, 0, false);
	sroce_win_undo(&w, &saved);
	EXPECT_WIN(t, &w, MAX, MAX, 0, false);
	/* Each of the two at least as large as saved, neither smaller. */
	w = (struct sroce_win){ .size = 60, .ssthresh = 50, .acc = 7 };
	saved = (struct sroce_win){ .size = 40, .ssthresh = 70 };
	sroce_win_undo(&w, &saved);
	EXPECT_WIN(t, &w, 60, 70, 7, false);
	/* A shrink is over. */
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, 200);
	saved = (struct sroce_win){ .size = 2, .ssthresh = 2 };
	sroce_win_undo(&w, &saved);
	EXPECT_WIN(t, &w, 201, 128, 0, false);
}

static const struct ktest_case win_cases[] = {
	KTEST_CASE(win_init_full),
	KTEST_CASE(win_cut_halves_flight),
	KTEST_CASE(win_cut_timeout),
	KTEST_CASE(win_slow_start),
	KTEST_CASE(win_congestion_avoidance),
	KTEST_CASE(win_growth_capped),
	KTEST_CASE(win_reduce_gradual),
	KTEST_CASE(win_reduce_bounds),
	KTEST_CASE(win_settle_before_loss),
	KTEST_CASE(win_undo_spurious),
};

KTEST_SUITE(win);
