/* SPDX-License-Identifier: MIT */
/* mail.c - `stalewin-report mail RUN... [--to LIST] [--from F] [--subject S]
 * [--date D] [--attach FILE]...`: a plain-text message of the runs on
 * stdout (output/mail.c), from their rows (pass/runrow.c), facts and
 * findings (pass/mailfacts.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static int mail_out(int n, char **dirs, struct sw_mail_hdr *h, char *subj, size_t subjn,
		    int sketch)
{
	struct sw_runrow *rows = calloc((size_t)n, sizeof(*rows));
	struct sw_runfacts *fa = calloc((size_t)n, sizeof(*fa));
	struct sw_findings *fi = malloc(sizeof(*fi)), *sk = malloc(sizeof(*sk)),
			   *cav = malloc(sizeof(*cav));
	struct sw_summary *S = malloc(sizeof(*S));
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
	h->cost = sw_costsec_mail(dirs, n, sk); /* a study's cost/cost.json, refusals to sk */
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
	free(S);
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
	while (fgets(line, sizeof(line), f)) {
		ln++;
		line[strcspn(line, "\n")] = 0;
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
		{ 0, 0, 0, 0 } };
	static const char *attach[MAX_ATTACH];
	char from[320], date[64], subj[256], host[256] = "localhost";
	struct sw_mail_hdr h = { .to = "linux-nfs@vger.kernel.org", .attach = attach };
	int o, sketch = 0;

	optind = 1;
	while ((o = getopt_long(argc, argv, "t:f:s:d:a:hc:i:k", lo, NULL)) != -1) {
		switch (o) {
		case 'c': h.cc = optarg; break;
		case 'i': h.in_reply_to = optarg; break;
		case 'k': sketch = 1; break;
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
					    "  refuses (exit 2, naming each reason) runs that are a sketch:\n"
					    "  every row emulated, every row on ganesha, writeback scaled\n"
					    "  from the kernel's defaults, a file not settled, fewer than 5\n"
					    "  runs of a command; --sketch writes it marked as one\n"
					    "       stalewin-report mail --check FILE  (72 columns, no tabs,\n"
					    "  every reproduce command parses with bash -n)\n");
		}
	}
	int n = argc - optind;
	if (sw_cli_check_runs("mail", n, SW_SUMMARY_MAX_RUNS))
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
	return mail_out(n, argv + optind, &h, subj, sizeof(subj), sketch);
}
