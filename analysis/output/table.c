/* SPDX-License-Identifier: MIT */
/* table.c - how every sink writes numbers: durations, quantile values,
 * shares, the table's row (text) and its members (JSON).  The figures'
 * statistics themselves are analysis/pass/figstats.c. */
#include <stdio.h>
#include <string.h>

#include "fmt.h"

/* "-" (< 0), "0", "850ns", then three significant digits at most:
 * "1.23us" "12.3us" "123us", ms and s alike. */
void sw_fmt_dur(char *buf, int len, int64_t ns)
{
	static const struct { double unit; const char *name; } u[] = {
		{ 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	double v = (double)ns;
	if (ns <= 0 || ns < 1000) {
		snprintf(buf, len, ns < 0 ? "-" : ns ? "%lldns" : "0", (long long)ns);
		return;
	}
	for (int i = 0; i < 3; i++) {
		double x = v / u[i].unit;
		if (i < 2 && x >= 1000)
			continue;
		snprintf(buf, len, x < 10 ? "%.2f%s" : x < 100 ? "%.1f%s" : "%.0f%s", x,
			 u[i].name);
		return;
	}
}

void sw_fmt_pct(char *b, int len, double share)
{
	if (share <= 0)
		snprintf(b, len, "0");
	else if (share < 0.001)
		snprintf(b, len, "<.1%%");
	else if (share < 0.1)
		snprintf(b, len, "%.1f%%", share * 100);
	else
		snprintf(b, len, "%.0f%%", share * 100);
}

void sw_fmt_qv(char *buf, int len, int64_t v)
{
	if (v == -2)
		snprintf(buf, len, "-");
	else if (v == -1)
		snprintf(buf, len, ">end");
	else
		sw_fmt_dur(buf, len, v);
}

void sw_fmt_fig_row(FILE *f, const char *label, const struct sw_figstats *st)
{
	char q[SW_FIG_NQ][16], s[SW_FIG_NTH][16];
	for (int i = 0; i < SW_FIG_NQ; i++)
		sw_fmt_qv(q[i], sizeof(q[i]), st->q[i]);
	for (int i = 0; i < SW_FIG_NTH; i++)
		sw_fmt_pct(s[i], sizeof(s[i]), st->n ? st->gt[i] : 0);
	fprintf(f, "%-16.16s%6llu%7s%7s%7s%7s%5s%5s%5s%6llu\n", label,
		(unsigned long long)st->n, q[0], q[1], q[2], q[3], s[0], s[1], s[2],
		(unsigned long long)st->unresolved);
}

void sw_figstats_json(json_t *o, const struct sw_figstats *st)
{
	char k[32];
	json_object_set_new(o, "stores", json_integer((json_int_t)st->n));
	json_object_set_new(o, "unresolved", json_integer((json_int_t)st->unresolved));
	for (int i = 0; i < SW_FIG_NQ; i++) {
		snprintf(k, sizeof(k), "%s_ns", sw_fig_q_name[i]);
		json_object_set_new(o, k, st->q[i] < 0 ? json_null()
						       : json_integer((json_int_t)st->q[i]));
	}
	for (int i = 0; i < SW_FIG_NTH; i++) {
		snprintf(k, sizeof(k), "share_gt_%s", sw_fig_th_name[i]);
		json_object_set_new(o, k, json_real(st->gt[i]));
	}
}

void sw_fmt_q(char *buf, int len, const struct sw_fig *f, double q)
{
	sw_fmt_qv(buf, len, sw_fig_quantile(f, q));
}

void sw_mask_name(char *buf, int len, uint32_t m)
{
	snprintf(buf, len, "%s%s%s%s", m & SW_ATTR_SIZE ? "+size" : "",
		 m & SW_ATTR_MTIME ? "+mtime" : "", m & SW_ATTR_CTIME ? "+ctime" : "",
		 m & SW_ATTR_CHANGE ? "+change" : "");
	if (buf[0] == '+')
		memmove(buf, buf + 1, strlen(buf));
}
