/* SPDX-License-Identifier: MIT */
/*
 * Description: the command-line number rules every program shares
 * (common/parse.c): whole string, no overflow, within range, binary K/M/G/T
 * suffixes where asked, "A-B" ranges with A <= B.  A broken parser shows as
 * trailing text or a '-' accepted, a suffix multiplied wrongly or an
 * overflow wrapped.
 */
#include <math.h>
#include <stdint.h>

#include "parse.h"
#include "check.h"

static void u64(const char *s, int base, unsigned fl, uint64_t lo, uint64_t hi,
		int want_rc, uint64_t want)
{
	uint64_t v = 12345;
	int rc = sw_parse_u64(s, base, fl, lo, hi, &v);
	CHECK(rc == want_rc, "sw_parse_u64(\"%s\"): expected rc %d, saw %d", s, want_rc, rc);
	if (!want_rc)
		CHECK(v == want, "sw_parse_u64(\"%s\"): expected %llu, saw %llu", s,
		      (unsigned long long)want, (unsigned long long)v);
	else
		CHECK(v == 12345, "sw_parse_u64(\"%s\") failed but wrote %llu", s,
		      (unsigned long long)v);
}

int main(void)
{
	double a, b;
	int64_t i;

	u64("42", 10, 0, 0, UINT64_MAX, 0, 42);
	u64("0x10", 0, 0, 0, UINT64_MAX, 0, 16);
	u64("ff", 16, 0, 0, UINT64_MAX, 0, 255);
	u64("", 10, 0, 0, UINT64_MAX, -1, 0);
	u64("-1", 10, 0, 0, UINT64_MAX, -1, 0);
	u64("12x", 10, 0, 0, UINT64_MAX, -1, 0);
	u64("4K", 0, SW_PARSE_SUFFIX, 0, UINT64_MAX, 0, 4096);
	u64("2MiB", 0, SW_PARSE_SUFFIX, 0, UINT64_MAX, 0, 2u << 20);
	u64("1g", 0, SW_PARSE_SUFFIX, 0, UINT64_MAX, 0, 1u << 30);
	u64("4K", 0, 0, 0, UINT64_MAX, -1, 0);
	u64("K", 0, SW_PARSE_SUFFIX, 0, UINT64_MAX, -1, 0);
	u64("4X", 0, SW_PARSE_SUFFIX, 0, UINT64_MAX, -1, 0);
	u64("16777216T", 0, SW_PARSE_SUFFIX, 0, UINT64_MAX, -1, 0); /* 2^64 */
	u64("18446744073709551616", 10, 0, 0, UINT64_MAX, -1, 0);
	u64("0", 10, 0, 1, 10, -1, 0);
	u64("11", 10, 0, 1, 10, -1, 0);
	u64("10", 10, 0, 1, 10, 0, 10);

	CHECK(!sw_parse_i64("-7", -10, 10, &i) && i == -7, "i64 -7");
	CHECK(sw_parse_i64("11", -10, 10, &i), "i64 11 out of range accepted");
	CHECK(sw_parse_i64("", -10, 10, &i), "i64 empty accepted");

	CHECK(!sw_parse_double("2.5", 0, 10, &a) && a == 2.5, "double 2.5");
	CHECK(sw_parse_double("nan", -HUGE_VAL, HUGE_VAL, &a), "NaN accepted");
	CHECK(sw_parse_double("1e3x", 0, 1e9, &a), "trailing text accepted");
	CHECK(sw_parse_double("-1", 0, 10, &a), "-1 below 0 accepted");

	CHECK(!sw_parse_range("30050-30150", &a, &b) && a == 30050 && b == 30150,
	      "range 30050-30150");
	CHECK(sw_parse_range("5-3", &a, &b), "range 5-3 accepted");
	CHECK(sw_parse_range("5", &a, &b), "range without '-' accepted");
	CHECK(sw_parse_range("5-x", &a, &b), "range 5-x accepted");

	static const struct named { const char *name; int v; } n1 = { "eager", 1 },
		n2 = { "lang", 2 };
	const void *const list[] = { &n1, &n2, NULL };
	const struct named *hit = sw_parse_named(list, "lang");
	CHECK(hit == &n2, "sw_parse_named(lang): expected the second entry");
	CHECK(!sw_parse_named(list, "lan"), "sw_parse_named(lan): a prefix matched");

	if (failures)
		return 1;
	printf("PASS: parse\n");
	return 0;
}
