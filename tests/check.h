/* SPDX-License-Identifier: MIT */
/* check.h - the one assertion and the one case runner of the C tests
 * (kselftest_harness.h as the model, much smaller).
 *
 *   CHECK(cond[, fmt, ...])  prints "FAIL file:line: <fmt, or cond's
 *                            text>" on stdout, counts it and goes on: a
 *                            test reports every failed check, then
 *                            exits 1.
 *
 * Named cases, each runnable alone:
 *   SW_CASE(name) { ... }    a case: a function body of CHECKs.
 *   SW_VARIANTS(name, table, fn)
 *                            one case per row of the array table (its
 *                            rows a struct with a const char *name, set
 *                            by a designated initializer), named
 *                            name/<row's name> and run as fn(&table[i]).
 *   SW_MAIN()                the test's main(): runs every case in the
 *                            order written, prints "ok   NAME" or
 *                            "FAIL NAME" for each and a summary line,
 *                            exits 1 when a CHECK failed.  Options:
 *                              --case PATTERN  only the cases matching it
 *                                              (also SW_TEST_CASE=PATTERN:
 *                                              a glob, or a comma-separated
 *                                              list of globs, matched
 *                                              against NAME and against
 *                                              the table's name)
 *                              --list          the case names, one a line
 * Cases register themselves before main (a constructor each); a test
 * with its own main uses CHECK alone and ends with check_finish. */
#ifndef STALEWIN_TESTS_CHECK_H
#define STALEWIN_TESTS_CHECK_H

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

__attribute__((format(printf, 4, 5), unused)) static void
sw_check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
	/* fmt is " " followed by the caller's format, if any (CHECK) */
	printf("FAIL %s:%d: ", file, line);
	if (fmt[1]) {
		va_list ap;
		va_start(ap, fmt);
		vprintf(fmt + 1, ap);
		va_end(ap);
	} else {
		fputs(cond, stdout);
	}
	putchar('\n');
	failures++;
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			sw_check_failed(__FILE__, __LINE__, #cond, " " __VA_ARGS__); \
	} while (0)

/* End of a test with its own main: remove tmpdir (NULL: none), print the
 * count of failures or pass_msg, return the exit code. */
static inline int check_finish(const char *tmpdir, const char *pass_msg)
{
	char cmd[4200];
	if (tmpdir && (snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir), system(cmd)))
		fprintf(stderr, "warning: could not remove %s\n", tmpdir);
	if (failures)
		printf("%d failures\n", failures);
	else
		printf("%s\n", pass_msg);
	return failures ? 1 : 0;
}

/* A registered case: one SW_CASE (rows NULL), or one table of
 * SW_VARIANTS: n rows of size bytes at rows, name_of giving a row's name. */
struct sw_case {
	const char *name;
	void (*run)(const void *row);
	const void *rows;
	size_t n, size;
	const char *(*name_of)(const void *row);
	struct sw_case *next;
};

static struct sw_case *sw_cases, **sw_cases_end = &sw_cases;

__attribute__((unused)) static void sw_case_register(struct sw_case *c)
{
	*sw_cases_end = c;
	sw_cases_end = &c->next;
}

#define SW_CASE(id)                                                            \
	static void sw_case_fn_##id(void);                                     \
	static void sw_case_run_##id(const void *row)                          \
	{                                                                      \
		(void)row;                                                     \
		sw_case_fn_##id();                                             \
	}                                                                      \
	static struct sw_case sw_case_##id = { .name = #id,                    \
					       .run = sw_case_run_##id };      \
	__attribute__((constructor)) static void sw_case_reg_##id(void)        \
	{                                                                      \
		sw_case_register(&sw_case_##id);                               \
	}                                                                      \
	static void sw_case_fn_##id(void)

#define SW_VARIANTS(id, table, fn)                                             \
	static void sw_case_run_##id(const void *row) { fn(row); }             \
	static const char *sw_case_name_##id(const void *row)                  \
	{                                                                      \
		return ((const __typeof__((table)[0]) *)row)->name;            \
	}                                                                      \
	static struct sw_case sw_case_##id = {                                 \
		.name = #id, .run = sw_case_run_##id, .rows = (table),         \
		.n = sizeof(table) / sizeof((table)[0]),                       \
		.size = sizeof((table)[0]), .name_of = sw_case_name_##id };    \
	__attribute__((constructor)) static void sw_case_reg_##id(void)        \
	{                                                                      \
		sw_case_register(&sw_case_##id);                               \
	}

/* 1 when the case named group (a table's name) or group/row is selected
 * by pattern (NULL: every case) */
__attribute__((unused)) static int sw_case_selected(const char *pattern, const char *group,
						     const char *full)
{
	if (!pattern)
		return 1;
	char pats[512];
	snprintf(pats, sizeof(pats), "%s", pattern);
	for (char *save = NULL, *p = strtok_r(pats, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (!fnmatch(p, full, 0) || !fnmatch(p, group, 0))
			return 1;
	return 0;
}

/* Runs (or lists) the cases pattern selects; returns the exit code. */
__attribute__((unused)) static int sw_cases_main(const char *prog, const char *pattern, int list)
{
	int ran = 0, failed = 0, total = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct sw_case *c = sw_cases; c; c = c->next) {
		for (size_t i = 0; i < (c->rows ? c->n : 1); i++) {
			const void *row = c->rows ? (const char *)c->rows + i * c->size : NULL;
			char full[256];
			if (row)
				snprintf(full, sizeof(full), "%s/%s", c->name, c->name_of(row));
			else
				snprintf(full, sizeof(full), "%s", c->name);
			total++;
			if (!sw_case_selected(pattern, c->name, full))
				continue;
			if (list) {
				puts(full);
				continue;
			}
			int before = failures;
			c->run(row);
			ran++;
			if (failures > before)
				failed++;
			printf("%s %s\n", failures > before ? "FAIL" : "ok  ", full);
		}
	}
	if (list)
		return 0;
	if (pattern && !ran) {
		printf("FAIL %s: no case matches '%s' (--list names them)\n", prog, pattern);
		return 1;
	}
	if (failed)
		printf("FAIL %s: %d of %d cases failed (%d checks)\n", prog, failed, ran, failures);
	else if (ran < total)
		printf("PASS %s: %d of %d cases\n", prog, ran, total);
	else
		printf("PASS %s: %d cases\n", prog, ran);
	return failed ? 1 : 0;
}

#define SW_MAIN()                                                              \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		const char *pattern = getenv("SW_TEST_CASE"), *prog;           \
		int list = 0;                                                  \
		prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0]; \
		if (pattern && !*pattern)                                      \
			pattern = NULL;                                        \
		for (int i = 1; i < argc; i++) {                               \
			if (!strcmp(argv[i], "--case") && i + 1 < argc)        \
				pattern = argv[++i];                           \
			else if (!strcmp(argv[i], "--list"))                   \
				list = 1;                                      \
			else {                                                 \
				fprintf(stderr, "%s: expected --case PATTERN or --list, saw '%s'\n", \
					prog, argv[i]);                        \
				return 2;                                      \
			}                                                      \
		}                                                              \
		return sw_cases_main(prog, pattern, list);                     \
	}

#endif
