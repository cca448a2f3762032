// SPDX-License-Identifier: GPL-2.0
/*
 * evq.c - the event queue of ccsim: a binary min-heap on (time, seq).
 *
 * seq is the insertion order, so events at the same picosecond pop in the
 * order they were scheduled: the run does not depend on heap layout, which
 * is what makes two runs of one scenario byte-identical.
 */
#include <stdlib.h>

#include "sim.h"

static bool sim_ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_evq_init(struct sim_evq *q)
{
	q->cap = 1024;
	q->n = 0;
	q->seq = 0;
	q->heap = malloc(q->cap * sizeof(*q->heap));
	return q->heap ? 0 : -1;
}

void sim_evq_free(struct sim_evq *q)
{
	free(q->heap);
	q->heap = NULL;
	q->n = 0;
	q->cap = 0;
}

int sim_evq_push(struct sim_evq *q, u64 t, u32 kind, u32 flow, u64 data)
{
	struct sim_event ev = { .t = t,
				.seq = q->seq++,
				.kind = kind,
				.flow = flow,
				.data = data };
	size_t i;

	if (q->n == q->cap) {
		struct sim_event *h;

		h = realloc(q->heap, 2 * q->cap * sizeof(*h));
		if (!h)
			return -1;
		q->heap = h;
		q->cap *= 2;
	}
	i = q->n++;
	while (i) {
		size_t up = (i - 1) / 2;

		if (!sim_ev_before(&ev, &q->heap[up]))
			break;
		q->heap[i] = q->heap[up];
		i = up;
	}
	q->heap[i] = ev;
	return 0;
}

bool sim_evq_pop(struct sim_evq *q, struct sim_event *ev)
{
	struct sim_event last;
	size_t i = 0;

	if (!q->n)
		return false;
	*ev = q->heap[0];
	last = q->heap[--q->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && sim_ev_before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!sim_ev_before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	q->heap[i] = last;
	return true;
}
