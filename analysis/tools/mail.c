/* SPDX-License-Identifier: MIT */
/* mail.c - `stalewin-report mail RUN...|STUDY [--to LIST] [--from F]
 * [--subject S] [--date D] [--attach FILE]...`: a plain-text message of
 * the runs on stdout (output/mail.c), from their rows (pass/runrow.c),
 * facts and findings (pass/mailfacts.c); of a study folder, led by its
 * TL;DR and verdict (verdict.c). */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "fmt.h"
#include "mailfacts.h"
#include "sumload.h"

#define MAX_ATTACH 64

static void default_subject(char *dst, size_t n, const struct sw_runrow *rows, int nr)
{
	size_t used = (size_t)snprintf(dst, n, "[stalewin] mmap timestamp staleness over NFS:");
	for (int i = 0; i < nr && used < n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(rows[i].policy, rows[j].policy);
		if (!seen)
			used += (size_t)snprintf(dst + used, n - used, "%s%s", i ? ", " : " ",
						 rows[i].policy);
	}
}

static void default_date(char *dst, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	static const char *const wd[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mo[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	gmtime_r(&t, &tm);
	snprintf(dst, n, "%s, %02d %s %04d %02d:%02d:%02d +0000", wd[tm.tm_wday], tm.tm_mday,
		 mo[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* the mail's order: workload, then policy (eager, deferred, lang, none,
 * native), then kernel and filesystem; the arguments' order otherwise */
static int policy_rank(const char *p)
{
	static const char *const order[] = { "eager", "deferred", "lang", "none", "native" };
	for (int i = 0; i < 5; i++)
		if (!strncmp(p, order[i], strlen(order[i])))
			return i;
	return 5;
}

static const struct sw_runrow *sort_rows;
static int by_mail_order(const void *a, const void *b)
{
	const struct sw_runrow *x = &sort_rows[*(const int *)a], *y = &sort_rows[*(const int *)b];
	int c = strcmp(x->workload, y->workload);
	if (!c)
		c = policy_rank(x->policy) - policy_rank(y->policy);
	if (!c)
		c = strcmp(x->policy, y->policy);
	if (!c)
		c = strcmp(x->kernel, y->kernel);
	if (!c)
		c = strcmp(x->fs, y->fs);
	return c ? c : *(const int *)a - *(const int *)b;
}

static int sort_for_mail(struct sw_runrow *rows, struct sw_runfacts *fa, int n)
{
	int *ix = malloc((size_t)n * sizeof(*ix));
	struct sw_runrow *r2 = malloc((size_t)n * sizeof(*r2));
	struct sw_runfacts *f2 = malloc((size_t)n * sizeof(*f2));
	if (!ix || !r2 || !f2) {
		free(ix);
		free(r2);
		free(f2);
		return -1;
	}
	for (int i = 0; i < n; i++)
		ix[i] = i;
	sort_rows = rows;
	qsort(ix, (size_t)n, sizeof(*ix), by_mail_order);
	for (int i = 0; i < n; i++) {
		r2[i] = rows[ix[i]];
		f2[i] = fa[ix[i]];
	}
	memcpy(rows, r2, (size_t)n * sizeof(*rows));
	memcpy(fa, f2, (size_t)n * sizeof(*fa));
	free(ix);
	free(r2);
	free(f2);
	return 0;
}

/* The runs the mail's CDF shows: plot[i] for dirs[i]; NULL: every run
 * when there are at most 8, else none. */
static int mail_out(int n, char **dirs, const int *plot, struct sw_mail_hdr *h, char *subj,
		    size_t subjn, int sketch)
{
	struct sw_runrow *rows = calloc((size_t)n, sizeof(*rows));
	struct sw_runfacts *fa = calloc((size_t)n, sizeof(*fa));
	struct sw_findings *fi = malloc(sizeof(*fi)), *sk = malloc(sizeof(*sk)),
			   *cav = malloc(sizeof(*cav));
	struct sw_summary *S = calloc(1, sizeof(*S)); /* sw_summary_free: safe at once */
	int rc = 1;
	if (!rows || !fa || !fi || !S || !sk || !cav)
		goto out;
	rc = 0;
	for (int i = 0; i < n && rc != 1 && rc != 2; i++) {
		int r = sw_summary_load_rows(1, dirs + i, NULL, 0, rows + i, S);
		if (r == 1 || r == 2)
			rc = r;
		else {
			rc = r > rc ? r : rc;
			sw_runfacts_load(dirs[i], S, &fa[i]);
			fa[i].plot = plot ? plot[i] : n <= 8;
		}
	}
	if (rc == 1 || rc == 2)
		goto out;
	if (sort_for_mail(rows, fa, n)) {
		rc = 1;
		goto out;
	}
	unsigned dims = sw_runrow_label(rows, n);
	const char *top = getenv("SW_TOP");
	for (int i = 0; i < n; i++) {
		char cmd[sizeof(fa[i].command)];
		sw_mail_command(fa[i].command, top, cmd, sizeof(cmd));
		memcpy(fa[i].command, cmd, sizeof(cmd));
		if (fa[i].tcg && rows[i].trap_p50_ns >= 0)
			rows[i].trap_p50_ns = -3; /* no absolute latency from TCG */
	}
	sw_findings_compute(rows, fa, n, fi);
	sw_mail_refusals(rows, fa, n, sk, cav);
	/* the Cost section: a study's DIR/cost/cost.json (h->study_dir), else
	 * a run folder's own cost/cost.json; its refusals go to sk */
	char *cdir = (char *)h->study_dir;
	h->cost = cdir ? sw_costsec_mail(&cdir, 1, sk) : sw_costsec_mail(dirs, n, sk);
	if (sk->n && !sketch) {
		for (int i = 0; i < sk->n; i++)
			fprintf(stderr, "stalewin-report mail: a sketch, not evidence to post: %s\n",
				sk->text[i]);
		fputs("stalewin-report mail: refused (--sketch writes it anyway, marked as a sketch)\n",
		      stderr);
		rc = 2;
		goto out;
	}
	h->sketch = sk;
	h->caveats = cav;
	if (!h->subject) {
		default_subject(subj, subjn, rows, n);
		h->subject = subj;
	}
	if (sk->n && !strstr(h->subject, "sketch")) {
		size_t u = strlen(h->subject);
		char *ns = malloc(u + 16);
		if (!ns) {
			rc = 1;
			goto out;
		}
		snprintf(ns, u + 16, "[sketch] %s", h->subject);
		h->subject = ns;
		sw_fmt_mail(stdout, h, rows, fa, n, dims, fi);
		free(ns);
		h->subject = NULL;
	} else {
		sw_fmt_mail(stdout, h, rows, fa, n, dims, fi);
	}
	char aerr[512];
	if (h->nattach && sw_mail_attach(stdout, h->attach, h->nattach, aerr, sizeof(aerr))) {
		fprintf(stderr, "stalewin-report mail: %s\n", aerr);
		rc = 1;
	}
	if (fflush(stdout)) {
		perror("stalewin-report mail: stdout");
		rc = 1;
	}
out:
	free((char *)h->cost);
	free(rows);
	free(fa);
	free(fi);
	free(sk);
	free(cav);
	if (S)
		sw_summary_free(S);
	free(S);
	return rc;
}

/* f's text so far as a string (NULL: no memory); f is closed */
static char *closed_text(FILE *f, char **buf)
{
	if (fclose(f))
		return NULL;
	return *buf;
}

/* A study folder (DIR/study.json): its runs' mail with the TL;DR, the
 * verdict, the cells' statistics, the plan and the study's commands in
 * place of the per-run table, findings and commands. */
/* The run of a cell whose truth p50 is the median of its runs (the
 * lower middle), an index into its runs; -1 none. */
static int median_run(json_t *cell)
{
	json_t *runs = json_object_get(cell, "runs");
	int n = (int)json_array_size(runs), best = -1;
	if (!n)
		return -1;
	/* its rank: as many runs below it as the lower middle has */
	for (int i = 0; i < n && best < 0; i++) {
		json_t *vi = json_object_get(json_array_get(runs, (size_t)i), "truth_p50_s");
		double a = json_is_number(vi) ? json_number_value(vi) : 1e300;
		int below = 0, equal = 0;
		for (int j = 0; j < n; j++) {
			json_t *vj = json_object_get(json_array_get(runs, (size_t)j), "truth_p50_s");
			double b = json_is_number(vj) ? json_number_value(vj) : 1e300;
			below += b < a;
			equal += b == a;
		}
		if (below <= (n - 1) / 2 && (n - 1) / 2 < below + equal)
			best = i;
	}
	return best;
}

static int study_mail(const char *dir, struct sw_mail_hdr *h, char *subj, size_t subjn, int sketch,
		      int list_plotted)
{
	char path[1024], *bufs[3] = { NULL }, *plan = NULL, **dirs = NULL;
	int *plot = NULL;
	size_t lens[3];
	json_error_t je;
	int rc = 2, n = 0;
	snprintf(path, sizeof(path), "%s/study.json", dir);
	json_t *st = json_load_file(path, 0, &je), *cmp = json_array(), *c, *d;
	if (!json_is_array(json_object_get(st, "cells"))) {
		fprintf(stderr, "stalewin-report mail: %s: expected a study.json with cells, saw %s\n", path,
			st ? "no cells" : je.text);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/plan.ini", dir);
	FILE *pf = fopen(path, "r");
	if (!pf) {
		fprintf(stderr, "stalewin-report mail: %s: expected the study's plan, saw none\n", path);
		goto out;
	}
	size_t pl = 0;
	FILE *pm = open_memstream(&plan, &pl);
	for (int ch; pm && (ch = fgetc(pf)) != EOF;)
		fputc(ch, pm);
	fclose(pf);
	rc = 1;
	if (!pm || !closed_text(pm, &plan))
		goto out;
	size_t i, j, total = 0;
	json_array_foreach(json_object_get(st, "cells"), i, c)
		total += json_array_size(json_object_get(c, "runs"));
	dirs = calloc(total + 1, sizeof(*dirs));
	plot = calloc(total + 1, sizeof(*plot));
	if (!dirs || !plot)
		goto out;
	json_array_foreach(json_object_get(st, "cells"), i, c) {
		int med = median_run(c);
		json_array_foreach(json_object_get(c, "runs"), j, d) {
			const char *rd = json_string_value(json_object_get(d, "dir")) ?: "";
			size_t l = strlen(dir) + strlen(rd) + 2;
			if (!(dirs[n] = malloc(l)))
				goto out;
			snprintf(dirs[n], l, "%s/%s", dir, rd);
			plot[n++] = (int)j == med;
		}
	}
	if (list_plotted) { /* for `stalewin mail --attach`: the runs to plot */
		for (int k = 0; k < n; k++)
			if (plot[k])
				printf("%s\n", dirs[k]);
		rc = 0;
		goto out;
	}
	if (!n) {
		fprintf(stderr, "stalewin-report mail: %s: expected finished runs in the study, saw none\n", dir);
		rc = 2;
		goto out;
	}
	const char *name = strrchr(dir, '/');
	char base[256];
	snprintf(base, sizeof(base), "%s", name && name[1] ? name + 1 : dir);
	FILE *m[3];
	for (int k = 0; k < 3; k++)
		if (!(m[k] = open_memstream(&bufs[k], &lens[k])))
			goto out;
	sw_verdict(st, base, m[0], cmp);
	sw_verdict_tldr(m[1], cmp, 12);
	sw_study_cells_text(m[2], st);
	for (int k = 0; k < 3; k++)
		if (!closed_text(m[k], &bufs[k]))
			goto out;
	h->study_name = base;
	h->study_dir = dir;
	h->verdict = bufs[0];
	h->tldr = bufs[1];
	h->cells = bufs[2];
	h->plan = plan;
	if (!h->subject) {
		snprintf(subj, subjn, "[stalewin] mmap timestamp staleness over NFS: study %.100s, %d runs", base, n);
		h->subject = subj;
	}
	rc = mail_out(n, dirs, plot, h, subj, subjn, sketch);
out:
	for (int k = 0; k < n; k++)
		free(dirs[k]);
	free(dirs);
	free(plot);
	for (int k = 0; k < 3; k++)
		free(bufs[k]);
	free(plan);
	json_decref(cmp);
	json_decref(st);
	return rc;
}

/* `mail --check FILE`: a message as a list would read it: lines of at
 * most 72 columns (characters, not bytes), no tabs, and every command of
 * its "To reproduce" part parsed by `bash -n`.  0 clean, 1 with each
 * problem on stderr (FILE:LINE: expected ..., saw ...), 2 unreadable. */
static int cmd_parses(const char *cmd, char *err, size_t n)
{
	char tmpl[] = "/tmp/sw-mail-check-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	FILE *t = fdopen(fd, "w");
	fputs(cmd, t);
	fclose(t);
	char sh[160];
	snprintf(sh, sizeof(sh), "bash -n %s 2>&1", tmpl);
	FILE *p = popen(sh, "r");
	size_t got = p ? fread(err, 1, n - 1, p) : 0;
	err[got] = 0;
	int rc = p ? pclose(p) : -1;
	unlink(tmpl);
	char *nl = strchr(err, '\n');
	if (nl)
		*nl = 0;
	return rc == 0 ? 0 : 1;
}

static int mail_check(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "stalewin-report mail --check: %s: cannot open it\n", file);
		return 2;
	}
	char line[4096], cmd[8192] = "", err[512];
	int ln = 0, bad = 0, in_repro = 0, cmd_line = 0;
	int in_text = 0; /* past the text part's headers */
	while (fgets(line, sizeof(line), f)) {
		ln++;
		line[strcspn(line, "\n")] = 0;
		/* a MIME message: the text part is checked, the encoded parts
		 * after it are not (base64 lines are 76 characters by rule) */
		if (!strncmp(line, "--" SW_MIME_BOUNDARY, 2 + strlen(SW_MIME_BOUNDARY))) {
			if (in_text++)
				break;
			continue;
		}
		int cols = 0;
		for (const unsigned char *c = (const unsigned char *)line; *c; c++)
			cols += (*c & 0xc0) != 0x80;
		if (cols > 72) {
			fprintf(stderr, "%s:%d: expected at most 72 columns, saw %d\n", file, ln, cols);
			bad++;
		}
		if (strchr(line, '\t')) {
			fprintf(stderr, "%s:%d: expected no tab, saw one\n", file, ln);
			bad++;
		}
		if (!strncmp(line, "To reproduce", 12)) {
			in_repro = 1;
			continue;
		}
		if (!in_repro)
			continue;
		if (!strcmp(line, "-- ") || (line[0] && line[0] != ' ')) {
			in_repro = 0;
			continue;
		}
		if (strncmp(line, "  ", 2) || !strncmp(line, "  #", 3) || (!cmd[0] && !line[2]))
			continue;
		if (!cmd[0])
			cmd_line = ln;
		strncat(cmd, line, sizeof(cmd) - strlen(cmd) - 2);
		size_t u = strlen(cmd);
		if (u >= 2 && !strcmp(cmd + u - 2, " \\")) {
			cmd[u - 1] = 0; /* a continuation: the next line joins */
			continue;
		}
		strcat(cmd, "\n");
		if (cmd_parses(cmd, err, sizeof(err))) {
			fprintf(stderr, "%s:%d: expected a command bash -n parses, saw: %s\n", file, cmd_line,
				err[0] ? err : "an error");
			bad++;
		}
		cmd[0] = 0;
	}
	fclose(f);
	if (bad)
		fprintf(stderr, "stalewin-report mail --check: %s: %d problem%s\n", file, bad, bad == 1 ? "" : "s");
	else
		printf("%s: %d lines, within 72 columns, no tabs, its commands parse\n", file, ln);
	return bad ? 1 : 0;
}

int sw_mail_main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return mail_check(argv[2]);
	static const struct option lo[] = {
		{ "to", 1, 0, 't' }, { "from", 1, 0, 'f' }, { "subject", 1, 0, 's' },
		{ "date", 1, 0, 'd' }, { "attach", 1, 0, 'a' }, { "help", 0, 0, 'h' },
		{ "cc", 1, 0, 'c' }, { "in-reply-to", 1, 0, 'i' }, { "sketch", 0, 0, 'k' },
		{ "list-plotted", 0, 0, 'p' }, { 0, 0, 0, 0 } };
	static const char *attach[MAX_ATTACH];
	char from[320], date[64], subj[256], host[256] = "localhost";
	struct sw_mail_hdr h = { .to = "linux-nfs@vger.kernel.org", .attach = attach };
	int o, sketch = 0, list_plotted = 0;

	optind = 1;
	while ((o = getopt_long(argc, argv, "t:f:s:d:a:hc:i:kp", lo, NULL)) != -1) {
		switch (o) {
		case 'c': h.cc = optarg; break;
		case 'i': h.in_reply_to = optarg; break;
		case 'k': sketch = 1; break;
		case 'p': list_plotted = 1; break;
		case 't': h.to = optarg; break;
		case 'f': h.from = optarg; break;
		case 's': h.subject = optarg; break;
		case 'd': h.date = optarg; break;
		case 'a':
			if (h.nattach == MAX_ATTACH) {
				fprintf(stderr, "stalewin-report mail: expected at most %d --attach, saw more\n",
					MAX_ATTACH);
				return 2;
			}
			attach[h.nattach++] = optarg;
			break;
		default:
			return sw_cli_usage(o, "usage: stalewin-report mail RUN... [--to LIST] [--from ADDR]\n"
					    "         [--cc LIST] [--in-reply-to MSGID] [--subject S]\n"
					    "         [--date RFC5322-DATE] [--attach FILE]... [--sketch]\n"
					    "         [--list-plotted]\n"
					    "  RUN... or one study folder (its study.json): the TL;DR and\n"
					    "  verdict lead; --attach: a MIME multipart message with FILE as a\n"
					    "  part, else an inline ASCII CDF of the runs --list-plotted prints\n"
					    "  refuses (exit 2, naming each reason) runs that are a sketch:\n"
					    "  every row emulated, every row on ganesha, writeback scaled\n"
					    "  from the kernel's defaults, a file not settled, fewer than 5\n"
					    "  runs of a command; --sketch writes it marked as one\n"
					    "       stalewin-report mail --check FILE  (72 columns, no tabs,\n"
					    "  every reproduce command parses with bash -n)\n");
		}
	}
	int n = argc - optind, study = 0;
	if (n == 1) {
		char sj[1024];
		snprintf(sj, sizeof(sj), "%s/study.json", argv[optind]);
		study = access(sj, F_OK) == 0;
	}
	if (!study && sw_cli_check_runs("mail", n, SW_SUMMARY_MAX_RUNS))
		return 2;
	const char *one_line[] = { h.subject, h.cc, h.in_reply_to, h.to, h.from };
	static const char *const names[] = { "--subject", "--cc", "--in-reply-to", "--to", "--from" };
	for (int k = 0; k < 5; k++)
		for (const char *s = one_line[k]; s && *s; s++)
			if (*s == '\n' || *s == '\r') {
				fprintf(stderr, "stalewin-report mail: expected a one-line %s, saw a line break\n",
					names[k]);
				return 2;
			}
	char aerr[512];
	if (sw_mail_attach_check(h.attach, h.nattach, aerr, sizeof(aerr))) {
		fprintf(stderr, "stalewin-report mail: %s\n", aerr);
		return 2;
	}
	if (!h.from) {
		const char *u = getenv("USER");
		gethostname(host, sizeof(host) - 1);
		snprintf(from, sizeof(from), "%s@%s", u && *u ? u : "root", host);
		h.from = from;
	}
	if (!h.date) {
		default_date(date, sizeof(date));
		h.date = date;
	}
	if (study)
		return study_mail(argv[optind], &h, subj, sizeof(subj), sketch, list_plotted);
	if (list_plotted) {
		for (int k = 0; n <= 8 && k < n; k++)
			printf("%s\n", argv[optind + k]);
		return 0;
	}
	return mail_out(n, argv + optind, NULL, &h, subj, sizeof(subj), sketch);
}
