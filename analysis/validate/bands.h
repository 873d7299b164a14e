/* SPDX-License-Identifier: MIT */
/*
 * bands.h - the bands and verdicts of `stalewin validate`: the model's
 * figures against the real kernel's, pair by pair (analysis/README.md says
 * why each band).  Was scripts/validate.jq; the JSON it writes is the same.
 *
 * Bands: p50/p90 within 10 % or one resolution, whichever is larger; max
 * within one writeback interval (a kernel reader: its acregmin); uncovered
 * within 10 % or 2; updates within 1 per 10 s of run (at least 1).  A
 * figure that is null in a report (">end": the percentile falls among
 * uncovered stores) equals only null.
 *
 * Every function returns a new reference, or NULL with a message in err
 * (expected ..., saw ...).  Times are ns on the writer's clock unless a
 * name says _ms or _s.
 */
#ifndef SW_BANDS_H
#define SW_BANDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* One pair of a host or a guest: the model's report against the real one. */
struct sw_band_pair {
	const char *name, *fs, *workload, *load; /* workload: its options */
	json_t *writeback_ms, *expire_ms, *duration_s, *resolution_ms; /* numbers */
	json_t *lead_s;          /* number or NULL: first store after creation */
	json_t *model, *real;    /* report.json of each side */
	json_t *sweep;           /* stalewin-model-sweep on the real stores, or NULL */
	json_t *replay_start;    /* the sweep on the model run's own stores, */
	json_t *replay_end;      /* store time start / end; NULL: none */
	json_t *runs;            /* sw_band_runs(), or NULL */
	const char *host_trace;  /* the host's writeback_start lines during
				    the pair (tracefs), or NULL: not traced */
	const char *bdi;         /* the native side's disk, "MAJ:MIN" */
};

/* Writebacks of disk bdi ("MAJ:MIN") in a trace that neither the flusher's
 * periodic nor its background runs made: another process's sync() or
 * syncfs(), reclaim, a laptop timer: {"sync": N, "vmscan": N, "other": N},
 * the model knows none of them.  NULL with err when the file is unreadable. */
json_t *sw_band_disturbance(const char *trace, const char *bdi, char *err, size_t errlen);

/* A report's truth figures: {stores, uncovered, p50, p90, p99, max, updates}. */
json_t *sw_band_side(json_t *report, char *err, size_t errlen);
/* The pair's row: figures, sweep, relative errors, within, fails. */
json_t *sw_band_row(const struct sw_band_pair *p, char *err, size_t errlen);
/* A VM run's report: a row per kernel reader, its replay against it. */
json_t *sw_band_kread(json_t *report, const char *run, json_t *every_ms,
		      const char *load, char *err, size_t errlen);
/* A row for a pair whose runs failed. */
json_t *sw_band_failed(const char *name);
/* The 1-based index of the report whose truth p50 is the median (">end"
 * above every figure; the lower middle for an even count); 0 on error. */
size_t sw_band_median_run(json_t *const *reports, size_t n, char *err, size_t errlen);
/* {model: [sides], real: [sides], compared: {model, real}} */
json_t *sw_band_runs(json_t *const *model, size_t nm, json_t *const *real, size_t nr,
		     const char *cmp_model, const char *cmp_real, char *err, size_t errlen);
/* The validate object over rows (objects, or arrays of them: flattened);
 * vm_note: why --vm pairs were skipped, or NULL. */
json_t *sw_band_summary(json_t *const *rows, size_t n, const char *run_id,
			const char *load, const char *vm_note);
/* 0 all pairs within bands and complete, 1 a pair outside, 3 within but
 * --vm pairs skipped (the exit status of `stalewin validate`). */
int sw_band_verdict(json_t *summary);

/* bands_fmt.c: the text of a row (each line ends in \n) and the footer. */
int sw_band_line(FILE *f, json_t *row);
int sw_band_footer(FILE *f, json_t *summary);

/* bands_cli.c: `stalewin-report validate MODE ...`; the exit status. */
int sw_validate_main(int argc, char **argv);

#endif
