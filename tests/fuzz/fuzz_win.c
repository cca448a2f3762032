// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_win.c - the RC requester's recovery window (kernel/proto/win.c)
 * over any sequence of losses, timeouts, reductions, ACKs, settles and
 * undos, driven the way kernel/comp.c drives it, each ACK told to
 * sroce_win_used() first with what was in flight.
 *
 * Input: the largest window (2 bytes, 1 .. 4096 PSNs), then events of 5
 * bytes: kind (1), argument (4).  The flight handed to a cut or a
 * reduction is at most the window, and a cut with nothing in flight gets
 * the window (comp.c's sroce_comp_flight() and sroce_comp_win_cut()); an
 * undo restores the copy taken at the last timeout's cut.  An ACK's
 * argument also gives what was in flight (0 .. the window + 1, or
 * SROCE_WIN_FULL).
 *
 * Invariants after every event:
 *  - every field equals a reference written independently: a cut and a
 *    reduction from their formulas (win.h), an ACK one acknowledged PSN
 *    at a time in the mode it found (a shrinking window loses one PSN
 *    per two and stops at ssthresh; below ssthresh it gains one per PSN
 *    up to the largest window, past ssthresh if the ACK is larger;
 *    above, ai/SROCE_WIN_ONE per window's worth; ai, the step, after
 *    each window's worth of ACKs above ssthresh, a quarter of the way to
 *    the square of the window over the flight, PSN by PSN);
 *  - 1 <= size, and size and ssthresh stay within the largest window (or
 *    SROCE_WIN_LOSS_MIN where that is larger);
 *  - shrink only with size > ssthresh; acc below size unless the window
 *    is at its largest (where ACKs no longer count);
 *  - one packet <= ai <= SROCE_WIN_AI_MAX; a round holds less than a
 *    window's worth.
 */
#include "fuzz.h"
#include "win.h"

#define MAX_ACKED 4096

struct ref {
	u32 size, ssthresh;
	u64 acc; /* 1/SROCE_WIN_ONE PSN */
	bool shrink;
	u32 ai, n; /* the step; the round: PSNs counted, ... */
	u64 off, use; /* ... the window and the flight at each */
};

/* A round begins (init, a cut, a reduction). */
static void ref_round(struct ref *r)
{
	r->n = 0;
	r->off = 0;
	r->use = 0;
}

/* sroce_win_used(), one PSN at a time. */
static void ref_used(struct ref *r, u32 acked, u32 flight)
{
	u32 i, f = flight < r->size ? flight : r->size;
	u64 x;

	if (r->shrink || r->size < r->ssthresh || r->size > SROCE_WIN_USED_MAXW)
		return;
	for (i = 0; i < acked && i < r->size; i++) {
		r->n++;
		r->off += r->size;
		r->use += f;
	}
	if (r->n < r->size)
		return;
	/* (window / flight)^2 of the round, the ratio at most 3 */
	if (r->off >= 3 * r->use)
		x = 9 * SROCE_WIN_ONE;
	else
		x = (r->off * SROCE_WIN_ONE / r->use) *
		    (r->off * SROCE_WIN_ONE / r->use) / SROCE_WIN_ONE;
	if (x > SROCE_WIN_AI_MAX)
		x = SROCE_WIN_AI_MAX;
	if (x < SROCE_WIN_ONE)
		x = SROCE_WIN_ONE;
	r->ai = (u32)((3 * (u64)r->ai + x) / 4);
	ref_round(r);
}

static u32 half(u32 n)
{
	return n / 2 < SROCE_WIN_LOSS_MIN ? SROCE_WIN_LOSS_MIN : n / 2;
}

static void ref_grow(struct ref *r, u32 acked, u32 max)
{
	u32 i;

	if (r->shrink) {
		for (i = 0; i < acked; i++) {
			r->acc += SROCE_WIN_ONE;
			if (r->acc < 2 * SROCE_WIN_ONE)
				continue;
			r->acc = 0;
			if (--r->size == r->ssthresh) {
				r->shrink = false;
				return; /* the rest of the ACK is not counted */
			}
		}
		return;
	}
	if (r->size >= max)
		return;
	/* The ACK's mode is the one it finds (it may overshoot ssthresh). */
	if (r->size < r->ssthresh) {
		for (i = 0; i < acked && r->size < max; i++)
			r->size++;
		return;
	}
	for (i = 0; i < acked; i++) {
		r->acc += r->ai;
		while (r->acc >= (u64)r->size * SROCE_WIN_ONE &&
		       r->size < max) {
			r->acc -= (u64)r->size * SROCE_WIN_ONE;
			r->size++;
		}
	}
}

static void check(const struct sroce_win *w, const struct ref *r, u32 max)
{
	u32 bound = max > SROCE_WIN_LOSS_MIN ? max : SROCE_WIN_LOSS_MIN;

	FUZZ_ASSERT(w->size == r->size);
	FUZZ_ASSERT(w->ssthresh == r->ssthresh);
	FUZZ_ASSERT(w->acc == r->acc);
	FUZZ_ASSERT(w->shrink == r->shrink);
	FUZZ_ASSERT(w->ai == r->ai);
	FUZZ_ASSERT(w->rnd_acked == r->n);
	FUZZ_ASSERT(w->rnd_used == r->use);
	FUZZ_ASSERT(w->rnd_offered == r->off);
	FUZZ_ASSERT(w->size >= 1 && w->size <= bound);
	FUZZ_ASSERT(w->ssthresh <= bound);
	FUZZ_ASSERT(!w->shrink || w->size > w->ssthresh);
	FUZZ_ASSERT(w->acc < (u64)w->size * SROCE_WIN_ONE || w->size >= max);
	FUZZ_ASSERT(w->ai >= SROCE_WIN_ONE && w->ai <= SROCE_WIN_AI_MAX);
	FUZZ_ASSERT(w->rnd_acked < w->size || !w->rnd_acked);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_win w, saved;
	struct ref r, rsaved;
	bool have_saved = false;
	struct fuzz_in in;
	u32 max;

	fuzz_in_init(&in, data, size);
	max = (u32)fuzz_range(&in, 2, 1, MAX_ACKED);
	sroce_win_init(&w, max);
	r = (struct ref){ .size = max, .ssthresh = max, .ai = SROCE_WIN_ONE };
	check(&w, &r, max);

	while (!fuzz_in_empty(&in)) {
		u8 kind = fuzz_u8(&in);
		u32 arg = fuzz_u32(&in);
		u32 flight = arg % (w.size + 1);

		switch (kind % 6) {
		case 0: /* a loss, or a timeout (kind bit 3) */
		case 1: {
			bool timeout = kind & 8;

			sroce_win_settle(&w);
			if (r.shrink) {
				r.size = r.ssthresh;
				r.shrink = false;
			}
			check(&w, &r, max);
			/* comp.c measures the flight before the settle */
			if (!flight)
				flight = w.size;
			if (timeout) {
				saved = w;
				rsaved = r;
				have_saved = true;
			}
			sroce_win_cut(&w, flight, timeout);
			r.ssthresh = half(flight);
			r.size = timeout ? SROCE_WIN_MIN : r.ssthresh;
			r.acc = 0;
			r.shrink = false;
			ref_round(&r);
			break;
		}
		case 2: { /* congestion without a loss (CNP, refusal) */
			u32 to = flight + 1 < r.size ? flight + 1 : r.size;

			sroce_win_reduce(&w, flight);
			r.ssthresh = half(r.size);
			r.size = to < r.ssthresh ? r.ssthresh : to;
			r.acc = 0;
			r.shrink = r.size > r.ssthresh;
			ref_round(&r);
			break;
		}
		case 3: /* an ACK, what was in flight when it came */
		case 4: {
			u32 acked = arg % (MAX_ACKED + 1);
			u32 fl = (arg >> 16) % (w.size + 2);

			if (fl == w.size + 1)
				fl = SROCE_WIN_FULL;
			sroce_win_used(&w, acked, fl);
			ref_used(&r, acked, fl);
			check(&w, &r, max);
			sroce_win_grow(&w, acked, max);
			ref_grow(&r, acked, max);
			break;
		}
		case 5: /* the timeout's cut was spurious */
			if (!have_saved)
				break;
			sroce_win_undo(&w, &saved);
			if (r.size < rsaved.size)
				r.size = rsaved.size;
			if (r.ssthresh < rsaved.ssthresh)
				r.ssthresh = rsaved.ssthresh;
			r.shrink = false;
			have_saved = false;
			break;
		}
		check(&w, &r, max);
	}
	return 0;
}
