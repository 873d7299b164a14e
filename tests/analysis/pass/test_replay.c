/* SPDX-License-Identifier: MIT */
/*
 * Description: the client replay against hand-computed Linux NFS client
 * behaviour.  A broken replay shows as a wrong adaptive timeout sequence
 * (expected revalidations after 3, 6, 12, 24, 48, 60, 60 s of no change),
 * a change detected at the wrong revalidation, a timeout not reset to
 * acregmin after a change, noac/actimeo/cto not revalidating as their
 * options say, NFSv3 invalidating on an mtime-only or equal-ctime update,
 * or mount options parsed into the wrong profile.
 */
#include <stdio.h>
#include <string.h>

#include "replay.h"

#include "check.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define MS(x) ((int64_t)(x) * 1000000ll)

static const struct sw_profile *prof(const char *name)
{
	for (int i = 0; i < sw_n_default_profiles; i++)
		if (!strcmp(sw_default_profiles[i].name, name))
			return &sw_default_profiles[i];
	fprintf(stderr, "FAIL: no built-in profile %s\n", name);
	failures++;
	return &sw_default_profiles[0];
}

/* revalidation times of a profile with no change, hand-computed */
static void adaptive(void)
{
	struct sw_profile p;
	char err[256];
	CHECK(sw_profile_parse("t vers=3 acregmin=3 acregmax=60 period_ms=1", &p, err, sizeof(err)) == 0, "%s", err);
	struct sw_replay r;
	sw_replay_init(&r, &p, 0, 7);
	/* +3 +6 +12 +24 +48 +60 +60, each at the first read strictly after
	 * the timeout (nfs_attribute_timeout: read_cache_jiffies is the
	 * GETATTR's send time, after its read started): +1 ms reads */
	const int64_t want[] = { 3, 9, 21, 45, 93, 153, 213, 273 };
	for (int i = 0; i < 8; i++) {
		int64_t nx = sw_replay_next_reval(&r);
		CHECK(nx == S(want[i]) + MS(i + 1), "reval %d: expected %llds + %d ms, saw %.3fs", i,
		      (long long)want[i], i + 1, nx / 1e9);
		sw_replay_advance(&r, nx + 1);
	}
	/* a change at 300 s: detected at the next revalidation (333.009 s),
	 * data refetched then, timeout back to 3 s */
	sw_replay_init(&r, &p, 0, 7);
	sw_replay_update(&r, S(300), 8);
	CHECK(r.t_attr_ns == S(273) + MS(8), "expected last no-change reval at 273.008 s, saw %.3f", r.t_attr_ns / 1e9);
	int64_t f = sw_replay_pending_fill(&r);
	CHECK(f == S(333) + MS(9), "expected the change seen at 333.009 s, saw %.3f", f / 1e9);
	sw_replay_advance(&r, S(334));
	CHECK(r.t_fill_ns == S(333) + MS(9) && r.key == 8, "expected refetch at 333.009 s with key 8, saw %.3f key %llu",
	      r.t_fill_ns / 1e9, (unsigned long long)r.key);
	CHECK(sw_replay_next_reval(&r) == S(336) + MS(10), "expected timeout reset to 3 s (336.010 s), saw %.3f",
	      sw_replay_next_reval(&r) / 1e9);
	/* long idle stretch: closed-form jump gives the same grid */
	sw_replay_init(&r, &p, 0, 7);
	sw_replay_advance(&r, S(3600));
	CHECK(r.t_attr_ns == S(3573) + MS(63), "expected last reval at 3573.063 s (153.006 + 57*60.001), saw %.3f",
	      r.t_attr_ns / 1e9);
	CHECK(r.revals == 1 + 6 + 57, "expected %d revalidations, saw %llu", 1 + 6 + 57,
	      (unsigned long long)r.revals);
}

static void fixed_profiles(void)
{
	struct sw_replay r;
	/* noac, reads every 100 ms: a change at 1.05 s is seen at 1.1 s */
	sw_replay_init(&r, prof("v3-noac"), 0, 1);
	sw_replay_update(&r, MS(1050), 2);
	CHECK(sw_replay_pending_fill(&r) == MS(1100), "noac: expected 1.1 s, saw %.3f",
	      sw_replay_pending_fill(&r) / 1e9);
	/* cto with a 3..60 cache: still every read */
	sw_replay_init(&r, prof("v3-cto"), 0, 1);
	sw_replay_update(&r, S(100) + MS(1), 2);
	CHECK(sw_replay_pending_fill(&r) == S(100) + MS(100), "cto: expected 100.1 s, saw %.3f",
	      sw_replay_pending_fill(&r) / 1e9);
	/* actimeo=30: revalidations every 30 s + one read, no doubling */
	sw_replay_init(&r, prof("v3-actimeo=30"), 0, 1);
	sw_replay_update(&r, S(61), 2);
	CHECK(sw_replay_pending_fill(&r) == S(90) + MS(300), "actimeo=30: expected 90.3 s, saw %.3f",
	      sw_replay_pending_fill(&r) / 1e9);
	/* equal key (v3: same ctime after a coarse update): nothing invalidated */
	sw_replay_init(&r, prof("v3-default"), 0, 5);
	sw_replay_update(&r, S(10), 5);
	CHECK(sw_replay_pending_fill(&r) == -1, "equal ctime: expected no invalidation");
	/* read period 1 s: the read at 3 s is still inside the 3 s cache
	 * (filled by the GETATTR sent just after the read at 0), the read at
	 * 4 s revalidates and sees the change of 3.5 s */
	sw_replay_init(&r, prof("v3-read1s"), 0, 5);
	sw_replay_update(&r, MS(3500), 6);
	CHECK(sw_replay_pending_fill(&r) == S(4), "read1s: expected 4 s, saw %.3f",
	      sw_replay_pending_fill(&r) / 1e9);
}

/* nfs_attribute_timeout() / time_in_range_open(jiffies, read_cache_jiffies,
 * read_cache_jiffies + attrtimeo), read_cache_jiffies = the GETATTR's send
 * time (after its read started): the first revalidation is the first read
 * strictly after t_attr + timeout.  Table: period, timeout, expected. */
static void timeout_boundary(void)
{
	static const struct {
		int64_t period_ms, acregmin_s, want_ms;
	} T[] = {
		{ 100, 3, 3100 },  /* a read exactly at 3 s is still cached */
		{ 70, 3, 3010 },   /* 3 s is not on the grid: first read after */
		{ 1000, 1, 2000 }, /* read every 1 s, actimeo=1: every 2nd read */
		{ 300, 1, 1200 },
	};
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
		struct sw_profile p = { .vers = 3, .acregmin_ns = S(T[i].acregmin_s),
					.acregmax_ns = S(T[i].acregmin_s),
					.period_ns = MS(T[i].period_ms) };
		struct sw_replay r;
		sw_replay_init(&r, &p, 0, 1);
		CHECK(sw_replay_next_reval(&r) == MS(T[i].want_ms),
		      "nfs_attribute_timeout: period %lld ms, actimeo %lld s: expected %lld ms, saw %.3f s",
		      (long long)T[i].period_ms, (long long)T[i].acregmin_s,
		      (long long)T[i].want_ms, sw_replay_next_reval(&r) / 1e9);
	}
}

static void parsing(void)
{
	struct sw_profile p;
	char err[256];
	sw_profile_from_mount("rw,relatime,vers=4.2,rsize=1048576,actimeo=5,hard", MS(200), 0, &p);
	CHECK(p.vers == 4 && p.acregmin_ns == S(5) && p.acregmax_ns == S(5) && !p.noac &&
	      !p.cto && p.period_ns == MS(200), "mount vers=4.2,actimeo=5 parsed wrong");
	sw_profile_from_mount("rw,vers=3,noac,acregmin=1", MS(100), 1, &p);
	CHECK(p.vers == 3 && p.noac && p.cto && p.acregmin_ns == S(1) && p.acregmax_ns == S(60),
	      "mount vers=3,noac,acregmin=1 parsed wrong");
	sw_profile_from_mount("rw,vers=3,nocto", MS(100), 1, &p);
	CHECK(!p.cto, "NFS_MOUNT_NOCTO: a reopening reader must not revalidate at open");
	sw_profile_from_mount("rw,nfsvers=3", MS(100), 0, &p);
	CHECK(p.acregmin_ns == S(3) && p.acregmax_ns == S(60), "defaults 3..60 expected");
	CHECK(sw_profile_parse("x vers=4 bogus=1", &p, err, sizeof(err)) != 0 && strstr(err, "bogus"),
	      "unknown key must be rejected naming it, saw '%s'", err);
	CHECK(sw_profile_parse("x period_ms=0", &p, err, sizeof(err)) != 0, "period 0 must be rejected");
	CHECK(sw_profile_parse("y vers=4 actimeo=2 cto period_ms=50", &p, err, sizeof(err)) == 0 &&
	      p.vers == 4 && p.acregmin_ns == S(2) && p.cto && p.period_ns == MS(50),
	      "profile line parsed wrong: %s", err);
}

int main(void)
{
	adaptive();
	fixed_profiles();
	timeout_boundary();
	parsing();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("replay: all checks passed\n");
	return failures ? 1 : 0;
}
