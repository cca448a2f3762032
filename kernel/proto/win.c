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

void sroce_win_init(struct sroce_win *w, u32 max)
{
	w->size = max;
	w->ssthresh = max;
	w->acc = 0;
	w->shrink = false;
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
}

/* Shrinking: one packet may follow for each two acknowledged. */
static void sroce_win_shrink(struct sroce_win *w, u32 acked)
{
	u32 dec;

	w->acc += acked;
	dec = w->acc / 2;
	if (dec > w->size - w->ssthresh)
		dec = w->size - w->ssthresh;
	w->acc -= 2 * dec;
	w->size -= dec;
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
	/* Congestion avoidance: one more per window's worth. */
	w->acc += acked;
	while (w->acc >= w->size && w->size < max) {
		w->acc -= w->size;
		w->size++;
	}
}

void sroce_win_undo(struct sroce_win *w, const struct sroce_win *saved)
{
	if (w->size < saved->size)
		w->size = saved->size;
	if (w->ssthresh < saved->ssthresh)
		w->ssthresh = saved->ssthresh;
	w->shrink = false;
}
