/* SPDX-License-Identifier: MIT */
/* mail.c - `stalewin mail`: RFC 5322 headers and a plain-text body wrapped
 * at 72 columns (method, environment, the summary table, findings, how to
 * reproduce) from the rows, facts and findings of pass/mailfacts.c. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "mailfacts.h"
#include "runrow.h"

#define WIDTH 72

/* Words of text on lines of at most WIDTH columns, the first line after
 * lead, the rest after indent; cont (if not NULL) ends every line but the
 * last (" \\" for a shell command).  A word longer than a line is cut,
 * but never in a shell command (cont given): one long line beats a
 * command that pastes as another. */
void sw_fmt_wrap(FILE *f, const char *lead, const char *indent, const char *cont,
		 const char *text)
{
	int col = fprintf(f, "%s", lead), start = col;
	int cw = cont ? (int)strlen(cont) : 0, in = (int)strlen(indent);
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		int len = (int)strcspn(p, " ");
		if (!len)
			break;
		if (col > start && col + 1 + len + cw > WIDTH) {
			fprintf(f, "%s\n%s", cont ? cont : "", indent);
			col = start = in;
		}
		while (!cont && col == start && col + len + cw > WIDTH) {
			int room = WIDTH - col - cw;
			fprintf(f, "%.*s%s\n%s", room, p, cont ? cont : "", indent);
			p += room;
			len -= room;
			col = start = in;
		}
		col += fprintf(f, "%s%.*s", col > start ? " " : "", len, p);
		p += len;
	}
	fputc('\n', f);
}

/* s after dst's *used bytes (sep before it unless dst is empty): 0, or -1
 * when it does not fit (the lists stop there) */
static int join(char *dst, size_t n, size_t *used, const char *sep, const char *s)
{
	int w = snprintf(dst + *used, n - *used, "%s%s", *used ? sep : "", s);
	if (w < 0 || (size_t)w >= n - *used)
		return -1;
	*used += (size_t)w;
	return 0;
}

/* distinct values of one field over the runs, "a, b" */
static void distinct(char *dst, size_t n, const struct sw_runfacts *facts, int nr,
		     size_t off)
{
	size_t used = 0;
	dst[0] = 0;
	for (int i = 0; i < nr; i++) {
		const char *v = (const char *)&facts[i] + off;
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(v, (const char *)&facts[j] + off);
		if (seen || !v[0])
			continue;
		if (join(dst, n, &used, "; ", v))
			break;
	}
	if (!dst[0])
		snprintf(dst, n, "unknown");
}
#define DISTINCT(buf, fa, n, field) \
	distinct(buf, sizeof(buf), fa, n, offsetof(struct sw_runfacts, field))

static void method(FILE *f, const struct sw_runrow *rows, const struct sw_runfacts *fa, int n)
{
	char wl[1024], pol[2048] = "", buf[4096];
	size_t used = 0;
	DISTINCT(wl, fa, n, workload);
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(fa[i].policy, fa[j].policy) && !strcmp(fa[i].realised, fa[j].realised);
		if (seen)
			continue;
		char one[sizeof(fa[i].policy) + sizeof(fa[i].realised) + 8];
		snprintf(one, sizeof(one), "%s (%s)", fa[i].policy,
			 fa[i].realised[0] ? fa[i].realised : "unknown");
		if (join(pol, sizeof(pol), &used, ", ", one))
			break;
	}
	char dur[256] = "";
	used = 0;
	for (int i = 0; i < n; i++) {
		char one[32];
		snprintf(one, sizeof(one), "%.0f s", fa[i].duration_s);
		if (strstr(dur, one))
			continue;
		if (join(dur, sizeof(dur), &used, " or ", one))
			break;
	}
	snprintf(buf, sizeof(buf),
		 "A writer stored into a shared mapping of a file exported over NFS "
		 "and logged every store and every change of the file's timestamps "
		 "(the truth). Workload: %s; %s per run, %d run%s. Timestamp "
		 "policies and how each was realised: %s. An emulated policy follows "
		 "the writer's writeback model; a probe polled the file's attributes "
		 "over NFS, and the client views come from a kernel NFS client "
		 "reading through a mount where one ran, else from a replay of the "
		 "Linux client's attribute-cache rules over the writer's timestamp updates.",
		 wl, dur, n, n == 1 ? "" : "s", pol);
	(void)rows;
	sw_fmt_wrap(f, "", "", NULL, buf);
}

static void env_line(FILE *f, const char *name, const char *val)
{
	char lead[32];
	snprintf(lead, sizeof(lead), "  %-10s ", name);
	sw_fmt_wrap(f, lead, "             ", NULL, val);
}

static void environment(FILE *f, const struct sw_runfacts *fa, int n)
{
	char b[2048], wb[1024] = "", c[256] = "";
	size_t used = 0;
	fputs("\nEnvironment\n", f);
	DISTINCT(b, fa, n, kernel);
	env_line(f, "kernel:", b);
	b[0] = 0;
	for (int i = 0; i < n; i++) {
		char one[352];
		snprintf(one, sizeof(one), "%s (%s)", fa[i].fs, fa[i].fs_opts[0] ? fa[i].fs_opts : "-");
		if (!strstr(b, one)) {
			size_t u = strlen(b);
			snprintf(b + u, sizeof(b) - u, "%s%s", u ? "; " : "", one);
		}
	}
	env_line(f, "fs:", b);
	for (int i = 0; i < n; i++) {
		char one[256];
		if (fa[i].model_wb_ms >= 0 && fa[i].realised[0] == 'e')
			snprintf(one, sizeof(one), "model: writeback every %lld ms, expire %lld ms",
				 (long long)fa[i].model_wb_ms, (long long)fa[i].model_expire_ms);
		else
			snprintf(one, sizeof(one), "host: dirty_writeback_centisecs=%lld "
				 "dirty_expire_centisecs=%lld%s", (long long)fa[i].host_wb_cs,
				 (long long)fa[i].host_expire_cs,
				 fa[i].sysctl_pinned ? " (pinned to the model's values for the run)" : "");
		if (strstr(wb, one))
			continue;
		if (join(wb, sizeof(wb), &used, "; ", one))
			break;
	}
	env_line(f, "writeback:", wb);
	DISTINCT(b, fa, n, nfs);
	env_line(f, "nfs:", b);
	DISTINCT(b, fa, n, mounts);
	if (strcmp(b, "unknown"))
		env_line(f, "mounts:", b);
	DISTINCT(b, fa, n, packages);
	env_line(f, "packages:", b);
	int64_t err = -1;
	for (int i = 0; i < n; i++)
		if (fa[i].clock_err_ns > err)
			err = fa[i].clock_err_ns;
	if (err < 0)
		snprintf(c, sizeof(c), "writer and clients on one host (one clock)");
	else
		snprintf(c, sizeof(c), "offset error at most %.1f us (clock.json)", (double)err / 1e3);
	env_line(f, "clock:", c);
}

static void reproduce(FILE *f, const struct sw_runrow *r, const struct sw_runfacts *fa)
{
	fprintf(f, "  # %s\n", r->label);
	if (fa->sysctl_pinned) /* the run saw these; the host's differ */
		fprintf(f, "  sysctl -w vm.dirty_writeback_centisecs=%lld \\\n"
			"      vm.dirty_expire_centisecs=%lld   # restore afterwards\n",
			(long long)fa->host_wb_cs, (long long)fa->host_expire_cs);
	sw_fmt_wrap(f, "  ", "      ", " \\", fa->command[0] ? fa->command : "(unknown)");
}

void sw_fmt_mail(FILE *f, const struct sw_mail_hdr *h, const struct sw_runrow *rows,
		 const struct sw_runfacts *fa, int n, unsigned dims,
		 const struct sw_findings *fi)
{
	/* long header values folded (RFC 5322 2.2.3: a line break before
	 * white space) */
	sw_fmt_wrap(f, "From: ", " ", NULL, h->from);
	sw_fmt_wrap(f, "To: ", " ", NULL, h->to);
	if (h->cc)
		sw_fmt_wrap(f, "Cc: ", " ", NULL, h->cc);
	sw_fmt_wrap(f, "Subject: ", " ", NULL, h->subject);
	if (h->in_reply_to)
		fprintf(f, "In-Reply-To: %s\nReferences: %s\n", h->in_reply_to, h->in_reply_to);
	fprintf(f, "Date: %s\nMIME-Version: 1.0\n", h->date);
	if (h->nattach) /* the plots as parts of their own (attach.c) */
		fprintf(f, "Content-Type: multipart/mixed; boundary=\"%s\"\n\n"
			"This is a message in MIME format: its text, then its plots.\n\n--%s\n",
			SW_MIME_BOUNDARY, SW_MIME_BOUNDARY);
	fputs("Content-Type: text/plain; charset=utf-8\n"
	      "Content-Transfer-Encoding: 8bit\n\n", f);
	if (h->sketch && h->sketch->n) {
		fputs("SKETCH, not evidence to post, because:\n", f);
		for (int i = 0; i < h->sketch->n; i++)
			sw_fmt_wrap(f, "- ", "  ", NULL, h->sketch->text[i]);
		fputc('\n', f);
	}
	if (h->study_name) {
		fprintf(f, "TL;DR\n%s\nVerdict\n%s\n", h->tldr, h->verdict);
	}
	method(f, rows, fa, n);
	environment(f, fa, n);
	if (h->study_name) {
		fprintf(f, "\nCells (each run's figure, over the runs of a cell)\n%s", h->cells);
		if (!h->nattach)
			sw_fmt_ascii_cdf(f, rows, fa, n);
	} else {
		fputs("\nResults\n", f);
		sw_fmt_summary_text(f, rows, n, dims);
		if (!h->nattach)
			sw_fmt_ascii_cdf(f, rows, fa, n);
		fputs("\nFindings\n", f);
		if (!fi->n)
			fputs("  none beyond the table.\n", f);
		for (int i = 0; i < fi->n; i++)
			sw_fmt_wrap(f, "- ", "  ", NULL, fi->text[i]);
	}
	if (h->caveats && h->caveats->n) {
		fputs("\nCaveats\n", f);
		for (int i = 0; i < h->caveats->n; i++)
			sw_fmt_wrap(f, "- ", "  ", NULL, h->caveats->text[i]);
	}
	if (h->cost)
		fputs(h->cost, f);
	if (h->study_name) {
		fprintf(f, "\nThe plan (%s/plan.ini)\n", h->study_name);
		/* as the file has it; a comment over 72 columns goes on over
		 * lines that stay comments, keys and values as they are */
		for (const char *l = h->plan; *l;) {
			size_t k = strcspn(l, "\n");
			char line[1024];
			snprintf(line, sizeof(line), "%.*s", (int)(k < sizeof(line) - 1 ? k : sizeof(line) - 1), l);
			if ((line[0] == ';' || line[0] == '#') && k > WIDTH) {
				char cont[8];
				snprintf(cont, sizeof(cont), "%c ", line[0]);
				sw_fmt_wrap(f, "", cont, NULL, line);
			} else {
				fprintf(f, "%s\n", line);
			}
			l += k + (l[k] == '\n');
		}
		fputs("\nTo reproduce (as root, from a stalewin checkout)\n", f);
		fprintf(f, "  ./stalewin study %s/plan.ini --out %s-again\n", h->study_name, h->study_name);
		fprintf(f, "  ./stalewin verdict %s-again\n", h->study_name);
		fprintf(f, "  ./stalewin mail %s-again\n", h->study_name);
	} else {
		fputs("\nTo reproduce (as root, from a stalewin checkout; run folders by name)\n", f);
		for (int i = 0; i < n; i++)
			reproduce(f, &rows[i], &fa[i]);
	}
	if (h->nattach) {
		fputs("\nPlots (attached)\n", f);
		for (int i = 0; i < h->nattach; i++) {
			const char *b = strrchr(h->attach[i], '/');
			sw_fmt_wrap(f, "  ", "    ", NULL, b ? b + 1 : h->attach[i]);
		}
	}
	fputs("\n-- \nstalewin (summary and mail generated from the run folders)\n", f);
}
