/* SPDX-License-Identifier: MIT */
/* mailcheck.c - whether runs are evidence to post or a sketch, the caveats
 * a mail carries, and the reproduce commands as a reader pastes them
 * (mailfacts.h). */
#include <stdio.h>
#include <string.h>

#include "mailfacts.h"

/* "a, b, c" of the rows where keep(i) */
static void rows_where(const struct sw_runrow *rows, int n, const int *keep, char *dst, size_t len)
{
	size_t used = 0;
	dst[0] = 0;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = keep[j] && !strcmp(rows[j].label, rows[i].label);
		if (!keep[i] || seen)
			continue;
		int w = snprintf(dst + used, len - used, "%s%s", used ? ", " : "", rows[i].label);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

void sw_mail_refusals(const struct sw_runrow *rows, const struct sw_runfacts *fa, int n,
		      struct sw_findings *out, struct sw_findings *cav)
{
	int keep[SW_REPEAT_MAX] = { 0 }, emulated = 0, ganesha = 0, k = 0;
	char list[900];
	memset(out, 0, sizeof(*out));
	memset(cav, 0, sizeof(*cav));
	if (n > SW_REPEAT_MAX)
		n = SW_REPEAT_MAX;
	for (int i = 0; i < n; i++) {
		emulated += fa[i].emulated;
		ganesha += !strcmp(fa[i].server, "ganesha");
	}
	if (n && emulated == n)
		sw_findings_add(out, "every row is emulated by the writer: no row measures a kernel's "
		    "timestamps (vm run on the stock or patched guest kernels does).");
	if (n && ganesha == n)
		sw_findings_add(out, "every row is served by nfs-ganesha on this host: no row has the "
		    "kernel's NFS server and client (vm run has both).");
	/* writeback scaled from the kernel's defaults */
	for (int i = 0; i < n; i++) {
		keep[i] = fa[i].wb_ms >= 0 && fa[i].expire_ms >= 0 &&
			  (fa[i].wb_ms != SW_KERNEL_WB_MS || fa[i].expire_ms != SW_KERNEL_EXPIRE_MS);
		k += keep[i];
	}
	if (k) {
		int i = 0;
		while (!keep[i])
			i++;
		rows_where(rows, n, keep, list, sizeof(list));
		sw_findings_add(out, "writeback scaled from the kernel's defaults (writeback every %.1f s, "
		    "expire %.1f s; the kernel's %d s and %d s, so times scale by about x%.0f) "
		    "in: %s.", fa[i].wb_ms / 1e3, fa[i].expire_ms / 1e3, SW_KERNEL_WB_MS / 1000,
		    SW_KERNEL_EXPIRE_MS / 1000,
		    fa[i].expire_ms > 0 ? (double)SW_KERNEL_EXPIRE_MS / (double)fa[i].expire_ms : 0.0, list);
	}
	/* a file not settled at the writer's set-up */
	k = 0;
	for (int i = 0; i < n; i++)
		k += keep[i] = fa[i].settled == 0;
	if (k) {
		rows_where(rows, n, keep, list, sizeof(list));
		sw_findings_add(out, "the file was not settled at the writer's set-up (changed less than "
		    "2 expire + 10 writeback + commit before it: the writeback's phase at the "
		    "first store then turns on how long before; vm run --lead) in: %s.", list);
	}
	/* fewer than SW_MAIL_MIN_REPEATS runs of a row's command */
	struct sw_repeat g[SW_REPEAT_GROUPS];
	int ng = sw_runrow_repeats(rows, n, g, SW_REPEAT_GROUPS);
	k = 0;
	for (int i = 0; i < n; i++) {
		int runs = 1;
		for (int j = 0; j < ng; j++)
			if (!strcmp(rows[g[j].first].same, rows[i].same))
				runs = g[j].n;
		keep[i] = runs < SW_MAIL_MIN_REPEATS;
		/* a group once: its first row names it */
		for (int j = 0; j < i && keep[i]; j++)
			if (rows[j].same[0] && !strcmp(rows[j].same, rows[i].same))
				keep[i] = 0;
		k += keep[i];
	}
	if (k) {
		rows_where(rows, n, keep, list, sizeof(list));
		sw_findings_add(out, "fewer than %d runs of one command (one run is one draw; the median "
		    "of repeats with its interval is what to post): %s.", SW_MAIL_MIN_REPEATS, list);
	}
	/* caveats the reports carry */
	k = 0;
	for (int i = 0; i < n; i++)
		k += keep[i] = fa[i].emulated && !fa[i].validated;
	if (k) {
		rows_where(rows, n, keep, list, sizeof(list));
		sw_findings_add(cav, "the writeback model of these emulated rows rests on no validate run "
		    "(stalewin validate; report --validation FILE): %s.", list);
	}
	k = 0;
	for (int i = 0; i < n; i++)
		k += keep[i] = fa[i].tcg;
	if (k) {
		rows_where(rows, n, keep, list, sizeof(list));
		sw_findings_add(cav, "these rows ran in qemu TCG guests (an emulated CPU): their counts "
		    "and ratios hold, their trap latencies are not shown (tcg): %s.", list);
	}
}

/* does w start with the checkout's folder top ("top/..." or top itself)? */
static const char *under(const char *w, const char *top)
{
	size_t t = top ? strlen(top) : 0;
	while (t > 1 && top[t - 1] == '/')
		t--;
	if (!t || strncmp(w, top, t) || (w[t] != '/' && w[t] != 0))
		return NULL;
	return w[t] == '/' ? w + t + 1 : w + t;
}

void sw_mail_command(const char *cmd, const char *top, char *dst, size_t n)
{
	size_t used = 0;
	int next_is_out = 0;
	char word[1024];
	const char *p = cmd;
	dst[0] = 0;
	for (int i = 0; *p; i++) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " ");
		if (!len)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) ? len : sizeof(word) - 1), p);
		p += len;
		const char *w = word, *rel, *base = strrchr(word, '/');
		char tmp[1100];
		if (i == 0 && base && !strcmp(base, "/stalewin-run"))
			w = "./stalewin run";
		else if (i == 0 && base && !strcmp(base, "/run.sh") && base - word >= 3 &&
			 !strncmp(base - 3, "/vm", 3))
			w = "./stalewin vm run";
		else if (next_is_out && base)
			w = base + 1; /* a run folder: its name */
		else if ((rel = under(word, top))) {
			snprintf(tmp, sizeof(tmp), "%s", *rel ? rel : ".");
			w = tmp;
		} else if (!strncmp(word, "--out=", 6) && (base = strrchr(word + 6, '/'))) {
			snprintf(tmp, sizeof(tmp), "--out=%s", base + 1);
			w = tmp;
		}
		next_is_out = !strcmp(word, "--out");
		int wr = snprintf(dst + used, n - used, "%s%s", used ? " " : "", w);
		if (wr < 0 || (size_t)wr >= n - used)
			break;
		used += (size_t)wr;
	}
}
