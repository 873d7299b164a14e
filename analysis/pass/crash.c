/* SPDX-License-Identifier: MIT */
/*
 * crash.c - vm run's --fault server-crash: the server guest wrote the
 * writer's file back, shut its ext4 down before the next journal commit
 * and was killed and booted again on the same disk.  For each store the
 * writer logged before the shutdown: does the disk hold its data after
 * the reboot (the copy the guest took, server/file-after-crash.bin: the
 * stamp of its page has its generation or a later one), and did the
 * client ever see it as changed: a kernel reader read that generation or
 * a later one of the page (before the crash or after), and the probe's
 * last times (after the reboot) differ from its last ones before it.
 * A store on disk that no reader ever read is one the client took for
 * unchanged: after the reboot the times it saw are the times before it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "runload.h"
#include "satmath.h"
#include "swlog.h"

#define MAXPAGES (1u << 20) /* 4 GiB of 4 KiB pages: more is not a run here */

struct reply { /* one probe reply, writer clock */
	int64_t t_ns;
	struct sw_attrs a;
	int target;
};

static int same_attrs(const struct sw_attrs *x, const struct sw_attrs *y)
{
	return x->mtime_ns == y->mtime_ns && x->ctime_ns == y->ctime_ns && x->size == y->size &&
	       x->change == y->change;
}

/* the page size the writer logged in its meta (4096 when it says none) */
static uint64_t page_size_of(struct swlog_reader *r)
{
	json_t *m = json_loads(swlog_reader_meta(r), 0, NULL);
	json_t *p = m ? json_object_get(m, "page_size") : NULL;
	uint64_t v = json_is_integer(p) && json_integer_value(p) > 0 ? (uint64_t)json_integer_value(p) : 4096;
	json_decref(m);
	return v;
}

/* each page's generation on the disk after the reboot (0: no stamp of
 * this run); the pages' count, or -1 (a problem said) */
static int64_t disk_gens(struct sw_summary *S, const char *path, uint64_t run_id, uint64_t psz,
			 uint64_t **gens)
{
	FILE *f = fopen(path, "rb");
	unsigned char *page;
	int64_t n = 0;

	*gens = NULL;
	if (!f) {
		sw_problem(S, path, -1, 0,
			   "expected the writer's file as the disk kept it after the server's crash, saw none: the crash's stores are not checked against the disk");
		return -1;
	}
	page = malloc(psz);
	*gens = calloc(MAXPAGES, sizeof(**gens));
	if (!page || !*gens) {
		free(page);
		free(*gens);
		*gens = NULL;
		fclose(f);
		sw_problem(S, path, -1, 0, "out of memory reading the file after the crash");
		return -1;
	}
	while (n < MAXPAGES && fread(page, 1, psz, f) == psz) {
		struct sw_stamp st;
		memcpy(&st, page, sizeof(st));
		if (st.magic == SW_STAMP_MAGIC && st.run_id == run_id && st.page == (uint64_t)n &&
		    st.check == sw_stamp_check(&st))
			(*gens)[n] = st.gen;
		n++;
	}
	fclose(f);
	free(page);
	return n;
}

/* the highest generation of each page any kernel reader read, plus one
 * (0: the page never read; 1: read, no stamp of this run), kept in
 * maxread, MAXPAGES long; 1 when at least one reader log was read */
static int reader_gens(const struct sw_input *in, uint64_t *maxread)
{
	int any = 0;
	char err[SWLOG_ERRLEN];
	for (int j = 0; j < in->nkread; j++) {
		struct swlog_reader *r;
		struct swlog_rec rec;
		if (swlog_open(&r, in->kread[j], err))
			continue;
		any = 1;
		while (swlog_next(r, &rec) == SWLOG_OK && rec.type != SW_REC_END) {
			struct sw_rec_kread q;
			if (rec.type != SW_REC_KREAD || rec.len < sizeof(q))
				continue;
			memcpy(&q, rec.payload, sizeof(q));
			if (q.err || (q.flags & (SW_READ_TORN | SW_READ_OTHERRUN)) || q.page >= MAXPAGES)
				continue;
			if (q.gen + 1 > maxread[q.page])
				maxread[q.page] = q.gen + 1;
		}
		swlog_reader_close(r);
	}
	return any;
}

/* the probes' successful replies, writer clock, in log order per target */
static struct reply *probe_replies(const struct sw_summary *S, const struct sw_input *in, size_t *n)
{
	struct reply *v = NULL;
	size_t cap = 0;
	char err[SWLOG_ERRLEN];

	*n = 0;
	for (int i = 0; i < in->nprobe; i++) {
		struct swlog_reader *r;
		struct swlog_rec rec;
		if (swlog_open(&r, in->probe[i], err))
			continue;
		while (swlog_next(r, &rec) == SWLOG_OK && rec.type != SW_REC_END) {
			struct sw_rec_attr a;
			if (rec.type != SW_REC_ATTR || rec.len < sizeof(a))
				continue;
			memcpy(&a, rec.payload, sizeof(a));
			if (a.status)
				continue;
			if (*n == cap) {
				struct reply *w = realloc(v, (cap ? cap * 2 : 1024) * sizeof(*v));
				if (!w)
					break;
				v = w;
				cap = cap ? cap * 2 : 1024;
			}
			v[*n].t_ns = sa(a.t_recv_real_ns, S->offset_ns);
			v[*n].a = a.attrs;
			v[*n].target = i * 256 + a.target;
			(*n)++;
		}
		swlog_reader_close(r);
	}
	return v;
}

/* Whether the times the probe ends with (its last reply, after the
 * reboot) differ from its last reply before t_s, for some target: -1 the
 * probe had no reply before t_s (or none after it), 1 they differ, 0 they
 * are the same for every target: a client that cached the page before
 * the store sees no change, for good.  (A stamp the server showed between
 * the writeback and the crash and lost in it is no change that lasts: a
 * client that saw it refetched, and sees the times move back.) */
static int probe_saw(const struct reply *v, size_t n, int64_t t_s)
{
	int based = 0;
	for (size_t i = 0; i < n; i++) { /* each target: its last reply before t_s */
		const struct reply *last = NULL;
		if (v[i].t_ns > t_s)
			continue;
		for (size_t k = i + 1; k < n; k++)
			if (v[k].target == v[i].target && v[k].t_ns <= t_s)
				goto next; /* a later one before t_s is the base */
		for (size_t k = i + 1; k < n; k++)
			if (v[k].target == v[i].target)
				last = &v[k];
		if (!last)
			continue;
		based = 1;
		if (!same_attrs(&last->a, &v[i].a))
			return 1;
next:;
	}
	return based ? 0 : -1;
}

static void crash_one(struct sw_summary *S, const char *dir, const struct sw_input *in, struct sw_fault *F)
{
	char path[SW_PATHLEN + 80], err[SWLOG_ERRLEN];
	struct swlog_reader *w;
	struct swlog_rec rec;
	uint64_t *gens = NULL, *maxread = NULL;
	struct reply *rp = NULL;
	size_t nrp = 0;
	int64_t npages;

	if (swlog_open(&w, in->writer, err)) {
		sw_problem(S, in->writer, -1, 0, "server-crash: cannot read the writer's log: %s", err);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, F->file_after[0] ? F->file_after : "server/file-after-crash.bin");
	npages = disk_gens(S, path, swlog_reader_run_id(w), page_size_of(w), &gens);
	maxread = calloc(MAXPAGES, sizeof(*maxread));
	if (npages < 0 || !maxread) {
		swlog_reader_close(w);
		free(gens);
		free(maxread);
		return;
	}
	int readers = reader_gens(in, maxread);
	rp = probe_replies(S, in, &nrp);
	F->crash_before = F->crash_on_disk = F->crash_on_read_pages = F->crash_never_read = 0;
	F->crash_probe_base = F->crash_probe_never = 0;
	F->ncrash_runs = 0;
	while (swlog_next(w, &rec) == SWLOG_OK && rec.type != SW_REC_END) {
		struct sw_rec_store st;
		if (rec.type != SW_REC_STORE || rec.len < sizeof(st))
			continue;
		memcpy(&st, rec.payload, sizeof(st));
		if (st.t_after_real_ns > F->t_start_ns)
			continue; /* after the shutdown: nothing of it reached the disk */
		F->crash_before++;
		if (st.page >= (uint64_t)npages || gens[st.page] < st.gen)
			continue;
		F->crash_on_disk++;
		if (readers && maxread[st.page]) { /* a page the readers read */
			F->crash_on_read_pages++;
			if (maxread[st.page] - 1 < st.gen) {
				F->crash_never_read++;
				int64_t *r = F->ncrash_runs && F->ncrash_runs <= SW_MAX_CRASH_RUNS ?
						     F->crash_run[F->ncrash_runs - 1] : NULL;
				if (r && r[0] == (int64_t)st.page && r[2] + 1 == (int64_t)st.gen)
					r[2]++;
				else if (F->ncrash_runs++ < SW_MAX_CRASH_RUNS) {
					r = F->crash_run[F->ncrash_runs - 1];
					r[0] = (int64_t)st.page;
					r[1] = r[2] = (int64_t)st.gen;
				}
			}
		}
		int p = probe_saw(rp, nrp, st.t_after_real_ns);
		if (p >= 0) {
			F->crash_probe_base++;
			F->crash_probe_never += !p;
		}
	}
	swlog_reader_close(w);
	free(gens);
	free(maxread);
	free(rp);
	snprintf(F->what, sizeof(F->what),
		 "%lld stores before it, %lld on disk after the reboot; never seen changed: %lld of %lld by the kernel readers, %lld of %lld by the probe's last times",
		 (long long)F->crash_before, (long long)F->crash_on_disk, (long long)F->crash_never_read,
		 (long long)F->crash_on_read_pages, (long long)F->crash_probe_never,
		 (long long)F->crash_probe_base);
}

void sw_crash_figures(struct sw_summary *S, const char *dir, const struct sw_input *in)
{
	for (int i = 0; i < S->nfaults; i++)
		if (!strcmp(S->fault[i].kind, "server-crash"))
			crash_one(S, dir, in, &S->fault[i]);
}
