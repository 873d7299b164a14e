/* SPDX-License-Identifier: MIT */
/*
 * model_int.h - what the writeback model's files share (model.c,
 * model_clock.c, model_fprop.c, model_journal.c); not for the model's
 * users (model.h).
 */
#ifndef STALEWIN_MODEL_INT_H
#define STALEWIN_MODEL_INT_H

#include <stdint.h>

#include "model.h"

/* model_clock.c: the kernel's jiffies and timer wheel */
int64_t swm_floor_div(int64_t a, int64_t b);
int64_t swm_jiffy_len(const struct sw_model *m);     /* mono ns a jiffy lasts */
int64_t swm_jiffies_at(const struct sw_model *m, int64_t t_mono_ns);
int64_t swm_jiffy_start(const struct sw_model *m, int64_t j); /* mono ns */
int64_t swm_wheel_fires(int64_t now, int64_t expires);        /* jiffies */
int swm_passed(const struct sw_model *m, int64_t since_mono_ns, int64_t now_mono_ns,
	       int64_t interval_ns);

/* model_fprop.c: the wb's writeout share */
void swm_fprop_writeout(struct sw_model *m, int64_t t_mono_ns, int64_t n);
int swm_bg_over(struct sw_model *m, int64_t t_mono_ns);

/* model_journal.c: ext4's journal (jbd2) and the atime handles */
void swm_journal_start(struct sw_model *m, int64_t t_mono_ns);  /* a handle */
void swm_journal_update(struct sw_model *m, int64_t t_mono_ns); /* inode journaled */
void swm_journal_commit(struct sw_model *m, int64_t t_mono_ns); /* commit starts */
void swm_commit_done(struct sw_model *m, int64_t t_mono_ns);    /* commit ends */
int64_t swm_commit_len(const struct sw_model *m, int64_t t_start_mono_ns); /* ns */
void swm_atime_read(struct sw_model *m, int64_t t_mono_ns);     /* NFS read's atime */
int64_t swm_atime_after(const struct sw_model *m, int64_t t_update_mono_ns);
int64_t swm_atime_next(struct sw_model *m, int64_t t_mono_ns); /* traced */

#endif
