/* SPDX-License-Identifier: MIT */
/*
 * Description: the log framing must round-trip every record, and a log cut
 * at ANY byte must read back as "all whole records, then a torn tail" -
 * never a misread record.  A broken framing shows as a record decoded from
 * a torn tail, a torn tail reported as corruption (or the reverse), a
 * version mismatch accepted, or a write error (disk full) not reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swlog.h"

#include "check.h"

#define NREC 50

static void write_log(const char *path)
{
	char err[SWLOG_ERRLEN];
	struct swlog_writer *w;
	int rc = swlog_create(&w, path, 1, SWLOG_KIND_WRITER, 0x1234abcdull,
			      "{\"k\":\"v\"}", 10, err);
	CHECK(rc == 0, "create: %s", err);
	if (rc)
		exit(1);
	for (int i = 0; i < NREC; i++) {
		struct sw_rec_store s = { .page = (uint64_t)i, .gen = (uint64_t)i + 1,
					  .t_after_real_ns = 1000 + i };
		CHECK(swlog_append(w, SW_REC_STORE, &s, sizeof(s)) == 0, "append %d", i);
	}
	CHECK(swlog_note(w, SW_NOTE_WARN, "rate %d/s not met", 5) == 0, "note");
	struct sw_rec_end e = { .reason = SW_END_DONE, .count_a = NREC };
	CHECK(swlog_append(w, SW_REC_END, &e, sizeof(e)) == 0, "end");
	CHECK(swlog_records(w) == NREC + 2, "records %llu",
	      (unsigned long long)swlog_records(w));
	CHECK(swlog_close(w) == 0, "close");
}

/* Read a log; return the number of good records and the final status. */
static int read_log(const char *path, int *status, int check_content)
{
	char err[SWLOG_ERRLEN];
	struct swlog_reader *r;
	if (swlog_open(&r, path, err) < 0) {
		*status = -1;
		return 0;
	}
	struct swlog_rec rec;
	int n = 0, st;
	while ((st = swlog_next(r, &rec)) == SWLOG_OK) {
		if (check_content && n < NREC) {
			const struct sw_rec_store *s = rec.payload;
			CHECK(rec.type == SW_REC_STORE && s->page == (uint64_t)n &&
				      s->gen == (uint64_t)n + 1,
			      "record %d misread (type %u page %llu)", n, rec.type,
			      (unsigned long long)s->page);
		}
		n++;
	}
	*status = st;
	swlog_reader_close(r);
	return n;
}

/* Read a log to its end with one reader, then with a clone of it (the
 * source closed first when close_src): the clone must see the same
 * records and the same final status, the checked frames skipped but never
 * a bad one. */
static void read_clone(const char *path, int close_src, int want_n, int want_st)
{
	char err[SWLOG_ERRLEN];
	struct swlog_reader *r, *c;
	struct swlog_rec rec;
	int n = 0, cn = 0, st, cst;
	if (swlog_open(&r, path, err) < 0) {
		CHECK(0, "clone: open %s: %s", path, err);
		return;
	}
	CHECK(swlog_reader_clone(&c, r) == 0, "clone: no clone of %s", path);
	while ((st = swlog_next(r, &rec)) == SWLOG_OK)
		n++;
	if (close_src)
		swlog_reader_close(r);
	CHECK(swlog_reader_run_id(c) == 0x1234abcdull && !strcmp(swlog_reader_meta(c), "{\"k\":\"v\"}"),
	      "clone: header not the source's");
	while ((cst = swlog_next(c, &rec)) == SWLOG_OK) {
		const struct sw_rec_store *s = rec.payload;
		CHECK(cn >= NREC || (rec.type == SW_REC_STORE && s->page == (uint64_t)cn &&
				     rec.index == (uint64_t)cn),
		      "clone: record %d misread (type %u)", cn, rec.type);
		cn++;
	}
	CHECK(n == want_n && st == want_st, "clone: source read %d records, status %d; expected %d, %d",
	      n, st, want_n, want_st);
	CHECK(cn == n && cst == st, "clone: expected the source's %d records and status %d, saw %d and %d",
	      n, st, cn, cst);
	if (!close_src)
		swlog_reader_close(r);
	swlog_reader_close(c);
}

int main(void)
{
	char dir[] = "/dev/shm/sw-test-swlog-XXXXXX"; /* memory: no disk waits */
	if (!mkdtemp(dir))
		return 1;
	char path[256], cut[256];
	snprintf(path, sizeof(path), "%s/a.swlog", dir);
	snprintf(cut, sizeof(cut), "%s/cut.swlog", dir);
	write_log(path);

	/* Round trip and metadata. */
	char err[SWLOG_ERRLEN];
	struct swlog_reader *r;
	CHECK(swlog_open(&r, path, err) == 0, "open: %s", err);
	CHECK(swlog_reader_run_id(r) == 0x1234abcdull, "run id");
	CHECK(swlog_reader_kind(r) == SWLOG_KIND_WRITER, "kind");
	CHECK(strcmp(swlog_reader_meta(r), "{\"k\":\"v\"}") == 0, "meta %s",
	      swlog_reader_meta(r));
	swlog_reader_close(r);
	int st;
	int n = read_log(path, &st, 1);
	CHECK(n == NREC + 2 && st == SWLOG_EOF, "full read: %d records, status %d", n, st);
	read_clone(path, 0, NREC + 2, SWLOG_EOF);
	read_clone(path, 1, NREC + 2, SWLOG_EOF);

	/* Cut at every byte: whole records before the cut, then TORN (or EOF
	 * when the cut falls on a record boundary); never CORRUPT. */
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	rewind(f);
	char *all = malloc((size_t)size);
	if (fread(all, 1, (size_t)size, f) != (size_t)size)
		return 1;
	fclose(f);
	int prev = 0;
	for (long len = 0; len <= size; len++) {
		FILE *g = fopen(cut, "wb");
		fwrite(all, 1, (size_t)len, g);
		fclose(g);
		int cst;
		int cn = read_log(cut, &cst, 1);
		if (cst == -1)
			continue; /* header itself incomplete: open refuses */
		CHECK(cst == SWLOG_EOF || cst == SWLOG_TORN,
		      "cut at %ld: status %d (expected EOF or TORN)", len, cst);
		CHECK(cn >= prev, "cut at %ld: %d records, fewer than %d", len, cn, prev);
		prev = cn;
	}
	CHECK(prev == NREC + 2, "last cut read %d records", prev);

	/* A flipped byte in the middle is corruption, not a torn tail. */
	all[size / 2] ^= 0x55;
	f = fopen(cut, "wb");
	fwrite(all, 1, (size_t)size, f);
	fclose(f);
	n = read_log(cut, &st, 0);
	CHECK(st == SWLOG_CORRUPT, "flipped byte: status %d (expected CORRUPT)", st);
	CHECK(n < NREC + 2, "flipped byte: read %d records", n);
	read_clone(cut, 0, n, SWLOG_CORRUPT);
	all[size / 2] ^= 0x55;

	/* Unknown version is refused with a message naming both. */
	all[8] = 99;
	f = fopen(cut, "wb");
	fwrite(all, 1, (size_t)size, f);
	fclose(f);
	int rc = swlog_open(&r, cut, err);
	CHECK(rc == -EPROTONOSUPPORT && strstr(err, "saw version 99"),
	      "version: rc %d, '%s'", rc, err);

	/* Not a log. */
	f = fopen(cut, "wb");
	fputs("hello, this is not a stalewin log at all", f);
	fclose(f);
	rc = swlog_open(&r, cut, err);
	CHECK(rc < 0 && strstr(err, "magic"), "magic: rc %d '%s'", rc, err);

	/* Disk full: /dev/full fails every write, and it must be reported. */
	struct swlog_writer *w;
	rc = swlog_create(&w, "/dev/full", 1, SWLOG_KIND_PROBE, 1, NULL, 0, err);
	CHECK(rc == -ENOSPC && strstr(err, "No space"), "dev/full: rc %d '%s'", rc, err);

	/* Existing file is not overwritten unless asked. */
	rc = swlog_create(&w, path, 0, SWLOG_KIND_PROBE, 1, NULL, 0, err);
	CHECK(rc == -EEXIST, "exclusive create: rc %d", rc);

	free(all);
	unlink(path);
	unlink(cut);
	rmdir(dir);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("test_swlog: ok\n");
	return 0;
}
