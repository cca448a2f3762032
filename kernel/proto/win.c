// SPDX-License-Identifier: GPL-2.0
/*
 * win.c - the recovery window of an RC requester (the model: win.h).
 */
#include "win.h"

/* Half of @n, at least SROCE_WIN_LOSS_MIN: the ssthresh of a cut. */
static u32 sroce_win_half(u32 n)
{
	return n / 2 > SROCE_WIN_LOSS_MIN ? n / 2 : SROCE_WIN_LOSS_MIN;
}

/* A round begins: nothing acknowledged, used or offered yet. */
static void sroce_win_round(struct sroce_win *w)
{
	w->rnd_acked = 0;
	w->rnd_used = 0;
	w->rnd_offered = 0;
}

void sroce_win_init(struct sroce_win *w, u32 max)
{
	w->size = max;
	w->ssthresh = max;
	w->acc = 0;
	w->ai = SROCE_WIN_ONE;
	w->shrink = false;
	sroce_win_round(w);
}

void sroce_win_settle(struct sroce_win *w)
{
	if (w->shrink) {
		w->size = w->ssthresh;
		w->shrink = false;
	}
}

void sroce_win_cut(struct sroce_win *w, u32 flight, bool timeout)
{
	w->ssthresh = sroce_win_half(flight);
	w->size = timeout ? SROCE_WIN_MIN : w->ssthresh;
	w->acc = 0;
	w->shrink = false;
	sroce_win_round(w);
}

void sroce_win_reduce(struct sroce_win *w, u32 flight)
{
	w->ssthresh = sroce_win_half(w->size);
	if (flight + 1 < w->size)
		w->size = flight + 1;
	if (w->size < w->ssthresh)
		w->size = w->ssthresh;
	w->acc = 0;
	w->shrink = w->size > w->ssthresh;
	sroce_win_round(w);
}

/* Shrinking: one packet may follow for each two acknowledged. */
static void sroce_win_shrink(struct sroce_win *w, u32 acked)
{
	u64 dec;

	w->acc += (u64)acked * SROCE_WIN_ONE;
	dec = w->acc / (2 * SROCE_WIN_ONE);
	if (dec > w->size - w->ssthresh)
		dec = w->size - w->ssthresh;
	w->acc -= dec * 2 * SROCE_WIN_ONE;
	w->size -= (u32)dec;
	if (w->size <= w->ssthresh) {
		w->shrink = false;
		w->acc = 0;
	}
}

void sroce_win_grow(struct sroce_win *w, u32 acked, u32 max)
{
	if (w->shrink) {
		sroce_win_shrink(w, acked);
		return;
	}
	if (w->size >= max)
		return;
	if (w->size < w->ssthresh) {
		/* Slow start: as many more as were acknowledged. */
		w->size = w->size + acked < max ? w->size + acked : max;
		return;
	}
	/* Congestion avoidance: ai more per window's worth. */
	w->acc += (u64)acked * w->ai;
	while (w->acc >= (u64)w->size * SROCE_WIN_ONE && w->size < max) {
		w->acc -= (u64)w->size * SROCE_WIN_ONE;
		w->size++;
	}
}

/*
 * The step of a round that offered @offered (PSNs acknowledged times the
 * window) and used @used of it (times what was in flight): the square of
 * their ratio, no further than 3, whose square is past SROCE_WIN_AI_MAX.
 */
static u32 sroce_win_ai_of(u64 offered, u32 used)
{
	u64 r, ai;

	r = offered >= 3ULL * used ? 3 * SROCE_WIN_ONE :
				     div_u64(offered * SROCE_WIN_ONE, used);
	ai = r * r / SROCE_WIN_ONE;
	if (ai < SROCE_WIN_ONE)
		return SROCE_WIN_ONE;
	return ai < SROCE_WIN_AI_MAX ? (u32)ai : SROCE_WIN_AI_MAX;
}

void sroce_win_used(struct sroce_win *w, u32 acked, u32 flight)
{
	u32 a;

	if (w->shrink || w->size < w->ssthresh || w->size > SROCE_WIN_USED_MAXW)
		return;
	/* a round holds at most twice the window: the sums fit */
	a = acked < w->size ? acked : w->size;
	w->rnd_acked += a;
	w->rnd_used += a * (flight < w->size ? flight : w->size);
	w->rnd_offered += (u64)a * w->size;
	if (w->rnd_acked < w->size)
		return;
	/* three parts the last step, one the round's (as RFC 6298's srtt) */
	w->ai = (3 * w->ai + sroce_win_ai_of(w->rnd_offered, w->rnd_used)) / 4;
	sroce_win_round(w);
}

void sroce_win_step_reset(struct sroce_win *w)
{
	if (w->ai == SROCE_WIN_ONE)
		return;
	w->ai = SROCE_WIN_ONE;
	sroce_win_round(w);
}

void sroce_win_undo(struct sroce_win *w, const struct sroce_win *saved)
{
	if (w->size < saved->size)
		w->size = saved->size;
	if (w->ssthresh < saved->ssthresh)
		w->ssthresh = saved->ssthresh;
	w->shrink = false;
}
