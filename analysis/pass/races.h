/* SPDX-License-Identifier: MIT */
/* races.h - READ race hits: old data cached under the trap's new stamps. */
#ifndef STALEWIN_RACES_H
#define STALEWIN_RACES_H
#include "report.h"
#include "runload.h"
void sw_races_read(struct sw_summary *S, const struct sw_input *in);
#endif
