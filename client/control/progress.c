/* SPDX-License-Identifier: MIT */
/* progress.c - see progress.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "records.h"
#include "swlog.h"

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* 1 for a whole ATTR or READ record whose reply had status 0 */
static int reply_ok(const struct swlog_rec *r)
{
	if (r->type == SW_REC_ATTR)
		return r->len >= sizeof(struct sw_rec_attr) &&
		       ((const struct sw_rec_attr *)r->payload)->status == 0;
	return r->len >= sizeof(struct sw_rec_read) &&
	       ((const struct sw_rec_read *)r->payload)->status == 0;
}

/* One record into c; kind is the log's (writer, probe, reader). */
static void count_record(const struct swlog_rec *r, struct sw_pg_counts *c)
{
	switch (r->type) {
	case SW_REC_STORE:
		if (r->len >= sizeof(struct sw_rec_store)) {
			const struct sw_rec_store *s = r->payload;
			if (!c->stores)
				c->first_mono_ns = s->t_before_mono_ns;
			c->last_mono_ns = s->t_after_mono_ns;
		}
		c->stores++;
		break;
	case SW_REC_UPDATE:
		c->updates++;
		break;
	case SW_REC_ATTR:
	case SW_REC_READ:
		c->replies += reply_ok(r);
		break;
	case SW_REC_GAP:
		c->gaps++;
		break;
	case SW_REC_KREAD:
		c->kreads++;
		break;
	default:
		break;
	}
}

/* Count one log's records into c; 0, or -1 when it cannot be opened (a
 * log whose header is not written yet). */
static int scan_log(const char *path, struct sw_pg_counts *c)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	struct stat st;
	char err[SWLOG_ERRLEN];

	if (stat(path, &st) == 0) {
		int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (t > c->newest_mtime_ns)
			c->newest_mtime_ns = t;
	}
	if (swlog_open(&r, path, err))
		return -1;
	int writer = swlog_reader_kind(r) == SWLOG_KIND_WRITER;
	while (swlog_next(r, &rec) == SWLOG_OK) {
		count_record(&rec, c);
		if (writer && rec.type == SW_REC_END)
			c->writer_end = 1;
	}
	swlog_reader_close(r);
	return 0;
}

int sw_pg_scan(const char *dir, struct sw_pg_counts *c)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[SW_PG_PATHLEN + 300];
	int logs = 0;

	memset(c, 0, sizeof(*c));
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!ends_with(e->d_name, ".swlog"))
			continue;
		logs++;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		scan_log(path, c);
	}
	closedir(d);
	return logs ? 0 : -1;
}

static int has_file(const char *dir, const char *name)
{
	char path[SW_PG_PATHLEN + 300];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int is_run(const char *dir)
{
	return has_file(dir, "writer.swlog") || has_file(dir, "probe-0.swlog");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Subfolders of dir that are runs into dirs from n on; depth 1 or 2. */
static int find_in(const char *dir, int depth, char dirs[][SW_PG_PATHLEN], int n, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[SW_PG_PATHLEN];
	struct stat st;

	if (!d)
		return n;
	while (n < max && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (is_run(path))
			snprintf(dirs[n++], SW_PG_PATHLEN, "%s", path);
		else if (depth > 1)
			n = find_in(path, depth - 1, dirs, n, max);
	}
	closedir(d);
	return n;
}

int sw_pg_find(const char *root, char dirs[][SW_PG_PATHLEN], int max)
{
	if (max < 1)
		return 0;
	if (is_run(root)) {
		snprintf(dirs[0], SW_PG_PATHLEN, "%s", root);
		return 1;
	}
	int n = find_in(root, 2, dirs, 0, max);
	qsort(dirs, (size_t)n, SW_PG_PATHLEN, by_name);
	return n;
}

void sw_pg_format(const struct sw_pg_line *l, char *buf, int len)
{
	char run[64] = "", total[32] = "?";

	if (l->nexp > 1 || l->exp > 1)
		snprintf(run, sizeof(run), "%d/%d %.14s ", l->exp, l->nexp > 0 ? l->nexp : l->exp,
			 l->name);
	if (l->total_s > 0)
		snprintf(total, sizeof(total), "%.0f", l->total_s);
	snprintf(buf, (size_t)len,
		 "[%3llds] %s%.0f/%ss stores/s %.0f updates %llu replies/s %.0f outages %llu%s",
		 (long long)l->wall_s, run, l->elapsed_s, total, l->stores_per_s,
		 (unsigned long long)l->updates, l->replies_per_s,
		 (unsigned long long)l->outages, l->api_down ? " (API down)" : "");
}
