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

static int mail_out(int n, char **dirs, struct sw_mail_hdr *h, char *subj, size_t subjn)
{
	struct sw_runrow *rows = calloc((size_t)n, sizeof(*rows));
	struct sw_runfacts *fa = calloc((size_t)n, sizeof(*fa));
	struct sw_findings *fi = malloc(sizeof(*fi));
	struct sw_summary *S = malloc(sizeof(*S));
	int rc = 1;
	if (!rows || !fa || !fi || !S)
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
	unsigned dims = sw_runrow_label(rows, n);
	sw_findings_compute(rows, fa, n, fi);
	if (!h->subject) {
		default_subject(subj, subjn, rows, n);
		h->subject = subj;
	}
	sw_fmt_mail(stdout, h, rows, fa, n, dims, fi);
	if (fflush(stdout)) {
		perror("stalewin-report mail: stdout");
		rc = 1;
	}
out:
	free(rows);
	free(fa);
	free(fi);
	free(S);
	return rc;
}

int sw_mail_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "to", 1, 0, 't' }, { "from", 1, 0, 'f' }, { "subject", 1, 0, 's' },
		{ "date", 1, 0, 'd' }, { "attach", 1, 0, 'a' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 } };
	static const char *attach[MAX_ATTACH];
	char from[320], date[64], subj[256], host[256] = "localhost";
	struct sw_mail_hdr h = { .to = "linux-nfs@vger.kernel.org", .attach = attach };
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "t:f:s:d:a:h", lo, NULL)) != -1) {
		switch (o) {
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
					    "         [--subject S] [--date RFC5322-DATE] [--attach FILE]...\n");
		}
	}
	int n = argc - optind;
	if (sw_cli_check_runs("mail", n, SW_SUMMARY_MAX_RUNS))
		return 2;
	for (const char *s = h.subject; s && *s; s++)
		if (*s == '\n' || *s == '\r') {
			fputs("stalewin-report mail: expected a one-line --subject, saw a line break\n",
			      stderr);
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
	return mail_out(n, argv + optind, &h, subj, sizeof(subj));
}
