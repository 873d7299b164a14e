/* SPDX-License-Identifier: MIT */
/*
 * Description: the client guest's own NFS times (client/trace.txt,
 * nfstrace.h) read back and used by the replay.  A broken reader shows as
 * events given to the wrong reader (its mount's dev is decimal in the
 * "# dev:" line, hex in the events' fileid), a v3 READ's post-op refresh
 * (traced before its nfs_readpage_done) not found, a trace in another
 * clock taken, or a malformed line accepted.  A broken replay shows as
 * the estimated times winning over the traced ones: in jiffies mode
 * (HZ=250) a v3 refetch whose READ went out just after a tick revalidates
 * next at 6.1003 s, not 6.0003 s (read_cache_jiffies = the READ's
 * fattr->time_start, nfs_update_inode), and a no-change GETATTR whose
 * reply was traced inside attrtimeo_timestamp + attrtimeo keeps attrtimeo
 * (next at 6.0003 s, not 9.0003 s), and a read's attribute check traced
 * in the jiffy after its start not revalidating there; a refresh
 * taking the GETATTR kretprobe's jiffy when nfs_update_inode's own
 * (kprobe jif_update) came a tick later; and a read whose check kprobe
 * read the jiffy before its GETATTR's keeping the check's, where the
 * kernel's comparison came after that tick (it revalidated): the replay
 * kept the cache one read too long and stayed 100 ms late (v3 kept-open,
 * p50 4.09 s against the client's 3.31 s); and a GETATTR whose fattr was
 * set up after a tick that followed __nfs_revalidate_inode's entry taking
 * the entry's jiffy, or nfs4_proc_getattr's entry where nfs_fattr_init
 * (jif_fattr) came a tick later (v4.2 kept-open, validate_vm of 5 Dec:
 * the kernel kept its cache one read longer than the replay, which then
 * ran a read ahead for the rest of the run, 1 of 10 revalidations
 * traced); and a v3 reopening reader on a nocto mount whose next open's
 * ACCESS, after a change, does not move read_cache_jiffies, or an update
 * that its refetching read got (it came before that read's READ) kept
 * pending (VM: p50 3.56 s replayed against the client's 2.87 s).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfstrace.h"
#include "readtimes.h"
#include "replay.h"

#include "check.h"

#define MS(x) ((int64_t)(x) * 1000000ll)
#define US(x) ((int64_t)(x) * 1000ll)

static const char trace_ok[] =
	"# trace_clock: mono\n"
	"# enabled: nfs:nfs_revalidate_inode_enter\n"
	"# enabled: nfs:nfs_refresh_inode_enter\n"
	"# dev: 0 0:26\n"
	"# pid: 0 176\n"
	"# dev: 1 0:27\n"
	/* reader 0 (dev 0x1a): its check (kprobe, its pid), a GETATTR whose
	 * kprobe read jiffies 4294969569, then a READ whose post-op refresh
	 * is traced before its done (nfs_readpage_done) */
	" stalewin-reader-176     [000] d.... 9.100060: jif_open: (nfs4_opendata_alloc+0x0/0x3a0 [nfsv4]) j=4294969568\n"
	" stalewin-reader-176     [000] d.... 9.100080: jif_check: (nfs_revalidate_mapping+0x0/0x60 [nfs]) j=4294969568\n"
	" stalewin-reader-176 [000] d.... 9.100090: jif_getattr: (__nfs_revalidate_inode+0x0/0x2a0 [nfs]) j=4294969569\n"
	" stalewin-reader-176     [000] ..... 9.100100: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
	" stalewin-reader-176 [000] ...1. 9.102300: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n"
	" stalewin-reader-176 [000] ..... 9.103900: nfs_initiate_read: fileid=00:1a:2 fhandle=0x1 offset=0 count=16384\n"
	/* a kprobe of another kind: not this refresh's */
	"    kw-9  [000] d.... 9.108000: jif_read: (nfs_initiate_read+0x0/0x90 [nfs]) j=4294969570\n"
	"    kw-9  [000] ...1. 9.108100: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n"
	" kw-9  [000] ..... 9.108200: nfs_readpage_done: error=16384 fileid=00:1a:2 fhandle=0x1 offset=0 count=16384 res=16384\n"
	/* reader 1 (dev 0x1b), inside the same window: not reader 0's */
	" r-180 [000] ..... 9.101000: nfs_revalidate_inode_enter: fileid=00:1b:2 fhandle=0x1 version=1\n"
	/* a mount no reader owns */
	" r-190 [000] ..... 9.101500: nfs_revalidate_inode_enter: fileid=00:2f:2 fhandle=0x1 version=1\n";

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_nfstrace.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	size_t n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

SW_CASE(parse_and_attach)
{
	struct sw_nfstrace t;
	char err[256] = "";
	char *p = write_tmp(trace_ok);
	CHECK(p != NULL, "cannot write a temporary trace");
	CHECK(sw_nfstrace_load(p, &t, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(t.enabled == 2 && t.lines == 7 && t.jlines == 4,
	      "expected 2 enabled nfs events, 7 event lines and 4 kprobe lines, saw %d, %llu and %llu",
	      t.enabled, (unsigned long long)t.lines, (unsigned long long)t.jlines);
	CHECK(t.r[0].n == 7 && t.r[1].n == 1, "expected 7 events of reader 0 and 1 of reader 1, saw %zu and %zu",
	      t.r[0].n, t.r[1].n);
	CHECK(t.r[0].ev[0].kind == SW_NFSEV_OPEN && t.r[0].ev[1].kind == SW_NFSEV_CHECK &&
	      t.r[0].ev[1].j == 4294969568ll && t.r[0].ev[2].j == 4294969569ll &&
	      t.r[0].ev[3].j == SW_NFSEV_NOJ && t.r[0].ev[5].j == SW_NFSEV_NOJ,
	      "expected the check's and the GETATTR's jiffies, none for the refreshes");
	struct sw_read_time q = { .tb_mono_ns = US(9100050), .ta_mono_ns = US(9108300) };
	CHECK(sw_nfstrace_attach(&t, 0, &q) == 1, "expected traced times in the read");
	CHECK(q.ga_send_mono_ns == US(9100100) && q.ga_reply_mono_ns == US(9102300),
	      "expected the GETATTR at 9.100100 / 9.102300, saw %lld / %lld", (long long)q.ga_send_mono_ns,
	      (long long)q.ga_reply_mono_ns);
	CHECK(q.rd_send_mono_ns == US(9103900) && q.rd_reply_mono_ns == US(9108100),
	      "expected the READ at 9.103900 and its post-op refresh at 9.108100, saw %lld / %lld",
	      (long long)q.rd_send_mono_ns, (long long)q.rd_reply_mono_ns);
	/* a read ending before the READ's reply: no post-op times */
	struct sw_read_time q2 = { .tb_mono_ns = US(9100050), .ta_mono_ns = US(9104000) };
	sw_nfstrace_attach(&t, 0, &q2);
	CHECK(q2.rd_reply_mono_ns == 0 && q2.ga_reply_mono_ns == US(9102300),
	      "a read ending at 9.104 s: expected no READ reply and the GETATTR's, saw %lld / %lld",
	      (long long)q2.rd_reply_mono_ns, (long long)q2.ga_reply_mono_ns);
	/* on the grid (HZ=250, phase 0): 9.1001 s is grid jiffy 2275, so
	 * kernel jiffies = grid + 4294967293 (most samples: two of three
	 * here, the GETATTR's read one more); the jiffies read become the
	 * middle of their grid jiffy */
	uint64_t off = sw_nfstrace_set_grid(&t, 4000000, 0);
	CHECK(off == 1, "expected 1 sample off the common offset, saw %llu", (unsigned long long)off);
	CHECK(t.j_off == 4294969568ll - 2275, "expected the offset of two of the three samples, saw %lld",
	      (long long)t.j_off);
	struct sw_read_time q4 = { .tb_mono_ns = US(9100050), .ta_mono_ns = US(9108300) };
	sw_nfstrace_attach(&t, 0, &q4);
	CHECK(q4.op_send_mono_ns == US(9102000), "expected the OPEN in the middle of grid jiffy 2275, saw %lld",
	      (long long)q4.op_send_mono_ns);
	/* the check's kprobe read jiffy 2275, the GETATTR's after it 2276:
	 * the tick came before the kernel's comparison, which then found
	 * the cache expired, so the check takes the GETATTR's jiffy */
	CHECK(q4.chk_mono_ns == US(9106000) && q4.ga_send_mono_ns == US(9106000) &&
	      q4.ga_reply_mono_ns == US(9102000),
	      "expected the check in the middle of grid jiffy 2276 (its GETATTR's, a tick after the check's kprobe), the GETATTR of 2276, the reply (no kprobe) of its grid jiffy 2275; saw %lld %lld %lld",
	      (long long)q4.chk_mono_ns, (long long)q4.ga_send_mono_ns, (long long)q4.ga_reply_mono_ns);
	struct sw_read_time q3 = { .tb_mono_ns = US(9200000), .ta_mono_ns = US(9200100) };
	CHECK(sw_nfstrace_attach(&t, 0, &q3) == 0 && !q3.ga_send_mono_ns,
	      "a read without events: expected nothing traced");
	sw_nfstrace_free(&t);
	unlink(p);

	/* another clock, a broken line, no file */
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "# trace_clock: local\n", "expected trace_clock mono" },
		{ "# dev: 9 0:26\n", "0 <= J < 8" },
		{ "# trace_clock: mono\n x [000] .... 9.1: nfs_initiate_read: offset=0\n", "fileid=MAJ:MIN:ID" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_tmp(bad[i].text);
		err[0] = 0;
		CHECK(p && sw_nfstrace_load(p, &t, err, sizeof(err)) == -EINVAL && strstr(err, bad[i].want),
		      "bad trace %zu: expected an error naming '%s', saw '%s'", i, bad[i].want, err);
		sw_nfstrace_free(&t);
		if (p)
			unlink(p);
	}
	CHECK(sw_nfstrace_load("/nonexistent/trace.txt", &t, err, sizeof(err)) == -ENOENT,
	      "no file: expected -ENOENT");
	sw_nfstrace_free(&t);
}

/* Ticks handled late (TCG): kprobe samples just after a grid point still
 * read the old count.  Samples of reader 0 (HZ=250, phase 0, offset
 * 1000): far from their grid point, caught up; 50 and 150 µs after it,
 * behind; 300 µs after, caught up.  An event with no kprobe of its own
 * 100 µs after a grid point takes the jiffy before; 500 µs after, its
 * own; one whose GETATTR's kretprobe (jif_ga4) read its jiffies takes
 * those (500 µs after a grid point and still behind: a very late tick). */
SW_CASE(late_ticks)
{
	char text[4096];
	int o = snprintf(text, sizeof(text), "# trace_clock: mono\n# enabled: nfs:nfs_refresh_inode_enter\n# dev: 0 0:26\n# pid: 0 7\n");
	static const struct {
		int64_t t_us, j;
	} k[] = {
		{ 1002000, 1250 }, { 1006000, 1251 }, { 1010000, 1252 }, { 1014000, 1253 },
		{ 1016050, 1253 }, { 1020150, 1254 }, { 1024300, 1256 }, { 1030000, 1257 },
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		o += snprintf(text + o, sizeof(text) - o,
			      " r-7     [000] d.... %lld.%06lld: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=%lld\n",
			      (long long)(k[i].t_us / 1000000), (long long)(k[i].t_us % 1000000), (long long)k[i].j);
	o += snprintf(text + o, sizeof(text) - o, "%s",
		      " r-7     [000] ..... 1.032050: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		      " r-7     [000] ...1. 1.032100: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		      " r-7     [000] ..... 1.036450: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		      " r-7     [000] ...1. 1.036500: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		      /* a GETATTR whose kretprobe read its reply's jiffies:
		       * 500 µs after grid point 260, still on the old count */
		      " r-7     [000] ..... 1.040450: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		      " r-7     [000] d.... 1.040490: jif_ga4: (__nfs_revalidate_inode+0x8f/0x2d0 [nfs] <- nfs4_proc_getattr) j=1259\n"
		      " r-7     [000] ...1. 1.040500: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n");
	char *p = write_tmp(text), err[256] = "";
	struct sw_nfstrace t;
	CHECK(p && sw_nfstrace_load(p, &t, err, sizeof(err)) == 0, "load: %s", err);
	uint64_t off = sw_nfstrace_set_grid(&t, 4000000, 0);
	CHECK(t.j_off == 1000 && off == 3, "expected offset 1000 with 3 samples behind, saw %lld and %llu",
	      (long long)t.j_off, (unsigned long long)off);
	CHECK(t.lag_ns > US(150) && t.lag_ns <= US(300), "expected a lag between 150 and 300 µs, saw %lld ns",
	      (long long)t.lag_ns);
	struct sw_read_time q = { .tb_mono_ns = US(1032000), .ta_mono_ns = US(1032200) };
	sw_nfstrace_attach(&t, 0, &q);
	struct sw_read_time q2 = { .tb_mono_ns = US(1036000), .ta_mono_ns = US(1037000) };
	sw_nfstrace_attach(&t, 0, &q2);
	CHECK(q.ga_reply_mono_ns == US(1030000), "a reply 100 µs after grid point 258: expected jiffy 257 (1.030 s), saw %lld",
	      (long long)q.ga_reply_mono_ns);
	CHECK(q2.ga_reply_mono_ns == US(1038000), "a reply 500 µs after grid point 259: expected jiffy 259 (1.038 s), saw %lld",
	      (long long)q2.ga_reply_mono_ns);
	struct sw_read_time q3 = { .tb_mono_ns = US(1040400), .ta_mono_ns = US(1040600) };
	sw_nfstrace_attach(&t, 0, &q3);
	CHECK(q3.ga_reply_mono_ns == US(1038000),
	      "a reply 500 µs after grid point 260 whose kretprobe read 1259: expected jiffy 259 (1.038 s), saw %lld",
	      (long long)q3.ga_reply_mono_ns);
	sw_nfstrace_free(&t);
	unlink(p);
}

/* A replay of profile `line` in jiffies mode (HZ=250, grid through 0) at
 * the reads of a, key 1 at the first. */
static void jiffies_replay(struct sw_readtimes *rt, struct sw_readtimes_array *a,
			   struct sw_profile *p, struct sw_replay *r, const char *line)
{
	char err[128];
	CHECK(sw_profile_parse(line, p, err, sizeof(err)) == 0, "%s", err);
	sw_readtimes_init(rt, sw_readtimes_array_next, a, p->period_ns);
	sw_replay_init_reads(r, p, &rt->src, a->t[0], 1);
	sw_replay_set_jiffies(r, 4000000, 0);
}

/* The replay in jiffies mode (HZ=250, grid through 0), reads every 100 ms
 * from 0.3 ms, the open's READ 7 ms long; the revalidation at 3.0003 s
 * (read k1) lasts dur_us.  With traced times given for that read the
 * client's own jiffies decide; without, the estimates of replay.h. */
SW_CASE(traced_replay)
{
	static const struct {
		const char *line;
		int64_t upd_ms;     /* the server's change, <0: none */
		int64_t dur_us;     /* the read at 3.0003 s */
		int64_t ga_us[2];   /* its GETATTR send/reply (0: not traced) */
		int64_t rd_us[2];   /* its READ send/post-op reply (v3) */
		int64_t next_us;    /* expected next revalidation */
	} c[] = {
		/* v3 refetch, 8 ms: estimated READ send 3.0018 s (jiffy 750) */
		{ "a vers=3 acregmin=3 acregmax=60 period_ms=100", 2000, 8000, { 0, 0 }, { 0, 0 }, 6000300 },
		/* the same read, its READ traced at 3.0041 s: jiffy 751 */
		{ "b vers=3 acregmin=3 acregmax=60 period_ms=100", 2000, 8000, { 3000500, 3002500 },
		  { 3004100, 3008000 }, 6100300 },
		/* 12 ms: estimated 3.0058 s (751); traced 3.0035 s (750) */
		{ "c vers=3 acregmin=3 acregmax=60 period_ms=100", 2000, 12000, { 0, 0 }, { 0, 0 }, 6100300 },
		{ "d vers=3 acregmin=3 acregmax=60 period_ms=100", 2000, 12000, { 3000500, 3002500 },
		  { 3003500, 3012000 }, 6000300 },
		/* no change, 5 ms GETATTR: estimated reply at the read's end
		 * (3.0053 s, jiffy 751: 750 after the open's, doubles); its
		 * reply traced at 3.0039 s (jiffy 750) keeps 3 s */
		{ "e vers=3 acregmin=3 acregmax=60 period_ms=100", -1, 5000, { 0, 0 }, { 0, 0 }, 9000300 },
		{ "f vers=3 acregmin=3 acregmax=60 period_ms=100", -1, 5000, { 3000500, 3003900 }, { 0, 0 },
		  6000300 },
		/* v4, a change: the GETATTR's send stamps read_cache_jiffies */
		{ "g vers=4 acregmin=3 acregmax=60 period_ms=100", 2000, 8000, { 0, 0 }, { 0, 0 }, 6000300 },
		{ "h vers=4 acregmin=3 acregmax=60 period_ms=100", 2000, 8000, { 3004200, 3006000 }, { 0, 0 },
		  6100300 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		static int64_t t[200], tb[200], ta[200], gs[200], gr[200], rs[200], rr[200];
		size_t n, k1 = 30;
		for (n = 0; n < 200; n++) {
			t[n] = tb[n] = US(300) + (int64_t)n * MS(100);
			ta[n] = tb[n] + (n == 0 ? US(7000) : n == k1 ? US(c[i].dur_us) : US(100));
			gs[n] = gr[n] = rs[n] = rr[n] = 0;
		}
		/* the open's READ traced where the estimate puts it (v3:
		 * 0.5 ms in, its reply in jiffy 1) */
		rs[0] = US(800);
		rr[0] = US(7200) - US(100);
		gs[k1] = US(c[i].ga_us[0]);
		gr[k1] = US(c[i].ga_us[1]);
		rs[k1] = US(c[i].rd_us[0]);
		rr[k1] = US(c[i].rd_us[1]);
		struct sw_readtimes_array a = { .t = t, .n = n, .tb_mono = tb, .ta_mono = ta,
						.ga_send = gs, .ga_reply = gr, .rd_send = rs, .rd_reply = rr };
		struct sw_readtimes rt;
		struct sw_profile p;
		struct sw_replay r;
		jiffies_replay(&rt, &a, &p, &r, c[i].line);
		if (c[i].upd_ms >= 0)
			sw_replay_update(&r, MS(c[i].upd_ms), 2);
		int64_t first = sw_replay_next_reval(&r);
		CHECK(first == tb[k1], "%s: expected a revalidation at 3.0003 s, saw %.4f s", p.name, first / 1e9);
		sw_replay_advance(&r, first + 1);
		int64_t nx = sw_replay_next_reval(&r);
		CHECK(nx == US(c[i].next_us), "%s: expected the next revalidation at %.4f s, saw %.4f s", p.name,
		      c[i].next_us / 1e6, nx / 1e9);
		int want = (c[i].ga_us[0] || c[i].rd_us[0]) + (p.vers == 3);
		CHECK(r.traced == (uint64_t)want, "%s: expected %d revalidations at traced times, saw %llu",
		      p.name, want, (unsigned long long)r.traced);
		sw_readtimes_free(&rt);
	}
}

/* A v4 kept-open reader (acregmin 3 s), HZ=250, grid through 0, reads
 * every 100 ms from t0_us, each 0.1 ms long (the first first_us): its
 * first revalidation, with chk/op traced where the arrays are nonzero. */
static int64_t first_reval_v4(int64_t t0_us, int64_t first_us, const int64_t *chk,
			      const int64_t *op, int64_t *tb)
{
	static int64_t t[100], ta[100];
	for (size_t n = 0; n < 100; n++) {
		t[n] = tb[n] = US(t0_us) + (int64_t)n * MS(100);
		ta[n] = tb[n] + (n ? US(100) : US(first_us));
	}
	struct sw_readtimes_array a = { .t = t, .n = 100, .tb_mono = tb, .ta_mono = ta, .chk = chk,
					.op_send = op };
	struct sw_readtimes rt;
	struct sw_profile p;
	struct sw_replay r;
	char err[128];
	CHECK(sw_profile_parse("k vers=4 acregmin=3 acregmax=60 period_ms=100", &p, err, sizeof(err)) == 0,
	      "%s", err);
	sw_readtimes_init(&rt, sw_readtimes_array_next, &a, p.period_ns);
	sw_replay_init_reads(&r, &p, &rt.src, t[0], 1);
	sw_replay_set_jiffies(&r, 4000000, 0);
	int64_t first = sw_replay_next_reval(&r);
	sw_readtimes_free(&rt);
	return first;
}

/* The attribute check's own jiffy (kprobe jif_check): reads from 3.8 ms,
 * 0.2 ms before a tick; the OPEN stamps jiffy 1, so the cache times out
 * at jiffy 751 (3.004 s).  The read at 3.0038 s began in jiffy 750 but
 * its check ran after the tick (traced: 751): it revalidates, not the one
 * at 3.1038 s (nfs_attribute_timeout compares the jiffies of the check,
 * not of the read's start).
 * A v4 kept-open reader's open: read_cache_jiffies is its OPEN's fattr
 * set-up (nfs4_opendata_alloc -> nfs_fhget).  First read at 0.3 ms (9 ms
 * long): the estimate (OPEN_NS in) puts it in jiffy 0, so the read at
 * 3.0003 s (jiffy 750) revalidates; an OPEN traced in jiffy 1 (a slow
 * open) moves that to the read at 3.1003 s. */
/* Load text as a trace, reader 0's grid at HZ=250 through 0, and fill q
 * (its tb/ta set) from it. */
static void attach_one(const char *text, struct sw_read_time *q)
{
	char *p = write_tmp(text), err[256] = "";
	struct sw_nfstrace t;
	CHECK(p && sw_nfstrace_load(p, &t, err, sizeof(err)) == 0, "load: %s", err);
	sw_nfstrace_set_grid(&t, 4000000, 0);
	sw_nfstrace_attach(&t, 0, q);
	sw_nfstrace_free(&t);
	if (p)
		unlink(p);
}

/* nfs_update_inode's own jiffy (kprobe jif_update, after the refresh's
 * tracepoint): it is the refresh's, not the GETATTR kretprobe's before
 * it (a tick in between moves attrtimeo's doubling jiffy); one in
 * another task changes nothing. */
SW_CASE(update_jiffy)
{
	for (int upd = 0; upd < 3; upd++) {
		char text[2048];
		int o = snprintf(text, sizeof(text), "# trace_clock: mono\n# enabled: nfs:nfs_refresh_inode_enter\n# dev: 0 0:26\n# pid: 0 7\n");
		for (int i = 0; i < 4; i++)
			o += snprintf(text + o, sizeof(text) - o,
				      " r-7     [000] d.... 1.%06d: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=%d\n",
				      2000 + 4000 * i, 1250 + i);
		o += snprintf(text + o, sizeof(text) - o, "%s%s",
			      " r-7     [000] ..... 1.050450: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
			      " r-7     [000] d.... 1.050490: jif_ga4: (__nfs_revalidate_inode+0x8f/0x2d0 [nfs] <- nfs4_proc_getattr) j=1262\n"
			      " r-7     [000] ...1. 1.050500: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n",
			      upd == 1 ? " r-7     [000] ...1. 1.050520: jif_update: (nfs_update_inode+0x0/0x8f0 [nfs]) j=1263\n"
			      : upd == 2 ? " q-8     [000] ...1. 1.050520: jif_update: (nfs_update_inode+0x0/0x8f0 [nfs]) j=1263\n" : "");
		struct sw_read_time q = { .tb_mono_ns = US(1050400), .ta_mono_ns = US(1050600) };
		attach_one(text, &q);
		int64_t want = upd == 1 ? US(1054000) : US(1050000);
		CHECK(q.ga_reply_mono_ns == want, "%s: expected the reply in jiffy %d (%.3f s), saw %lld ns",
		      upd == 1 ? "nfs_update_inode read 1263" : upd == 2 ? "another task's nfs_update_inode" : "no nfs_update_inode",
		      upd == 1 ? 263 : 262, want / 1e9, (long long)q.ga_reply_mono_ns);
	}
}

SW_CASE(check_and_open_jiffy)
{
	static int64_t tb[100], chk[100], op[100];
	for (int traced = 0; traced < 2; traced++) {
		chk[30] = traced ? US(751 * 4000 + 2000) : 0;
		int64_t first = first_reval_v4(3800, 100, chk, NULL, tb), want = traced ? tb[30] : tb[31];
		CHECK(first == want, "check %s: expected the revalidation at %.4f s, saw %.4f s",
		      traced ? "traced in jiffy 751" : "not traced", want / 1e9, first / 1e9);
		op[0] = traced ? US(4000 + 2000) : 0;
		first = first_reval_v4(300, 9000, NULL, op, tb);
		want = traced ? tb[31] : tb[30];
		CHECK(first == want, "open %s: expected the first revalidation at %.4f s, saw %.4f s",
		      traced ? "traced in jiffy 1" : "estimated", want / 1e9, first / 1e9);
	}
}

/* The GETATTR's (read 0) or the READ's (read 1) send, on the grid, in
 * reader 0's read from 1.0118 s to 1.016 s of the trace text */
static int64_t send_in(const char *text, int read)
{
	struct sw_read_time q = { .tb_mono_ns = US(1011800), .ta_mono_ns = US(1016000) };
	attach_one(text, &q);
	return read ? q.rd_send_mono_ns : q.ga_send_mono_ns;
}

/* Reader 0 (pid 7, dev 0:26) checks its attributes in jiffies 1250,
 * 1251 and 1252 (grid offset 1000), and revalidates in the last: the
 * GETATTR's send, up to its tracepoint */
#define GA_HEAD \
	"# trace_clock: mono\n# enabled: nfs:nfs_revalidate_inode_enter\n# dev: 0 0:26\n# pid: 0 7\n" \
	" r-7     [000] d.... 1.002000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1250\n" \
	" r-7     [000] d.... 1.006000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1251\n" \
	" r-7     [000] d.... 1.011900: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1252\n" \
	" r-7     [000] d.... 1.011950: jif_getattr: (__nfs_revalidate_inode+0x0/0x2d0 [nfs]) j=1252\n" \
	" r-7     [000] ..... 1.011970: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"

/* A row of the send-jiffy cases: lines put into the case's trace, its
 * lines after the GETATTR's reply (NULL: none), and the send's expected
 * jiffy - 1000 */
struct send_row {
	const char *name, *lines, *after;
	int jiffy;
};

/* Each row's trace (fmt: its lines, then its after lines), and its
 * GETATTR's (read 0) or READ's (read 1) send checked against its jiffy on
 * the grid (offset 1000: jiffy 252 is 1.010 s) */
static void check_sends(const struct send_row *rows, size_t n, const char *fmt, int read)
{
	for (size_t k = 0; k < n; k++) {
		char text[2048];
		snprintf(text, sizeof(text), fmt, rows[k].lines, rows[k].after ? rows[k].after : "");
		int64_t want = US(1010000 + 4000 * (rows[k].jiffy - 252)), saw = send_in(text, read);
		CHECK(saw == want, "%s: expected the %s's send in jiffy %d (%lld ns), saw %lld",
		      rows[k].name, read ? "READ" : "GETATTR", rows[k].jiffy, (long long)want,
		      (long long)saw);
	}
}

/* A GETATTR whose __nfs_revalidate_inode entry (jif_getattr) read
 * jiffy 252 and whose fattr was set up after the tick to 253: the send
 * is jiffy 253 (1.014 s on the grid, offset 1000), not 252 (1.010 s).
 * The fattr's jiffy comes from nfs4_proc_getattr's entry (jif_gai4, 60
 * µs later) or, exactly, from nfs_fattr_init (jif_fattr): the last one
 * of the task before the reply's refresh wins (the allocation's init
 * comes first, a tick can fall after the procedure's entry).  Another
 * task's init, or the READ's init after the refresh, change nothing. */
SW_CASE(fattr_init_jiffy)
{
	static const struct send_row rows[] = {
		{ "no fattr kprobe", "", NULL, 252 },
		{ "nfs4_proc_getattr's entry in 253",
		  " r-7     [000] d.... 1.012030: jif_gai4: (nfs4_proc_getattr+0x0/0x120 [nfsv4]) j=1253\n", NULL, 253 },
		{ "nfs_fattr_init in 253 after the entry in 252",
		  " r-7     [000] d.... 1.011990: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1252\n"
		  " r-7     [000] d.... 1.012030: jif_gai4: (nfs4_proc_getattr+0x0/0x120 [nfsv4]) j=1252\n"
		  " r-7     [000] d.... 1.012060: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1253\n", NULL, 253 },
		{ "another task's nfs_fattr_init",
		  " kw-9    [001] d.... 1.012060: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1253\n", NULL, 252 },
		{ "a READ's nfs_fattr_init after the reply", "",
		  " r-7     [000] d.... 1.014030: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1253\n", 252 },
	};
	check_sends(rows, sizeof(rows) / sizeof(rows[0]),
		    GA_HEAD
		    "%s"
		    " r-7     [000] d.... 1.014000: jif_ga4: (__nfs_revalidate_inode+0xae/0x2d0 [nfs] <- nfs4_proc_getattr) j=1253\n"
		    " r-7     [000] ...1. 1.014010: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		    "%s"
		    " r-7     [000] d.... 1.018000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1254\n", 0);
}

/* A v3 READ's fattr is set up (nfs_pgio_rpcsetup -> nfs_fattr_init,
 * kprobe jif_fattr) right before nfs_initiate_read (jif_read); its
 * time_start, which the READ's post-op attributes make
 * read_cache_jiffies, is the init's jiffy.  A tick between the two:
 * the send is jiffy 252 (1.010 s on the grid, offset 1000), not 253
 * (VM, validate of 7 Dec, v3 acregmin=1,acregmax=10 kept-open: init in
 * ..532, nfs_initiate_read in ..533, the client revalidated exactly
 * 250 jiffies after ..532, the replay a read later and apart for the
 * rest of the run).  No init traced, or another task's: jif_read's. */
SW_CASE(read_fattr_jiffy)
{
	static const struct send_row rows[] = {
		{ "init and send in one jiffy",
		  " r-7     [000] d.... 1.013500: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1252\n"
		  " r-7     [000] d.... 1.013600: jif_read: (nfs_initiate_read+0x0/0x90 [nfs]) j=1252\n", NULL, 252 },
		{ "a tick between the init and the send",
		  " r-7     [000] d.... 1.013900: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1252\n"
		  " r-7     [000] d.... 1.014100: jif_read: (nfs_initiate_read+0x0/0x90 [nfs]) j=1253\n", NULL, 252 },
		{ "no init traced",
		  " r-7     [000] d.... 1.014100: jif_read: (nfs_initiate_read+0x0/0x90 [nfs]) j=1253\n", NULL, 253 },
		{ "another task's init",
		  " kw-9    [000] d.... 1.013900: jif_fattr: (nfs_fattr_init+0x0/0x40 [nfs]) j=1252\n"
		  " r-7     [000] d.... 1.014100: jif_read: (nfs_initiate_read+0x0/0x90 [nfs]) j=1253\n", NULL, 253 },
	};
	check_sends(rows, sizeof(rows) / sizeof(rows[0]),
		    GA_HEAD
		    " r-7     [000] d.... 1.012500: jif_ga3: (__nfs_revalidate_inode+0xae/0x2d0 [nfs] <- nfs3_proc_getattr) j=1252\n"
		    " r-7     [000] ...1. 1.012510: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n"
		    " r-7     [000] d.... 1.012520: jif_update: (nfs_update_inode+0x0/0x900 [nfs]) j=1252\n"
		    "%s"
		    " r-7     [000] ..... 1.014110: nfs_initiate_read: fileid=00:1a:2 fhandle=0x1 offset=0 count=16384\n"
		    "%s"
		    " r-7     [000] d.... 1.018000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1254\n", 1);
}

/* A v4 kept-open reader's open on a mount that had not seen the file:
 * nfs_fhget sets the new inode up with attrtimeo_timestamp = its own
 * jiffies (kprobe jif_fhget, by the reader's pid), which the first
 * no-change GETATTR doubles attrtimeo against.  Traced: the OPEN's fattr
 * in jiffy 250, the inode set up in 251 (1.006 s on the grid); a refresh
 * of the file after it (the inode existed) or no jif_fhget: not traced.
 * Then the replay (acregmin 1 s, no change on the server): the GETATTR at
 * 1.0003 s (jiffy 250) is 250 jiffies after the estimated set-up (jiffy
 * 0) and doubles attrtimeo, next at 3.0003 s; 249 after the traced one
 * (jiffy 1) it does not, next at 2.0003 s (VM, v4.2 acregmin=1,acregmax=10
 * kept-open: the kernel revalidated 1 s later, the replay 2 s, and it
 * stayed a revalidation apart for the run, 16 unresolved against 0). */
SW_CASE(open_inode_jiffy)
{
	static const struct {
		const char *name, *lines;
		int64_t want_us;
	} rows[] = {
		{ "nfs_fhget in jiffy 251",
		  " r-7     [000] d.... 1.004500: jif_fhget: (nfs_fhget+0x0/0x6b0 [nfs]) j=1251\n", 1006000 },
		{ "nfs_fhget, then a refresh of the file",
		  " r-7     [000] d.... 1.004500: jif_fhget: (nfs_fhget+0x0/0x6b0 [nfs]) j=1251\n"
		  " r-7     [000] ...1. 1.004700: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n", 0 },
		{ "no jif_fhget", "", 0 },
		{ "another task's nfs_fhget",
		  " kw-9    [000] d.... 1.004500: jif_fhget: (nfs_fhget+0x0/0x6b0 [nfs]) j=1251\n", 0 },
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		char text[2048];
		snprintf(text, sizeof(text),
			 "# trace_clock: mono\n# enabled: nfs:nfs_refresh_inode_enter\n# dev: 0 0:26\n# pid: 0 7\n"
			 " r-7     [000] d.... 1.002000: jif_open: (nfs4_opendata_alloc+0x0/0x450 [nfsv4]) j=1250\n"
			 "%s"
			 " r-7     [000] d.... 1.005000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1251\n",
			 rows[k].lines);
		struct sw_read_time q = { .tb_mono_ns = US(1001000), .ta_mono_ns = US(1006000) };
		attach_one(text, &q);
		CHECK(q.op_send_mono_ns == US(1002000) && q.op_reply_mono_ns == US(rows[k].want_us),
		      "%s: expected the OPEN at 1.002000 s and the inode set up at %lld ns, saw %lld and %lld",
		      rows[k].name, (long long)US(rows[k].want_us), (long long)q.op_send_mono_ns,
		      (long long)q.op_reply_mono_ns);
	}
	static int64_t t[100], tb[100], ta[100], op[100], opr[100];
	for (int traced = 0; traced < 2; traced++) {
		for (size_t n = 0; n < 100; n++) {
			t[n] = tb[n] = US(300) + (int64_t)n * MS(100);
			ta[n] = tb[n] + (n ? US(100) : US(9000));
		}
		op[0] = US(2000);
		opr[0] = traced ? US(6000) : 0;
		struct sw_readtimes_array a = { .t = t, .n = 100, .tb_mono = tb, .ta_mono = ta,
						.op_send = op, .op_reply = opr };
		struct sw_readtimes rt;
		struct sw_profile p;
		struct sw_replay r;
		jiffies_replay(&rt, &a, &p, &r, "k vers=4 acregmin=1 acregmax=10 period_ms=100");
		int64_t first = sw_replay_next_reval(&r);
		CHECK(first == tb[10], "inode set up %s: expected the first revalidation at 1.0003 s, saw %.4f s",
		      traced ? "in jiffy 1" : "estimated", first / 1e9);
		sw_replay_advance(&r, first + 1);
		int64_t nx = sw_replay_next_reval(&r), want = traced ? tb[20] : tb[30];
		CHECK(nx == want, "inode set up %s: expected the second revalidation at %.4f s, saw %.4f s",
		      traced ? "in jiffy 1 (no doubling)" : "estimated in jiffy 0 (doubled)", want / 1e9, nx / 1e9);
		sw_readtimes_free(&rt);
	}
}

/* A v3 reader that opens the file for every read, on a nocto mount.
 * Attach: a GETATTR before the read's check is the open's (its permission
 * check revalidated); a refresh in the open with no GETATTR before it is
 * that open's ACCESS (its fattr's set-up is inlined, not probed).
 * Replay (acregmin 3 s, reads every 100 ms from 0.3 ms, a change at 2 s
 * found at 3.0003 s, the refetch's READ sent in jiffy 750):
 *  - found by the read's GETATTR (after the check): the change zapped the
 *    access cache, the open at 3.1003 s sends ACCESS, read_cache_jiffies
 *    becomes jiffy 775, and the next GETATTR is at 6.1003 s, not 6.0003 s;
 *  - found by the open's GETATTR: that open sent the ACCESS, the next is
 *    at 6.0003 s; so for a kept-open reader;
 *  - an update at 3.001 s, after the read began and before its READ went
 *    out (jiffy 751): the client got it there, nothing is pending and the
 *    store then is served by that read; one at 3.005 s, after the READ's
 *    jiffy began, is pending (VM, v3 nocto reopening reader: p50 3.56 s
 *    replayed against the client's 2.87 s, 3 of 12 revalidations traced;
 *    with both rules 2.85 s, 11 of 11). */
SW_CASE(access_at_open)
{
	static const struct {
		const char *name, *lines;
		int in_open;
		int64_t ac_us;
	} rows[] = {
		{ "GETATTR and ACCESS in the open",
		  " r-7     [000] d.... 1.000500: jif_getattr: (__nfs_revalidate_inode+0x0/0x2d0 [nfs]) j=1250\n"
		  " r-7     [000] ..... 1.000520: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		  " r-7     [000] ...1. 1.002000: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		  " r-7     [000] ...1. 1.003000: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n"
		  " r-7     [000] d.... 1.003500: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1250\n",
		  1, 0 },
		{ "GETATTR after the check",
		  " r-7     [000] d.... 1.000500: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1250\n"
		  " r-7     [000] ..... 1.000520: nfs_revalidate_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		  " r-7     [000] ...1. 1.002000: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n",
		  0, 0 },
		{ "ACCESS in the open, no GETATTR",
		  " r-7     [000] ...1. 1.004500: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n"
		  " r-7     [000] d.... 1.004700: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1251\n",
		  0, 1006000 },
		{ "a refresh after the check",
		  " r-7     [000] d.... 1.000500: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1250\n"
		  " r-7     [000] ...1. 1.004500: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n",
		  0, 0 },
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		char text[2048];
		snprintf(text, sizeof(text),
			 "# trace_clock: mono\n# enabled: nfs:nfs_refresh_inode_enter\n# dev: 0 0:26\n# pid: 0 7\n%s",
			 rows[k].lines);
		struct sw_read_time q = { .tb_mono_ns = US(1000300), .ta_mono_ns = US(1009000) };
		attach_one(text, &q);
		CHECK(q.ga_in_open == rows[k].in_open && q.ac_reply_mono_ns == US(rows[k].ac_us),
		      "%s: expected the GETATTR %s and an ACCESS reply at %lld ns, saw %s and %lld",
		      rows[k].name, rows[k].in_open ? "in the open" : "not in the open",
		      (long long)US(rows[k].ac_us), q.ga_in_open ? "in the open" : "not",
		      (long long)q.ac_reply_mono_ns);
	}
	static const struct {
		const char *name, *line;
		int in_open;
		int64_t upd2_us;    /* a second update (0: none) */
		int64_t next_us;    /* expected next revalidation */
		int pending;        /* expected: the second update pending */
	} c[] = {
		{ "read's GETATTR, reopening", "n vers=3 acregmin=3 acregmax=60 reopen period_ms=100", 0, 0,
		  6100300, 0 },
		{ "open's GETATTR, reopening", "n vers=3 acregmin=3 acregmax=60 reopen period_ms=100", 1, 0,
		  6000300, 0 },
		{ "read's GETATTR, kept open", "k vers=3 acregmin=3 acregmax=60 period_ms=100", 0, 0, 6000300, 0 },
		{ "update before the READ", "n vers=3 acregmin=3 acregmax=60 reopen period_ms=100", 1, 3001000,
		  6100300, 0 },
		{ "update after the READ's jiffy began", "n vers=3 acregmin=3 acregmax=60 reopen period_ms=100", 1,
		  3005000, 6100300, 1 },
	};
	static int64_t t[100], tb[100], ta[100], gs[100], gr[100], rs[100], rr[100];
	static int gopen[100];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (size_t n = 0; n < 100; n++) {
			t[n] = tb[n] = US(300) + (int64_t)n * MS(100);
			ta[n] = tb[n] + (n == 0 ? US(9000) : n == 30 ? US(8000) : US(100));
			gs[n] = gr[n] = rs[n] = rr[n] = 0;
			gopen[n] = 0;
		}
		/* the revalidation at 3.0003 s: GETATTR in jiffy 750, its
		 * READ sent in 750 (751 with a second update), reply in 751 */
		gs[30] = US(3002000);
		gr[30] = US(3002000);
		rs[30] = c[i].upd2_us ? US(3006000) : US(3002000);
		rr[30] = US(3006000);
		gopen[30] = c[i].in_open;
		struct sw_readtimes_array a = { .t = t, .n = 100, .tb_mono = tb, .ta_mono = ta, .ga_send = gs,
						.ga_reply = gr, .rd_send = rs, .rd_reply = rr,
						.ga_in_open = gopen };
		struct sw_readtimes rt;
		struct sw_profile p;
		struct sw_replay r;
		jiffies_replay(&rt, &a, &p, &r, c[i].line);
		sw_replay_update(&r, MS(2000), 2);
		CHECK(sw_replay_pending_fill(&r) == tb[30], "%s: expected the change found at 3.0003 s, saw %.4f s",
		      c[i].name, sw_replay_pending_fill(&r) / 1e9);
		if (c[i].upd2_us) {
			sw_replay_update(&r, US(c[i].upd2_us), 3);
			int64_t f = sw_replay_pending_fill(&r);
			CHECK(c[i].pending ? f == US(c[i].next_us) : f == -1,
			      "%s: expected the update at %.4f s %s, saw a refetch at %.4f s", c[i].name,
			      c[i].upd2_us / 1e6, c[i].pending ? "found at the next revalidation" : "got by the read at 3.0003 s",
			      f / 1e9);
			CHECK(sw_replay_served_early(&r, US(c[i].upd2_us)) == !c[i].pending,
			      "%s: expected a store at %.4f s %sserved by the read at 3.0003 s", c[i].name,
			      c[i].upd2_us / 1e6, c[i].pending ? "not " : "");
		} else {
			sw_replay_advance(&r, tb[30] + 1);
		}
		sw_replay_advance(&r, tb[40]);
		int64_t nx = sw_replay_next_reval(&r);
		CHECK(nx == US(c[i].next_us), "%s: expected the next revalidation at %.4f s, saw %.4f s", c[i].name,
		      c[i].next_us / 1e6, nx / 1e9);
		sw_readtimes_free(&rt);
	}
}

SW_MAIN()
