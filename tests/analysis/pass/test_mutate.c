/* SPDX-License-Identifier: MIT */
/*
 * Description: deterministic mutation test of the log reader and the
 * analysis behind it (always runs; the libFuzzer harness fuzz_swlog.c goes
 * further when clang is there).  (1) Every single-byte flip of a writer or
 * probe log is caught by the framing: the report must come back partial
 * (3) or refused (2), never "complete" (0) with a damaged log, and never
 * crash.  (2) Logs with well-framed records of every type but random
 * payloads (valid CRCs, nonsense values: times going backwards, huge
 * pages, unknown types, short payloads) must be analysed without a crash
 * or a sanitizer report and end with 0 or 3.  A broken reader shows as a
 * crash/ASan report, or exit 0 on a damaged log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "swlog.h"
#include "synth.h"
#include "check.h"

static char base[] = "/tmp/sw-test-mutate-XXXXXX";
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned char *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(*n);
	if (b && fread(b, 1, *n, f) != *n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static void spill(const char *p, const unsigned char *b, size_t n)
{
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		perror(p);
		exit(1);
	}
	fclose(f);
}

static struct sw_summary S;

static int analyze(const char *dir)
{
	struct sw_analyze_opts o = { 0 };
	sw_summary_free(&S);
	return sw_analyze(dir, &o, &S);
}

static void flips(void)
{
	char dir[256], w[300], p[300], err[512];
	struct sw_synth_cfg c;
	snprintf(dir, sizeof(dir), "%s/flip", base);
	mkdir(dir, 0777);
	sw_synth_defaults(&c);
	c.duration_ns = 1000000000ll;
	c.poll_ns = 10000000;
	c.read_every = 3;
	c.writeback_ns = c.expire_ns = 300000000;
	if (sw_synth_run(&c, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "synth: %s\n", err);
		exit(1);
	}
	snprintf(w, sizeof(w), "%s/writer.swlog", dir);
	snprintf(p, sizeof(p), "%s/probe-0.swlog", dir);
	size_t nw, np;
	unsigned char *bw = slurp(w, &nw), *bp = slurp(p, &np);
	if (!bw || !bp || analyze(dir) != 0) {
		fprintf(stderr, "FAIL: the unmutated synthetic run must be complete\n");
		exit(1);
	}
	for (int i = 0; i < 400; i++) {
		int which = i & 1;
		unsigned char *b = which ? bp : bw;
		size_t n = which ? np : nw, at = (size_t)(rnd() % n);
		unsigned char old = b[at];
		b[at] ^= (unsigned char)(1u << (rnd() % 8));
		spill(which ? p : w, b, n);
		int rc = analyze(dir);
		if (rc != 2 && rc != 3) {
			fprintf(stderr, "FAIL: flip of byte %zu of %s: expected exit 2 or 3, saw %d\n",
				at, which ? "probe-0.swlog" : "writer.swlog", rc);
			failures++;
		}
		b[at] = old;
		spill(which ? p : w, b, n);
	}
	/* truncation at every 97th byte: partial or refused, never complete */
	for (size_t cut = 1; cut < nw; cut += 97) {
		spill(w, bw, cut);
		int rc = analyze(dir);
		if (rc != 2 && rc != 3) {
			fprintf(stderr, "FAIL: writer.swlog cut at %zu: expected 2 or 3, saw %d\n", cut, rc);
			failures++;
		}
	}
	spill(w, bw, nw);
	free(bw);
	free(bp);
}

static void garbage_log(const char *path, enum swlog_kind kind, int nrec)
{
	static const uint16_t types[] = { SW_REC_NOTE, SW_REC_STORE, SW_REC_UPDATE, SW_REC_CLEAN,
					  SW_REC_SYNC, SW_REC_MUNMAP, SW_REC_SETUP, SW_REC_ATTR, SW_REC_READ,
					  SW_REC_GAP, SW_REC_EVENT, SW_REC_KREAD, 99, SW_REC_END };
	struct swlog_writer *w;
	char err[SWLOG_ERRLEN];
	unsigned char pay[256];
	if (swlog_create(&w, path, 1, kind, 7, "{\"page\":0}", 0, err)) {
		fprintf(stderr, "create %s: %s\n", path, err);
		exit(1);
	}
	for (int i = 0; i < nrec; i++) {
		uint16_t t = types[rnd() % (sizeof(types) / sizeof(types[0]))];
		uint32_t min = swlog_min_len(t), len = min + (uint32_t)(rnd() % 16);
		if (len > sizeof(pay))
			len = sizeof(pay);
		for (uint32_t k = 0; k < len; k++)
			pay[k] = (unsigned char)rnd();
		if (rnd() % 4 == 0) /* plausible times now and then */
			for (uint32_t k = 0; k + 8 <= len; k += 8) {
				int64_t v = 1700000000000000000ll + (int64_t)(rnd() % 10000000000ull);
				memcpy(pay + k, &v, 8);
			}
		if (t == SW_REC_NOTE || t == SW_REC_EVENT) { /* text length field */
			uint32_t tl = (uint32_t)(rnd() % 64);
			memcpy(pay + (t == SW_REC_NOTE ? 12 : 28), &tl, 4);
		}
		swlog_append(w, t, pay, len);
	}
	swlog_close(w);
}

static void garbage(void)
{
	char dir[256], p[300];
	for (int round = 0; round < 40; round++) {
		snprintf(dir, sizeof(dir), "%s/g%d", base, round);
		mkdir(dir, 0777);
		snprintf(p, sizeof(p), "%s/writer.swlog", dir);
		garbage_log(p, SWLOG_KIND_WRITER, 300);
		snprintf(p, sizeof(p), "%s/probe-0.swlog", dir);
		garbage_log(p, SWLOG_KIND_PROBE, 300);
		if (round % 2) {
			snprintf(p, sizeof(p), "%s/kread-0.swlog", dir);
			garbage_log(p, SWLOG_KIND_READER, 100);
		}
		int rc = analyze(dir);
		if (rc != 0 && rc != 3) {
			fprintf(stderr, "FAIL: garbage round %d: expected exit 0 or 3, saw %d\n", round, rc);
			failures++;
		}
	}
}

int main(void)
{
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	flips();
	garbage();
	return check_finish(base, "mutate: every damaged log caught, garbage analysed without a crash");
}
