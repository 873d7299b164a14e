/* SPDX-License-Identifier: MIT */
/* test_torn.c - a v4 reply that moved the change attribute without ctime:
 * the kernel's rule (6.1: a queried i_version moves inside the coarse
 * tick that leaves ctime equal) or a torn GETATTR (generic_fillattr()
 * reads ctime, then i_version; a fault between the two pairs the new
 * i_version with the old ctime).  sw_attrs_torn and the observer cursor
 * (analysis/pass/observer.c) tell the two apart by the next reply:
 *   torn       the revealing reply read ctime before the fault and
 *              i_version after it: the next reply moved ctime, the
 *              i_version part stayed;
 *   torn_ref   the reference reply read mtime before the fault and
 *              ctime after it (mtime apart from ctime), the revealing
 *              one the whole update (four v4 replies of a 7.2 ext4 run);
 *   rule       ctime moved with the next store's i_version: not torn;
 *   monotonic  a change attribute of another formula (i_version alone):
 *              never taken for torn;
 *   cursor     the same through a probe log and sw_obs_query, where the
 *              next run is not yet read when the revealing one is found. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "observer.h"
#include "report.h"
#include "records.h"
#include "swlog.h"

#define MS 1000000ll
#define T0 (1700000000ll * 1000 * MS) /* realtime, ns */

/* knfsd's change attribute: i_version + (ctime s << 30) + ctime ns */
static struct sw_attrs at(int64_t ctime_ns, uint64_t iversion)
{
	struct sw_attrs a = { .ctime_ns = ctime_ns, .mtime_ns = ctime_ns,
			      .valid = SW_ATTR_CTIME | SW_ATTR_MTIME | SW_ATTR_CHANGE };
	a.change = iversion + ((uint64_t)(ctime_ns / 1000000000) << 30) +
		   (uint64_t)(ctime_ns % 1000000000);
	return a;
}

SW_CASE(torn)
{
	struct sw_attrs a = at(T0, 5), b = at(T0, 6), c = at(T0 + 3 * MS, 6);
	CHECK(sw_attrs_torn(&a, &b, &c), "i_version 6 under the old ctime, then under the new one");
	struct sw_attrs b2 = at(T0 + 3 * MS, 6);
	CHECK(!sw_attrs_torn(&a, &b2, &c), "b moved ctime too: not a change-alone reply");
	struct sw_attrs c2 = at(T0, 7);
	CHECK(!sw_attrs_torn(&a, &b, &c2), "the next reply kept ctime: nothing says torn");
}

SW_CASE(torn_ref)
{
	/* probe-0.swlog of vm_change_attr, 7.2 ext4, replies 1292-1295 */
	struct sw_attrs r[4] = {
		{ .mtime_ns = 1796677533145421939, .ctime_ns = 1796677533153421939,
		  .change = 1929167811576662197ull },
		{ .mtime_ns = 1796677533153421939, .ctime_ns = 1796677533153421939,
		  .change = 1929167811576662198ull },
		{ .mtime_ns = 1796677533161421939, .ctime_ns = 1796677533161421939,
		  .change = 1929167811584662199ull },
	};
	for (int i = 0; i < 3; i++)
		r[i].valid = SW_ATTR_CTIME | SW_ATTR_MTIME | SW_ATTR_CHANGE;
	CHECK(sw_attrs_torn(&r[0], &r[1], &r[2]), "mtime caught up with ctime: torn");
	CHECK(sw_attrs_torn(&r[0], &r[1], NULL), "the next reply is not needed");
	struct sw_attrs whole = r[0];
	whole.mtime_ns = whole.ctime_ns;
	CHECK(!sw_attrs_torn(&whole, &r[1], &r[2]), "a whole reference: the rule, not torn");
}

SW_CASE(rule)
{
	/* 6.1: the fault moved i_version alone; the next store's fault, in
	 * a later tick, moved ctime and i_version again */
	struct sw_attrs a = at(T0, 5), b = at(T0, 6), c = at(T0 + 4 * MS, 7);
	CHECK(!sw_attrs_torn(&a, &b, &c), "i_version 6 then 7: two updates, not a torn reply");
}

SW_CASE(monotonic)
{
	struct sw_attrs a = at(T0, 5), b = at(T0, 6), c = at(T0 + 3 * MS, 6);
	a.change = 5, b.change = 6, c.change = 6; /* i_version alone */
	CHECK(!sw_attrs_torn(&a, &b, &c), "another formula is never taken for torn");
	c.valid &= ~SW_ATTR_CHANGE;
	CHECK(!sw_attrs_torn(&a, &b, &c), "no change attribute: not torn");
}

static char dir[] = "/tmp/sw-torn-XXXXXX";

/* one reply a millisecond from T0 + 1 ms, attrs[i] for the i-th */
static int probe_log(const char *path, const struct sw_attrs *attrs, int n)
{
	struct swlog_writer *w;
	char err[SWLOG_ERRLEN];
	if (swlog_create(&w, path, 1, SWLOG_KIND_PROBE, 1, "{}", 0, err))
		return -1;
	for (int i = 0; i < n; i++) {
		struct sw_rec_attr r = { .seq = (uint64_t)i, .attrs = attrs[i], .vers = 4 };
		r.t_send_real_ns = T0 + (i + 1) * MS;
		r.t_recv_real_ns = r.t_send_real_ns + MS / 2;
		r.t_send_mono_ns = r.t_send_real_ns - T0;
		r.t_recv_mono_ns = r.t_recv_real_ns - T0;
		swlog_append(w, SW_REC_ATTR, &r, sizeof(r));
	}
	return swlog_close(w);
}

/* the answer for a store at T0 + 2.7 ms: after the second reply */
static int query(const struct sw_attrs *attrs, int n, struct sw_obs_answer *a)
{
	char path[64], err[SWLOG_ERRLEN];
	struct sw_obs_cursor c;
	snprintf(path, sizeof(path), "%s/probe.swlog", dir);
	if (probe_log(path, attrs, n) || sw_obs_open(&c, path, 0, err))
		return -1;
	int rc = sw_obs_query(&c, T0 + 2 * MS + 7 * MS / 10, a);
	int torn = a->torn, st = a->status;
	uint32_t rev = a->revealed;
	sw_obs_close(&c); /* the answer's pointers die here */
	memset(a, 0, sizeof(*a));
	a->torn = torn, a->status = st, a->revealed = rev;
	return rc;
}

SW_CASE(cursor)
{
	struct sw_obs_answer a;
	struct sw_attrs r[2 + OBS_K + 8 + 2];
	int n = 0;
	r[n++] = at(T0, 5), r[n++] = at(T0, 5);
	r[n++] = at(T0, 6);
	r[n++] = at(T0 + 3 * MS, 6);
	CHECK(query(r, n, &a) == 0 && a.status == SW_OBS_OK);
	CHECK(a.revealed == SW_ATTR_CHANGE && a.torn,
	      "expected the change attribute alone, torn; saw mask 0x%x, torn %d", a.revealed, a.torn);
	/* the revealing run is the last: nothing after it says torn */
	CHECK(query(r, 3, &a) == 0 && a.status == SW_OBS_OK && !a.torn);
	/* a revealing run longer than the cursor keeps (OBS_K replies) is
	 * answered before its successor is read: the cursor reads on */
	for (n = 2; n < 2 + OBS_K + 8; n++)
		r[n] = at(T0, 6);
	r[n++] = at(T0 + 3 * MS, 6);
	CHECK(query(r, n, &a) == 0 && a.status == SW_OBS_OK);
	CHECK(a.revealed == SW_ATTR_CHANGE && a.torn,
	      "a long run: expected torn; saw mask 0x%x, torn %d", a.revealed, a.torn);
	r[n - 1] = at(T0 + 4 * MS, 7);
	CHECK(query(r, n, &a) == 0 && a.status == SW_OBS_OK);
	CHECK(a.revealed == SW_ATTR_CHANGE && !a.torn,
	      "a long run, then the next store's update: expected not torn; saw torn %d", a.torn);
}

static void setup(void) __attribute__((constructor(101)));
static void setup(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		_exit(1);
	}
}

static void teardown(void) __attribute__((destructor));
static void teardown(void)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/probe.swlog", dir);
	unlink(path);
	rmdir(dir);
}

SW_MAIN()
