/* SPDX-License-Identifier: MIT */
/* row.c - a cost row as JSON, and rows from files (row.h). */
#include "row.h"

#include <math.h>
#include <string.h>

const char *sw_cost_str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "?";
}

double sw_cost_num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int sw_cost_same_group(json_t *a, json_t *b)
{
	return !strcmp(sw_cost_str(a, "kernel"), sw_cost_str(b, "kernel")) &&
	       !strcmp(sw_cost_str(a, "fs"), sw_cost_str(b, "fs")) &&
	       !strcmp(sw_cost_str(a, "query"), sw_cost_str(b, "query")) &&
	       sw_cost_num(a, "threads") == sw_cost_num(b, "threads") &&
	       json_is_true(json_object_get(a, "spaced")) ==
		       json_is_true(json_object_get(b, "spaced")) &&
	       json_is_true(json_object_get(a, "pressure")) ==
		       json_is_true(json_object_get(b, "pressure"));
}

/* per 1000 stores, or null with the reason noted in why */
static json_t *per_1k(const struct sw_cost_count *c, long long stores, json_t *why,
		      const char *key)
{
	if (!c->measured || stores <= 0) {
		json_object_set_new(why, key, json_string(c->why ? c->why : "not measured"));
		return json_null();
	}
	return json_real((double)(c->stores_phase + c->flush_phase) * 1000.0 /
			 (double)stores);
}

static json_t *raw(const struct sw_cost_count *c, int flush)
{
	if (!c->measured)
		return json_null();
	return json_integer(flush ? c->flush_phase : c->stores_phase);
}

static json_t *us(double v, int have)
{
	return have ? json_real((double)(long long)(v * 1000.0 + 0.5) / 1000.0)
		    : json_null();
}

static void set_latency(json_t *o, const struct sw_cost_result *res, json_t *why)
{
	static const char *keys[5] = { "fault_p50_us", "fault_p90_us", "fault_p99_us",
				       "fault_p999_us", "fault_max_us" };
	int have = res->one_fault > 0 && res->clock_khz > 0, i;

	for (i = 0; i < 5; i++)
		json_object_set_new(o, keys[i], us(res->fault_us[i], have));
	if (!have)
		json_object_set_new(why, "fault_p50_us", json_string("no store took exactly one fault"));
	json_object_set_new(o, "clock", json_string(res->clock));
	json_object_set_new(o, "clock_khz", json_real(res->clock_khz));
}

static void set_journal(json_t *o, const struct sw_cost_result *res, json_t *why)
{
	json_object_set_new(o, "handles_per_1k", per_1k(&res->handles, res->counted_stores, why,
							"handles_per_1k"));
	json_object_set_new(o, "handles_stores", raw(&res->handles, 0));
	json_object_set_new(o, "handles_flush", raw(&res->handles, 1));
	json_object_set_new(o, "handle_event", res->handles.event ?
			    json_string(res->handles.event) : json_null());
	if (res->handle_hold_measured && res->handle_holds > 0) {
		json_object_set_new(o, "handle_hold_p99_us", us(res->handle_hold_p99_us, 1));
	} else {
		json_object_set_new(o, "handle_hold_p99_us", json_null());
		json_object_set_new(why, "handle_hold_p99_us", json_string(
			res->handle_hold_measured ? "no handle was started" : res->hold_why));
	}
	json_object_set_new(o, "handle_holds", res->handle_hold_measured ?
			    json_integer(res->handle_holds) : json_null());
	/* the figure: jbd2 records no time before a handle starts */
	json_object_set_new(o, "handle_wait_p99_us", json_null());
	json_object_set_new(why, "handle_wait_p99_us", json_string(
		"jbd2 has no event before a handle waits to start (jbd2_handle_start "
		"and h_start_jiffies come after the wait); the wait is inside the "
		"fault latency; see handle_hold_p99_us"));
	json_object_set_new(o, "tick_us", json_real(res->tick_us));
	json_object_set_new(o, "commits_per_1k", per_1k(&res->commits, res->counted_stores, why,
							"commits_per_1k"));
	json_object_set_new(o, "commit_event", res->commits.event ?
			    json_string(res->commits.event) : json_null());
	json_object_set_new(o, "commits", res->commits.measured ?
			    json_integer(res->commits.stores_phase + res->commits.flush_phase) :
			    json_null());
	json_object_set_new(o, "dirty_inode_per_1k", per_1k(&res->dirtied, res->counted_stores, why,
							    "dirty_inode_per_1k"));
	json_object_set_new(o, "dirty_inode_stores", raw(&res->dirtied, 0));
	json_object_set_new(o, "dirty_inode_flush", raw(&res->dirtied, 1));
}

json_t *sw_cost_row(const struct sw_cost_cfg *cfg, const struct sw_cost_result *res,
		    int tcg)
{
	json_t *o = json_object(), *why = json_object();

	if (!o || !why) {
		json_decref(o);
		json_decref(why);
		return NULL;
	}
	json_object_set_new(o, "kernel", json_string(cfg->kernel));
	json_object_set_new(o, "kernel_release", json_string(res->kernel_release));
	json_object_set_new(o, "policy", json_string(cfg->policy));
	json_object_set_new(o, "fs", json_string(cfg->fs));
	json_object_set_new(o, "threads", json_integer(cfg->threads));
	json_object_set_new(o, "pages", json_integer(cfg->pages));
	json_object_set_new(o, "repeats", json_integer(cfg->repeats));
	json_object_set_new(o, "query", json_string(cfg->query ? cfg->query :
						    cfg->query_statx ? "statx" : "none"));
	json_object_set_new(o, "spaced", json_boolean(cfg->spaced));
	json_object_set_new(o, "traced", json_boolean(cfg->trace));
	json_object_set_new(o, "pressure", json_boolean(cfg->pressure));
	json_object_set_new(o, "pressure_fsyncs_per_s", cfg->pressure ?
			    json_real(res->pressure_fsyncs_per_s) : json_null());
	json_object_set_new(o, "polls_per_s", cfg->poll || cfg->client_ctl ?
			    json_real(res->polls_per_s) : json_null());
	json_object_set_new(o, "polls_found", cfg->poll || cfg->client_ctl ?
			    json_integer(res->polls_found) : json_null());
	json_object_set_new(o, "polls", cfg->poll || cfg->client_ctl ?
			    json_integer(res->polls) : json_null());
	json_object_set_new(o, "query_from", cfg->client_ctl ? json_string("client-guest") :
			    cfg->poll ? json_string("server-loopback") : json_null());
	json_object_set_new(o, "query_rate", cfg->client_ctl ? json_real(cfg->query_rate)
							     : json_null());
	json_object_set_new(o, "stores", json_integer(res->stores));
	json_object_set_new(o, "faults", json_integer(res->faults));
	json_object_set_new(o, "one_fault_stores", json_integer(res->one_fault));
	json_object_set_new(o, "counted_stores", json_integer(res->counted_stores));
	json_object_set_new(o, "faults_counted", cfg->trace ? json_integer(res->faults_traced)
							     : json_null());
	json_object_set_new(o, "faults_exact", json_boolean(
		res->faults == res->stores && res->one_fault == res->stores &&
		(!cfg->trace || res->faults_traced == res->counted_stores)));
	set_latency(o, res, why);
	set_journal(o, res, why);
	json_object_set_new(o, "updates_per_1k", per_1k(&res->updates, res->counted_stores, why,
							"updates_per_1k"));
	json_object_set_new(o, "updates_stores", raw(&res->updates, 0));
	json_object_set_new(o, "updates_flush", raw(&res->updates, 1));
	json_object_set_new(o, "pages_per_s", json_real(res->pages_per_s));
	json_object_set_new(o, "wall_s", json_real(res->wall_s));
	json_object_set_new(o, "tcg", json_boolean(tcg));
	json_object_set_new(o, "null_because", why);
	return o;
}

int sw_cost_rows_load(const char *path, json_t *rows, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[65536];
	int n = 0;

	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		json_error_t je;
		json_t *o;

		n++;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		o = json_loads(line, 0, &je);
		if (!o || !json_is_object(o) || !json_is_string(json_object_get(o, "policy"))) {
			snprintf(err, errlen, "%s:%d: expected a cost row (a JSON object "
				 "with policy, fs, threads), saw: %.60s", path, n, line);
			json_decref(o);
			fclose(f);
			return -1;
		}
		json_array_append_new(rows, o);
	}
	fclose(f);
	return 0;
}
