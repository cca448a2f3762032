// SPDX-License-Identifier: GPL-2.0
/*
 * test_win.c - the recovery window of an RC requester (kernel/proto/win.c)
 * against sequences computed by hand from the model in win.h: a loss
 * halves the flight (at least SROCE_WIN_LOSS_MIN), a timeout leaves
 * SROCE_WIN_MIN, a reduction goes at once to the flight plus one and then
 * down by one per two acknowledged, slow start then congestion avoidance
 * up to the largest window, and the undo of a spurious timeout; the step
 * above ssthresh that sroce_win_used() derives from how much of the
 * window was in flight.
 */
#include "ktest.h"
#include "win.h"

#define MAX 256 /* the kernel's SROCE_REQ_WINDOW */

#define EXPECT_WIN(t, w, sz, thresh, a, shr)                          \
	do {                                                          \
		KTEST_EXPECT_EQ(t, (w)->size, sz);                    \
		KTEST_EXPECT_EQ(t, (w)->ssthresh, thresh);            \
		KTEST_EXPECT_EQ(t, (w)->acc, (u64)(a)*SROCE_WIN_ONE); \
		KTEST_EXPECT_EQ(t, (w)->shrink, shr);                 \
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
	w = (struct sroce_win){ .size = 60,
				.ssthresh = 50,
				.acc = 7 * SROCE_WIN_ONE };
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

/* A window of 10 above ssthresh (a loss of 20 in flight), in a round. */
static void win_ca10(struct sroce_win *w)
{
	sroce_win_init(w, MAX);
	sroce_win_cut(w, 20, false);
}

/* @rounds window's worths of ACKs of one, @flight in flight at each. */
static void win_used_rounds(struct sroce_win *w, u32 rounds, u32 flight)
{
	u32 i;

	for (i = 0; i < rounds * w->size; i++)
		sroce_win_used(w, 1, flight);
}

static void win_step_scaled(struct ktest *t)
{
	struct sroce_win w;

	/* Two packets per window's worth: 10 ACKs give 1, 2 more ... */
	win_ca10(&w);
	w.ai = 2 * SROCE_WIN_ONE;
	sroce_win_grow(&w, 10, MAX);
	EXPECT_WIN(t, &w, 11, 10, 10, false);
	/* ... with 10 x 2 of the 11 x 1 the next needs already there. */
	sroce_win_grow(&w, 1, MAX);
	EXPECT_WIN(t, &w, 12, 10, 1, false);
	/* A cut keeps the step: it belongs to the host, not the window. */
	sroce_win_cut(&w, 12, false);
	KTEST_EXPECT_EQ(t, w.ai, 2 * SROCE_WIN_ONE);
	/* A new connection has TCP's. */
	sroce_win_init(&w, MAX);
	KTEST_EXPECT_EQ(t, w.ai, SROCE_WIN_ONE);
}

static void win_step_reset_off(struct ktest *t)
{
	struct sroce_win w;

	/* Half the window waits in the host: the step rises ... */
	win_ca10(&w);
	win_used_rounds(&w, 2, 5);
	KTEST_EXPECT(t, w.ai > SROCE_WIN_ONE);
	/* ... half a round is counted, then the knob goes off: */
	sroce_win_used(&w, 5, 5);
	sroce_win_step_reset(&w);
	KTEST_EXPECT_EQ(t, w.ai, SROCE_WIN_ONE);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
	/* TCP's step again: 10 ACKs give one packet more. */
	w.acc = 0;
	sroce_win_grow(&w, 10, MAX);
	KTEST_EXPECT_EQ(t, w.size, 11);
	/* At TCP's step already, nothing changes. */
	sroce_win_used(&w, 3, SROCE_WIN_FULL);
	sroce_win_step_reset(&w);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 3);
}

static void win_used_full(struct ktest *t)
{
	struct sroce_win w;

	/* All of the window in flight (or SROCE_WIN_FULL): TCP's step. */
	win_ca10(&w);
	win_used_rounds(&w, 3, 10);
	KTEST_EXPECT_EQ(t, w.ai, SROCE_WIN_ONE);
	win_used_rounds(&w, 3, SROCE_WIN_FULL);
	KTEST_EXPECT_EQ(t, w.ai, SROCE_WIN_ONE);
	/* More in flight than the window (a reduction) counts as all. */
	win_used_rounds(&w, 1, 15);
	KTEST_EXPECT_EQ(t, w.ai, SROCE_WIN_ONE);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
}

static void win_used_host_wait(struct ktest *t)
{
	struct sroce_win w;
	u32 i;

	/*
	 * 8 of 10 in flight: the round is 10/8 of the path's, the step
	 * (10/8)^2 = 400/256, a quarter of it at each round.
	 */
	win_ca10(&w);
	win_used_rounds(&w, 1, 8);
	KTEST_EXPECT_EQ(t, w.ai, (3 * 256 + 400) / 4);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
	win_used_rounds(&w, 1, 8);
	KTEST_EXPECT_EQ(t, w.ai, (3 * 292 + 400) / 4);
	/* Not before a window's worth: 9 of 10 change nothing. */
	for (i = 0; i < 9; i++)
		sroce_win_used(&w, 1, 2);
	KTEST_EXPECT_EQ(t, w.ai, 319);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 9);
	/* A cut or a reduction starts the round again, the step kept. */
	sroce_win_cut(&w, 20, false);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
	KTEST_EXPECT_EQ(t, w.rnd_used, 0);
	KTEST_EXPECT_EQ(t, w.rnd_offered, 0);
	KTEST_EXPECT_EQ(t, w.ai, 319);
	/* Back in flight whole, the step returns to one packet. */
	win_used_rounds(&w, 40, 10);
	KTEST_EXPECT_EQ(t, w.ai, SROCE_WIN_ONE);
}

static void win_used_bounds(struct ktest *t)
{
	struct sroce_win w;

	/* 1 of 10 in flight: the round's step capped at SROCE_WIN_AI_MAX. */
	win_ca10(&w);
	win_used_rounds(&w, 1, 1);
	KTEST_EXPECT_EQ(t, w.ai, (3 * 256 + SROCE_WIN_AI_MAX) / 4);
	win_used_rounds(&w, 40, 0);
	KTEST_EXPECT(t, w.ai <= SROCE_WIN_AI_MAX);
	KTEST_EXPECT(t, w.ai >= SROCE_WIN_AI_MAX - 4);
	/* One ACK of more than a window counts a window's worth. */
	win_ca10(&w);
	sroce_win_used(&w, 1000, 5);
	KTEST_EXPECT_EQ(t, w.ai, (3 * 256 + 1024) / 4);
	/* Slow start and a shrink count nothing. */
	sroce_win_init(&w, MAX);
	sroce_win_cut(&w, 20, true);
	sroce_win_used(&w, 1, 1);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
	sroce_win_init(&w, MAX);
	sroce_win_reduce(&w, 200);
	sroce_win_used(&w, 1, 1);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
	/* Nor a window past SROCE_WIN_USED_MAXW (its sums would not fit). */
	sroce_win_init(&w, U32_MAX);
	sroce_win_used(&w, 1, 1);
	KTEST_EXPECT_EQ(t, w.rnd_acked, 0);
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
	KTEST_CASE(win_step_scaled),
	KTEST_CASE(win_used_full),
	KTEST_CASE(win_used_host_wait),
	KTEST_CASE(win_step_reset_off),
	KTEST_CASE(win_used_bounds),
};

KTEST_SUITE(win);
