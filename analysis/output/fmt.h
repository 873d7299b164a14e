/* SPDX-License-Identifier: MIT */
/* fmt.h - shared by the format modules. */
#ifndef STALEWIN_FMT_H
#define STALEWIN_FMT_H
#include "report.h"
int64_t sw_fig_quantile(const struct sw_fig *f, double q);
double sw_fig_share_above(const struct sw_fig *f, int64_t v);
double sw_fig_cdf(const struct sw_fig *f, int64_t v);
void sw_fmt_q(char *buf, int len, const struct sw_fig *f, double q);
/* i-th figure of the table (0 truth, observers, replays, kread), NULL past
 * the end; kind 0 truth 1 observed 2 replay 3 kernel mount. */
const struct sw_fig *sw_fig_at(const struct sw_summary *S, int i, int *kind);
/* "mtime+ctime" for a SW_ATTR_* mask */
void sw_mask_name(char *buf, int len, uint32_t m);
#include <jansson.h>
json_t *sw_fig_json(const struct sw_fig *g, int kind);
json_t *sw_summary_json(const struct sw_summary *S, int exit_code);
#endif
