/* SPDX-License-Identifier: MIT */
/* status.c - the --status-file JSON, rewritten atomically
 * (write to PATH.tmp.PID, then rename). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "writer_status.h"

int sw_status_write(const char *path, const struct sw_status *s)
{
	char tmp[4096], hex[32];
	json_t *j;
	int rc = 0;

	if (!path)
		return 0;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)s->run_id);
	j = json_object();
	json_object_set_new(j, "state", json_string(s->state));
	json_object_set_new(j, "run_id", json_string(hex));
	json_object_set_new(j, "stores", json_integer((json_int_t)s->stores));
	json_object_set_new(j, "traps", json_integer((json_int_t)s->traps));
	json_object_set_new(j, "updates", json_integer((json_int_t)s->updates));
	json_object_set_new(j, "elapsed_s", json_real(s->elapsed_s));
	json_object_set_new(j, "policy", json_string(s->policy));
	json_object_set_new(j, "trap", json_string(s->trap));
	json_object_set_new(j, "pid", json_integer(getpid()));
	if (s->rate_planned > 0)
		json_object_set_new(j, "rate_planned", json_real(s->rate_planned));
	json_object_set_new(j, "rate_achieved", json_real(s->rate_achieved));
	if (s->warning[0])
		json_object_set_new(j, "warning", json_string(s->warning));
	if (s->rss_anon_kib >= 0)
		json_object_set_new(j, "rss_anon_kib", json_integer(s->rss_anon_kib));
	if (s->cpu_main_s >= 0) {
		json_object_set_new(j, "cpu_main_s", json_real(s->cpu_main_s));
		json_object_set_new(j, "nivcsw_main", json_integer(s->nivcsw_main));
		json_object_set_new(j, "cpu_process_s", json_real(s->cpu_process_s));
	}
	if (strcmp(s->state, "error") == 0)
		json_object_set_new(j, "error", json_string(s->error));
	if (json_dump_file(j, tmp, JSON_COMPACT | JSON_SORT_KEYS) != 0)
		rc = -EIO;
	json_decref(j);
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
