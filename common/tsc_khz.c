/* SPDX-License-Identifier: MIT */
/*
 * stalewin-tsc-khz: the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW, for the guests' tsc_early_khz= (vm/qemu.sh).
 *
 * Under qemu TCG a guest's RDTSC reads the host's TSC (cpu_get_ticks() ->
 * cpu_get_host_ticks()), so the guest's TSC runs at the host's rate.  A
 * guest kernel calibrates it against the PIT, which under TCG fails in
 * about one boot of three; without an HPET or PM timer to fall back on
 * (the patched kernel has no ACPI) the TSC is then marked unstable and the
 * guest keeps time in jiffies.  Given tsc_early_khz the kernel skips that
 * calibration (determine_cpu_tsc_frequencies, arch/x86/kernel/tsc.c).
 *
 *   stalewin-tsc-khz [--window-ms MS]   prints one integer (kHz)
 *
 * Each end of the window is the TSC read between two clock reads, taken
 * as the tightest of 50 tries, so a preemption in one try costs nothing;
 * three windows, the median printed.  Exit 1 when the host has no usable
 * TSC (not x86, or the three windows disagree by more than 50 ppm: a TSC
 * that does not run at a constant rate), 2 on bad arguments.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static int have_tsc(void) { return 1; }
static uint64_t tsc(void) { return __rdtsc(); }
#else
static int have_tsc(void) { return 0; }
static uint64_t tsc(void) { return 0; }
#endif

static int64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct sample {
	int64_t t_raw_ns;  /* CLOCK_MONOTONIC_RAW, midpoint of the two reads */
	uint64_t tsc;      /* TSC read between them */
	int64_t window_ns; /* the two clock reads apart */
};

static struct sample tight_sample(void)
{
	struct sample best = { 0, 0, INT64_MAX };
	int i;

	for (i = 0; i < 50; i++) {
		int64_t a = raw_ns();
		uint64_t c = tsc();
		int64_t b = raw_ns();

		if (b - a < best.window_ns) {
			best.t_raw_ns = a + (b - a) / 2;
			best.tsc = c;
			best.window_ns = b - a;
		}
	}
	return best;
}

static double measure_khz(int window_ms)
{
	struct timespec d = { window_ms / 1000, (long)(window_ms % 1000) * 1000000 };
	struct sample s0 = tight_sample(), s1;

	while (nanosleep(&d, &d) && errno == EINTR)
		;
	s1 = tight_sample();
	if (s1.t_raw_ns <= s0.t_raw_ns || s1.tsc <= s0.tsc)
		return 0;
	return (double)(s1.tsc - s0.tsc) * 1e6 / (double)(s1.t_raw_ns - s0.t_raw_ns);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int window_ms = 200, i;
	double khz[3];

	for (i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--window-ms") && i + 1 < argc) {
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 10 || v > 10000) {
				fprintf(stderr, "stalewin-tsc-khz: --window-ms: expected 10..10000, got '%s'\n",
					argv[i]);
				return 2;
			}
			window_ms = (int)v;
		} else {
			fprintf(stderr, "stalewin-tsc-khz: unknown argument '%s' (expected --window-ms MS)\n",
				argv[i]);
			return 2;
		}
	}
	if (!have_tsc()) {
		fprintf(stderr, "stalewin-tsc-khz: expected an x86 host with a TSC, saw none\n");
		return 1;
	}
	for (i = 0; i < 3; i++)
		khz[i] = measure_khz(window_ms);
	qsort(khz, 3, sizeof(khz[0]), cmp_double);
	if (khz[0] <= 0 || (khz[2] - khz[0]) / khz[1] > 50e-6) {
		fprintf(stderr, "stalewin-tsc-khz: expected three windows within 50 ppm, saw %.0f %.0f %.0f kHz\n",
			khz[0], khz[1], khz[2]);
		return 1;
	}
	printf("%.0f\n", khz[1]);
	return 0;
}
