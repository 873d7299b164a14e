/* SPDX-License-Identifier: MIT */
/*
 * Description: where the client trace ties a kprobe's jiffies to the RPC
 * they belong to, for the two cases a fresh 2-core machine showed wrong
 * (validate_vm of 6 Dec, tests/validate/data):
 *  - a v4 OPEN's fattr is set up by nfs_fattr_init (kprobe jif_fattr)
 *    after nfs4_opendata_alloc's entry (jif_open); a tick between the two
 *    makes the fattr's jiffy, not the entry's, the new inode's
 *    read_cache_jiffies (nfs_fhget).  Broken, the replay of a v4.2
 *    kept-open reader revalidated a read before the kernel for the whole
 *    run (0 of 11 revalidations traced, 22 stores unresolved against 0);
 *  - a kprobe and its tracepoint in one task, the task preempted between
 *    them (0.2-3.2 ms on TCG): the tracepoint still takes the kprobe's
 *    jiffies.  Broken, a v3 READ's send took the grid's next jiffy and
 *    the replay revalidated a read late every cycle (p50 2.72 s against
 *    the client's 3.32 s);
 *  - a close-to-open v4 reader's revalidations are its OPENs (the
 *    compound carries the GETATTR, its reply refreshes the inode): traced
 *    so, and counted (broken: "0 of 375 revalidations traced").
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nfstrace.h"
#include "readtimes.h"
#include "replay.h"

#include "check.h"

#define MS(x) ((int64_t)(x) * 1000000ll)
#define US(x) ((int64_t)(x) * 1000ll)

#define HEAD "# trace_clock: mono\n# enabled: nfs:nfs_refresh_inode_enter\n# dev: 0 0:26\n# pid: 0 7\n"
/* three checks tie kernel jiffies to the grid: jiffy N = grid N - 1000 */
#define CHECKS                                                                           \
	" r-7     [000] d.... 1.002000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1250\n" \
	" r-7     [000] d.... 1.010000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1252\n" \
	" r-7     [000] d.... 1.014000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1253\n"

/* Load text as a trace, reader 0's grid at HZ=250 through 0, and fill q
 * (its tb/ta set) from it. */
static void attach_text(const char *text, struct sw_read_time *q)
{
	char path[64] = "/tmp/test_nfstrace_open.XXXXXX", err[256] = "";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "cannot write %s", path);
	if (fd >= 0)
		close(fd);
	struct sw_nfstrace t;
	CHECK(sw_nfstrace_load(path, &t, err, sizeof(err)) == 0, "load: %s", err);
	sw_nfstrace_set_grid(&t, 4000000, 0);
	sw_nfstrace_attach(&t, 0, q);
	sw_nfstrace_free(&t);
	unlink(path);
}

/* The OPEN's entry in jiffy 250 (1.0039 s), a tick at 1.004 s: its fattr
 * set up in 251 when jif_fattr says so (the middle of grid jiffy 251 is
 * 1.006 s), in 250 otherwise. */
SW_CASE(open_fattr_jiffy)
{
	static const struct {
		const char *name, *lines; /* between the OPEN's entry and nfs_fhget */
		int64_t want_us;
	} rows[] = {
		{ "nfs_fattr_init after the tick",
		  " r-7     [000] .N... 1.004100: jif_fattr: (nfs_fattr_init+0x0/0x60 [nfs]) j=1251\n", 1006000 },
		{ "nfs_fattr_init before the tick",
		  " r-7     [000] ..... 1.003950: jif_fattr: (nfs_fattr_init+0x0/0x60 [nfs]) j=1250\n", 1002000 },
		{ "another task's nfs_fattr_init",
		  " kw-9    [000] ..... 1.004100: jif_fattr: (nfs_fattr_init+0x0/0x60 [nfs]) j=1251\n", 1002000 },
		{ "no nfs_fattr_init", "", 1002000 },
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		char text[2048];
		snprintf(text, sizeof(text), HEAD CHECKS
			 " r-7     [000] ..... 1.003900: jif_open: (nfs4_opendata_alloc+0x0/0x450 [nfsv4]) j=1250\n"
			 "%s"
			 " r-7     [000] ..... 1.004500: jif_fhget: (nfs_fhget+0x0/0x6f0 [nfs]) j=1251\n"
			 /* the READ's fattr, after the inode was set up: not the OPEN's */
			 " r-7     [000] ..... 1.008100: jif_fattr: (nfs_fattr_init+0x0/0x60 [nfs]) j=1252\n"
			 " r-7     [000] ..... 1.009000: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1252\n",
			 rows[k].lines);
		struct sw_read_time q = { .tb_mono_ns = US(1003800), .ta_mono_ns = US(1009500) };
		attach_text(text, &q);
		CHECK(q.op_send_mono_ns == US(rows[k].want_us) && q.op_reply_mono_ns == US(1006000),
		      "%s: expected the OPEN's fattr at %.6f s and the inode set up at 1.006000 s, saw %.6f and %.6f",
		      rows[k].name, US(rows[k].want_us) / 1e9, q.op_send_mono_ns / 1e9, q.op_reply_mono_ns / 1e9);
	}
}

/* A v3 READ: jif_read read jiffy 250 at 1.0039 s, the task was preempted
 * and its nfs_initiate_read came after the tick (gap_us later): the READ's
 * send is jiffy 250 (1.002 s) whatever the gap, unless another READ
 * kprobe of the task came between (then that one's). */
SW_CASE(preempted_pair)
{
	static const struct {
		const char *name;
		int gap_us;
		const char *between;
		int64_t want_us;
	} rows[] = {
		{ "tracepoint 40 us after its kprobe", 40, "", 1002000 },
		{ "tracepoint 400 us after its kprobe (preempted)", 400, "", 1002000 },
		{ "tracepoint 3.2 ms after its kprobe (preempted)", 3200, "", 1002000 },
		{ "another READ's kprobe between", 400,
		  " r-7     [000] ..... 1.004200: jif_read: (nfs_initiate_read+0x0/0x70 [nfs]) j=1251\n", 1006000 },
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		char text[2048];
		snprintf(text, sizeof(text), HEAD CHECKS
			 " r-7     [000] ..... 1.003900: jif_read: (nfs_initiate_read+0x0/0x70 [nfs]) j=1250\n"
			 "%s"
			 " r-7     [000] .N... 1.%06d: nfs_initiate_read: fileid=00:1a:2 fhandle=0x1 offset=0 count=16384\n"
			 " kw-9    [000] ...1. 1.008000: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=2\n"
			 " kw-9    [000] ..... 1.008100: nfs_readpage_done: error=16384 fileid=00:1a:2 fhandle=0x1 offset=0 count=16384 res=16384\n",
			 rows[k].between, 3900 + rows[k].gap_us);
		struct sw_read_time q = { .tb_mono_ns = US(1003000), .ta_mono_ns = US(1008500) };
		attach_text(text, &q);
		CHECK(q.rd_send_mono_ns == US(rows[k].want_us),
		      "%s: expected the READ's send at %.6f s, saw %.6f s", rows[k].name,
		      US(rows[k].want_us) / 1e9, q.rd_send_mono_ns / 1e9);
	}
}

/* A close-to-open v4 reader: its open's OPEN (jiffy 250, fattr 250), the
 * reply refreshing the existing inode in 251 (jif_update), then the
 * read's check.  Attached as the OPEN's send and refresh; replayed, every
 * read's revalidation is traced when every read carries them, none when
 * none does. */
SW_CASE(cto_open_traced)
{
	struct sw_read_time q = { .tb_mono_ns = US(1003800), .ta_mono_ns = US(1009500) };
	attach_text(HEAD CHECKS
		    " r-7     [000] ..... 1.003900: jif_open: (nfs4_opendata_alloc+0x0/0x450 [nfsv4]) j=1250\n"
		    " r-7     [000] ..... 1.003950: jif_fattr: (nfs_fattr_init+0x0/0x60 [nfs]) j=1250\n"
		    " r-7     [000] ..... 1.004300: jif_refresh: (nfs_refresh_inode+0x0/0x50 [nfs]) j=1251\n"
		    " r-7     [000] ...1. 1.004320: nfs_refresh_inode_enter: fileid=00:1a:2 fhandle=0x1 version=1\n"
		    " r-7     [000] ...1. 1.004330: jif_update: (nfs_update_inode+0x0/0xaf0 [nfs]) j=1251\n"
		    " r-7     [000] ..... 1.004500: jif_check: (nfs_revalidate_mapping+0x0/0x70 [nfs]) j=1251\n",
		    &q);
	CHECK(q.op_send_mono_ns == US(1002000) && q.op_refresh_mono_ns == US(1006000) && q.op_reply_mono_ns == 0,
	      "expected the OPEN at 1.002000 s refreshing the inode at 1.006000 s (no new inode), saw %.6f, %.6f, %.6f",
	      q.op_send_mono_ns / 1e9, q.op_refresh_mono_ns / 1e9, q.op_reply_mono_ns / 1e9);
	static int64_t t[100], tb[100], ta[100], op[100], opf[100];
	for (int traced = 0; traced < 2; traced++) {
		for (size_t n = 0; n < 100; n++) {
			t[n] = tb[n] = US(300) + (int64_t)n * MS(100);
			ta[n] = tb[n] + US(3000);
			op[n] = traced ? tb[n] + US(200) : 0;
			opf[n] = traced ? tb[n] + US(2500) : 0;
		}
		struct sw_readtimes_array a = { .t = t, .n = 100, .tb_mono = tb, .ta_mono = ta,
						.op_send = op, .op_refresh = opf };
		struct sw_readtimes rt;
		struct sw_profile p;
		struct sw_replay r;
		char err[128];
		CHECK(sw_profile_parse("c vers=4 acregmin=3 acregmax=60 cto period_ms=100", &p, err, sizeof(err)) == 0,
		      "%s", err);
		sw_readtimes_init(&rt, sw_readtimes_array_next, &a, p.period_ns);
		sw_replay_init_reads(&r, &p, &rt.src, t[0], 1);
		sw_replay_set_jiffies(&r, 4000000, 0);
		sw_replay_advance(&r, t[99] + 1);
		/* every read revalidates, the first (the open) too */
		uint64_t want = traced ? 100 : 0;
		CHECK(r.revals == 100 && r.traced == want,
		      "OPENs %s: expected 100 revalidations, %llu of them traced, saw %llu and %llu",
		      traced ? "traced" : "not traced", (unsigned long long)want, (unsigned long long)r.revals,
		      (unsigned long long)r.traced);
		sw_readtimes_free(&rt);
	}
}

SW_MAIN()
