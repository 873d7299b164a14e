/* SPDX-License-Identifier: MIT */
/*
 * archive.c - a SQLite archive of analysed runs for later comparisons.
 *   archive add RUN... --db F      analyse and store (replaces same run id)
 *   archive list --db F            one line per run
 *   archive query --db F [--policy P] [--kernel K] [--figure NAME]
 *                 [--sql "SELECT ..."]   figure rows (or any SELECT)
 * Tables: runs(run_id PK, dir, policy, kernel, fs, partial, stores, updates,
 * spurious, collisions, traps, trap_p50_ns, trap_p99_ns, resolution_ns,
 * added_utc, report_json) and figures(run_id, idx, name, kind, stores,
 * unresolved, p50_ns, p90_ns, p99_ns, max_ns [NULL = "> run end"],
 * share_gt_1s, share_gt_5s, share_gt_30s).
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmp.h"
#include "fmt.h"

static const char *schema =
	"CREATE TABLE IF NOT EXISTS runs(run_id TEXT PRIMARY KEY, dir TEXT, policy TEXT,"
	" kernel TEXT, fs TEXT, partial INTEGER, stores INTEGER, updates INTEGER,"
	" spurious INTEGER, collisions INTEGER, traps INTEGER, trap_p50_ns INTEGER,"
	" trap_p99_ns INTEGER, resolution_ns INTEGER, added_utc TEXT, report_json TEXT);"
	"CREATE TABLE IF NOT EXISTS figures(run_id TEXT, idx INTEGER, name TEXT, kind INTEGER,"
	" stores INTEGER, unresolved INTEGER, p50_ns INTEGER, p90_ns INTEGER, p99_ns INTEGER,"
	" max_ns INTEGER, share_gt_1s REAL, share_gt_5s REAL, share_gt_30s REAL,"
	" PRIMARY KEY(run_id, idx));";

static int db_open(const char *path, sqlite3 **db, int create)
{
	int fl = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, db, fl, NULL) != SQLITE_OK) {
		fprintf(stderr, "stalewin-report archive: cannot open %s: %s\n", path,
			*db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		return 2;
	}
	char *e = NULL;
	if (sqlite3_exec(*db, schema, NULL, NULL, &e) != SQLITE_OK) {
		fprintf(stderr, "stalewin-report archive: %s: expected a stalewin archive: %s\n",
			path, e ? e : "?");
		sqlite3_free(e);
		sqlite3_close(*db);
		return 2;
	}
	return 0;
}

static void bind_q(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static int add_run(sqlite3 *db, const struct sw_summary *S)
{
	struct sw_cmp_run *r = malloc(sizeof(*r));
	sqlite3_stmt *st = NULL;
	int rc = 1;
	if (!r)
		return 1;
	sw_cmp_from_summary(S, r);
	json_t *j = sw_summary_json(S, S->partial ? 3 : 0);
	char *js = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	sqlite3_stmt *del;
	if (sqlite3_prepare_v2(db, "DELETE FROM figures WHERE run_id = ?", -1, &del, NULL) == SQLITE_OK) {
		sqlite3_bind_text(del, 1, r->run_id, -1, SQLITE_TRANSIENT);
		sqlite3_step(del);
		sqlite3_finalize(del);
	}
	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO runs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			       "strftime('%Y-%m-%dT%H:%M:%SZ','now'),?)", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->run_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, r->dir, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, r->policy, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, r->kernel, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, r->fs, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 6, r->partial);
	sqlite3_bind_int64(st, 7, (int64_t)r->stores);
	sqlite3_bind_int64(st, 8, (int64_t)r->updates);
	sqlite3_bind_int64(st, 9, (int64_t)r->spurious);
	sqlite3_bind_int64(st, 10, (int64_t)r->collisions);
	sqlite3_bind_int64(st, 11, (int64_t)r->traps);
	sqlite3_bind_int64(st, 12, r->trap_p50_ns);
	sqlite3_bind_int64(st, 13, r->trap_p99_ns);
	bind_q(st, 14, r->resolution_ns);
	sqlite3_bind_text(st, 15, js ? js : "{}", -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "INSERT INTO figures VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (int i = 0; i < r->nfig; i++) {
		const struct sw_cmp_fig *c = &r->fig[i];
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, r->run_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_text(st, 3, c->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 4, c->kind);
		sqlite3_bind_int64(st, 5, (int64_t)c->s.n);
		sqlite3_bind_int64(st, 6, (int64_t)c->s.unresolved);
		for (int k = 0; k < SW_FIG_NQ; k++)
			bind_q(st, 7 + k, c->s.q[k]);
		for (int k = 0; k < SW_FIG_NTH; k++)
			sqlite3_bind_double(st, 11 + k, c->s.gt[k]);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "stalewin-report archive: insert failed: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_exec(db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	free(js);
	free(r);
	return rc;
}

/* The study's archive (study.c): an analysed run added to the archive
 * at path, created when missing.  0, or 1 / 2 with the reason on stderr. */
int sw_archive_add_summary(const char *path, const struct sw_summary *S)
{
	sqlite3 *db = NULL;
	int rc = db_open(path, &db, 1);
	if (rc)
		return rc;
	rc = add_run(db, S);
	sqlite3_close(db);
	return rc;
}

int sw_archive_load(const char *path, const char *id, struct sw_cmp_run *r, char *err, int errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char like[64];
	int rc = -1;
	memset(r, 0, sizeof(*r));
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open archive %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	/* a short hex id is the number zero-padded (@e1 = 00000000000000e1)
	 * when such a run exists, else a prefix of the 16 hex digits */
	snprintf(like, sizeof(like), "%.40s%%", id);
	if (strlen(id) < 16 && strspn(id, "0123456789abcdef") == strlen(id)) {
		sqlite3_stmt *x;
		char pad[20];
		snprintf(pad, sizeof(pad), "%016llx", strtoull(id, NULL, 16));
		if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE run_id = ?", -1, &x, NULL) == SQLITE_OK) {
			sqlite3_bind_text(x, 1, pad, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(x) == SQLITE_ROW)
				snprintf(like, sizeof(like), "%s", pad);
			sqlite3_finalize(x);
		}
	}
	if (sqlite3_prepare_v2(db, "SELECT run_id, dir, policy, kernel, fs, partial, stores,"
			       " updates, spurious, collisions, traps, trap_p50_ns, trap_p99_ns,"
			       " (SELECT count(*) FROM runs WHERE run_id LIKE ?1)"
			       " FROM runs WHERE run_id LIKE ?1", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "archive %s: expected a stalewin archive: %s", path,
			 sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, like, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "archive %s: expected a run id starting with '%s', saw none", path, id);
		goto out;
	}
	if (sqlite3_column_int(st, 13) > 1) {
		snprintf(err, errlen, "archive %s: run id prefix '%s' matches %d runs", path, id,
			 sqlite3_column_int(st, 13));
		goto out;
	}
	snprintf(r->run_id, sizeof(r->run_id), "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(r->dir, sizeof(r->dir), "%s", (const char *)sqlite3_column_text(st, 1));
	snprintf(r->policy, sizeof(r->policy), "%s", (const char *)sqlite3_column_text(st, 2));
	snprintf(r->kernel, sizeof(r->kernel), "%s", (const char *)sqlite3_column_text(st, 3));
	snprintf(r->fs, sizeof(r->fs), "%s", (const char *)sqlite3_column_text(st, 4));
	r->partial = sqlite3_column_int(st, 5);
	r->stores = (uint64_t)sqlite3_column_int64(st, 6);
	r->updates = (uint64_t)sqlite3_column_int64(st, 7);
	r->spurious = (uint64_t)sqlite3_column_int64(st, 8);
	r->collisions = (uint64_t)sqlite3_column_int64(st, 9);
	r->traps = (uint64_t)sqlite3_column_int64(st, 10);
	r->trap_p50_ns = sqlite3_column_int64(st, 11);
	r->trap_p99_ns = sqlite3_column_int64(st, 12);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name, kind, stores, unresolved, p50_ns, p90_ns, p99_ns,"
			       " max_ns, share_gt_1s, share_gt_5s, share_gt_30s FROM figures"
			       " WHERE run_id = ? ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->run_id, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW && r->nfig < SW_CMP_MAX_FIG) {
		struct sw_cmp_fig *c = &r->fig[r->nfig++];
		snprintf(c->name, sizeof(c->name), "%s", (const char *)sqlite3_column_text(st, 0));
		c->kind = sqlite3_column_int(st, 1);
		c->s.n = (uint64_t)sqlite3_column_int64(st, 2);
		c->s.unresolved = (uint64_t)sqlite3_column_int64(st, 3);
		for (int k = 0; k < SW_FIG_NQ; k++)
			c->s.q[k] = sqlite3_column_type(st, 4 + k) == SQLITE_NULL
					  ? (c->s.n ? -1 : -2) : sqlite3_column_int64(st, 4 + k);
		for (int k = 0; k < SW_FIG_NTH; k++)
			c->s.gt[k] = sqlite3_column_double(st, 8 + k);
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static int print_rows(sqlite3 *db, const char *sql, const char **binds, int nb)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "stalewin-report archive: bad query: %s\n", sqlite3_errmsg(db));
		return 2;
	}
	for (int i = 0; i < nb; i++)
		sqlite3_bind_text(st, i + 1, binds[i], -1, SQLITE_TRANSIENT);
	int nc = sqlite3_column_count(st), rows = 0, s;
	for (int c = 0; c < nc; c++)
		printf("%s%s", c ? "|" : "", sqlite3_column_name(st, c));
	putchar('\n');
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < nc; c++) {
			const unsigned char *t = sqlite3_column_text(st, c);
			printf("%s%s", c ? "|" : "", t ? (const char *)t : "NULL");
		}
		putchar('\n');
		rows++;
	}
	int rc = s == SQLITE_DONE ? 0 : 1;
	if (rc)
		fprintf(stderr, "stalewin-report archive: query failed: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int sw_archive_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", 1, 0, 'd' }, { "policy", 1, 0, 'p' }, { "kernel", 1, 0, 'k' },
		{ "figure", 1, 0, 'f' }, { "sql", 1, 0, 's' }, { 0, 0, 0, 0 } };
	const char *dbp = NULL, *pol = "%", *ker = "%", *fig = "%", *sql = NULL;
	int o;
	if (argc < 2) {
		fprintf(stderr, "stalewin-report archive: expected add|list|query\n");
		return 2;
	}
	const char *sub = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "d:p:k:f:s:", lo, NULL)) != -1) {
		switch (o) {
		case 'd': dbp = optarg; break;
		case 'p': pol = optarg; break;
		case 'k': ker = optarg; break;
		case 'f': fig = optarg; break;
		case 's': sql = optarg; break;
		default: return 2;
		}
	}
	if (!dbp) {
		fprintf(stderr, "stalewin-report archive %s: expected --db FILE\n", sub);
		return 2;
	}
	sqlite3 *db;
	int rc = db_open(dbp, &db, !strcmp(sub, "add"));
	if (rc)
		return rc;
	if (!strcmp(sub, "add")) {
		struct sw_summary *S = calloc(1, sizeof(*S)); /* sw_summary_free: safe at once */
		if (optind == argc) {
			fprintf(stderr, "stalewin-report archive add: expected RUN folders\n");
			rc = 2;
		}
		for (int i = optind; S && i < argc && !rc; i++) {
			struct sw_analyze_opts ao = { 0 };
			sw_summary_free(S); /* the run before's */
			int r = sw_analyze(argv[i], &ao, S);
			if (r == 1 || r == 2) {
				sw_report_problems_stderr(S, 2);
				rc = r;
				break;
			}
			if (add_run(db, S))
				rc = 1;
			else
				printf("added %016llx %s%s\n", (unsigned long long)S->run_id,
				       argv[i], r == 3 ? " (partial)" : "");
		}
		if (S)
			sw_summary_free(S);
		free(S);
	} else if (!strcmp(sub, "list")) {
		rc = print_rows(db, "SELECT run_id, policy, kernel, fs, stores, updates, partial,"
			       " added_utc, dir FROM runs ORDER BY added_utc, run_id", NULL, 0);
	} else if (!strcmp(sub, "query")) {
		const char *b[3] = { pol, ker, fig };
		if (sql)
			rc = print_rows(db, sql, NULL, 0);
		else
			rc = print_rows(db, "SELECT r.run_id, r.policy, r.kernel, f.name, f.stores,"
				       " f.unresolved, f.p50_ns, f.p90_ns, f.p99_ns, f.max_ns,"
				       " f.share_gt_1s, f.share_gt_5s, f.share_gt_30s"
				       " FROM runs r JOIN figures f USING(run_id)"
				       " WHERE r.policy LIKE ?1 AND r.kernel LIKE ?2 AND f.name LIKE ?3"
				       " ORDER BY r.run_id, f.idx", b, 3);
	} else {
		fprintf(stderr, "stalewin-report archive: expected add|list|query, saw '%s'\n", sub);
		rc = 2;
	}
	sqlite3_close(db);
	return rc;
}
