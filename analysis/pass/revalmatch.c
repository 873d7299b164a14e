/* SPDX-License-Identifier: MIT */
/* revalmatch.c - where a kernel reader's replay and its client parted. */
#include <stdlib.h>
#include <string.h>

#include "revalmatch.h"

/* ftrace prints µs: an event can print up to 1 µs outside its read */
#define SLACK_NS 1000

int sw_revalmatch_add(struct sw_revalmatch *m, const struct sw_replay_step *s)
{
	if (s->kind != SW_STEP_REVAL && s->kind != SW_STEP_OPEN)
		return 0;
	if (s->tb_mono_ns <= 0 || s->ta_mono_ns < s->tb_mono_ns)
		return 0; /* not a logged read: nothing to match */
	if (m->n == m->cap) {
		size_t c = m->cap ? m->cap * 2 : 64;
		struct sw_replay_step *p = realloc(m->s, c * sizeof(*p));
		if (!p) {
			m->oom = 1;
			return -1;
		}
		m->s = p;
		m->cap = c;
	}
	m->s[m->n++] = *s;
	return 0;
}

static int inside(const struct sw_replay_step *s, int64_t t)
{
	return t >= s->tb_mono_ns - SLACK_NS && t <= s->ta_mono_ns + SLACK_NS;
}

static void part(struct sw_revalmatch_out *o, int side, int64_t t, const struct sw_replay_step *at)
{
	if (o->side)
		return;
	o->side = side;
	o->first_mono_ns = t;
	if (at)
		o->at = *at;
}

void sw_revalmatch_finish(const struct sw_revalmatch *m, const struct sw_nfsev *ev, size_t n,
			  int64_t t_end_mono_ns, struct sw_revalmatch_out *o)
{
	memset(o, 0, sizeof(*o));
	size_t k = 0, i = 0;
	for (size_t e = 0; e < n; e++)
		k += ev[e].kind == SW_NFSEV_GA_SEND;
	if (!k || !m->n || m->oom)
		return;
	o->compared = 1;
	/* the reader's own last event (every read's check is traced): the
	 * replay reads on past its last logged read */
	if (ev[n - 1].t_mono_ns < t_end_mono_ns)
		t_end_mono_ns = ev[n - 1].t_mono_ns;
	int64_t lo = m->s[0].tb_mono_ns - SLACK_NS;
	for (size_t s = 0; s < m->n; s++) {
		const struct sw_replay_step *st = &m->s[s];
		int hit = 0;
		if (st->tb_mono_ns > t_end_mono_ns)
			break; /* past the trace, or past the reader's reads */
		/* the client's GETATTRs before this read: ones the replay
		 * did not make (within its span) */
		for (; i < n && ev[i].t_mono_ns < st->tb_mono_ns - SLACK_NS; i++) {
			if (ev[i].kind != SW_NFSEV_GA_SEND || ev[i].t_mono_ns < lo)
				continue;
			o->client++;
			part(o, SW_PART_CLIENT, ev[i].t_mono_ns, s ? &m->s[s - 1] : NULL);
		}
		for (; i < n && inside(st, ev[i].t_mono_ns); i++)
			hit |= ev[i].kind == SW_NFSEV_GA_SEND;
		o->client += hit; /* a read's GETATTRs (noac: its open's and its own) */
		o->replay++;
		if (hit)
			o->matched++;
		else if (st->kind != SW_STEP_OPEN) /* an open may revalidate by its OPEN */
			part(o, SW_PART_REPLAY, st->tb_mono_ns, st);
		else
			o->replay--; /* not counted either way */
	}
}

void sw_revalmatch_free(struct sw_revalmatch *m)
{
	free(m->s);
	memset(m, 0, sizeof(*m));
}
