/* SPDX-License-Identifier: MIT */
/* runfolder.c - meta.json, clock.json and the list of logs (runfolder.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "parse.h"
#include "runfolder.h"
#include "swlog.h"

int sw_rf_set(json_t *root, const char *key, json_t *v, char *err, size_t errlen)
{
	char k[256], *dot, *part = k;
	json_t *o = root;

	if (!v || snprintf(k, sizeof(k), "%s", key) >= (int)sizeof(k) || !k[0]) {
		json_decref(v);
		snprintf(err, errlen, "expected a key of 1..255 characters, saw '%.40s'", key);
		return -EINVAL;
	}
	while ((dot = strchr(part, '.'))) {
		*dot = 0;
		json_t *c = json_object_get(o, part);
		if (!json_is_object(c)) {
			c = json_object();
			json_object_set_new(o, part, c);
		}
		o = c;
		part = dot + 1;
	}
	json_object_set_new(o, part, v);
	return 0;
}

static json_t *kv_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	json_t *o;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	o = json_object();
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *sep = strpbrk(line, "=\t");
		if (!sep || sep == line)
			continue;
		*sep = 0;
		json_object_set_new(o, line, json_string(sep + 1));
	}
	fclose(f);
	return o;
}

/* "FILE:col,col,...": each line's whitespace-separated fields as an
 * object of those columns (a decimal field as an integer). */
static json_t *table_file(const char *spec, char *err, size_t errlen)
{
	char path[4096], cols[512], line[2048], *colon;
	const char *cv[32];
	int nc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s", spec);
	colon = strrchr(path, ':');
	if (!colon || !colon[1]) {
		snprintf(err, errlen, "expected FILE:COLUMN,COLUMN..., saw '%.200s'", spec);
		return NULL;
	}
	*colon = 0;
	snprintf(cols, sizeof(cols), "%s", colon + 1);
	for (char *save = NULL, *c = strtok_r(cols, ",", &save); c && nc < 32;
	     c = strtok_r(NULL, ",", &save))
		cv[nc++] = c;
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	json_t *a = json_array();
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_object();
		int i = 0;
		int64_t n;
		for (char *save = NULL, *w = strtok_r(line, " \t\n", &save); w && i < nc;
		     w = strtok_r(NULL, " \t\n", &save), i++)
			json_object_set_new(o, cv[i], sw_parse_i64(w, INT64_MIN, INT64_MAX, &n)
							 ? json_string(w) : json_integer((json_int_t)n));
		if (i)
			json_array_append_new(a, o);
		else
			json_decref(o);
	}
	fclose(f);
	return a;
}

int sw_rf_set_arg(json_t *root, char kind, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	char key[256];
	json_t *v = NULL;
	json_error_t je;
	int64_t i;

	if (!eq || eq == kv || eq - kv >= (int)sizeof(key)) {
		snprintf(err, errlen, "expected KEY=VALUE, saw '%.80s'", kv);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	const char *val = eq + 1;
	switch (kind) {
	case 's':
		v = json_string(val);
		break;
	case 'i':
		if (sw_parse_i64(val, INT64_MIN, INT64_MAX, &i)) {
			snprintf(err, errlen, "%s: expected an integer, saw '%.80s'", key, val);
			return -EINVAL;
		}
		v = json_integer((json_int_t)i);
		break;
	case 'b':
		if (strcmp(val, "true") && strcmp(val, "false")) {
			snprintf(err, errlen, "%s: expected true or false, saw '%.80s'", key, val);
			return -EINVAL;
		}
		v = json_boolean(!strcmp(val, "true"));
		break;
	case 'j':
		v = json_loads(val, JSON_DECODE_ANY, &je);
		if (!v) {
			snprintf(err, errlen, "%s: expected JSON, saw a parse error at column %d: %s",
				 key, je.column, je.text);
			return -EINVAL;
		}
		break;
	case 'f':
		v = json_load_file(val, JSON_DECODE_ANY, &je);
		if (!v) {
			snprintf(err, errlen, "%s: expected a JSON file, saw %s line %d: %s",
				 key, val, je.line, je.text);
			return -EINVAL;
		}
		break;
	case 'k':
		v = kv_file(val, err, errlen);
		if (!v)
			return -EINVAL;
		break;
	case 't':
		v = table_file(val, err, errlen);
		if (!v)
			return -EINVAL;
		break;
	default:
		snprintf(err, errlen, "unknown value kind '%c'", kind);
		return -EINVAL;
	}
	return sw_rf_set(root, key, v, err, errlen);
}

json_t *sw_rf_host(void)
{
	json_t *h = json_object();
	struct utsname u;
	char host[256] = "", line[512], os[256] = "";
	FILE *f;

	if (uname(&u) == 0) {
		snprintf(host, sizeof(host), "%s", u.nodename);
		json_object_set_new(h, "hostname", json_string(host));
		json_object_set_new(h, "kernel", json_string(u.release));
		json_object_set_new(h, "kernel_version", json_string(u.version));
	}
	f = fopen("/etc/os-release", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "PRETTY_NAME=", 12)) {
			char *s = line + 12, *e;
			s += *s == '"';
			e = s + strcspn(s, "\"\n");
			snprintf(os, sizeof(os), "%.*s", (int)(e - s), s);
		}
	if (f)
		fclose(f);
	json_object_set_new(h, "os", json_string(os));
	return h;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_log(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return n > 6 && !strcmp(d->d_name + n - 6, ".swlog");
}

json_t *sw_rf_logs(const char *dir)
{
	struct dirent **ent;
	json_t *a = json_array();
	int n = scandir(dir, &ent, is_log, by_name);

	for (int i = 0; i < n; i++) {
		char path[4096], err[SWLOG_ERRLEN], id[20];
		struct swlog_reader *r;
		json_t *o = json_object();
		json_object_set_new(o, "file", json_string(ent[i]->d_name));
		snprintf(path, sizeof(path), "%s/%s", dir, ent[i]->d_name);
		if (swlog_open(&r, path, err) == 0) {
			snprintf(id, sizeof(id), "%016llx",
				 (unsigned long long)swlog_reader_run_id(r));
			json_object_set_new(o, "kind",
					    json_string(swlog_kind_name(swlog_reader_kind(r))));
			json_object_set_new(o, "run_id", json_string(id));
			swlog_reader_close(r);
		} else {
			json_object_set_new(o, "error", json_string(err));
		}
		json_array_append_new(a, o);
		free(ent[i]);
	}
	if (n >= 0)
		free(ent);
	return a;
}

json_t *sw_rf_clock(json_t *before, json_t *after, const char *note)
{
	json_t *c = json_object();
	if (before)
		json_object_set(c, "before", before);
	if (after)
		json_object_set(c, "after", after);
	json_t *ob = json_object_get(before, "offset_ns"), *oa = json_object_get(after, "offset_ns");
	json_t *tb = json_object_get(before, "t_real_ns"), *ta = json_object_get(after, "t_real_ns");
	if (json_is_integer(ob) && json_is_integer(oa))
		json_object_set_new(c, "drift_ns",
				    json_integer(json_integer_value(oa) - json_integer_value(ob)));
	if (json_is_integer(tb) && json_is_integer(ta))
		json_object_set_new(c, "drift_interval_ns",
				    json_integer(json_integer_value(ta) - json_integer_value(tb)));
	if (note && note[0])
		json_object_set_new(c, "note", json_string(note));
	return c;
}

int sw_rf_write(const char *dir, const char *name, json_t *v, char *err, size_t errlen)
{
	char path[4096], tmp[4120];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	char *text = json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	FILE *f = text ? fopen(tmp, "w") : NULL;
	int bad = !f || fputs(text, f) < 0 || fputc('\n', f) < 0;
	if (f && fclose(f))
		bad = 1;
	free(text);
	if (bad || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

/* faults.json: {"format":1, "faults":[...]}; one object appended under an
 * flock on the folder, so the orchestrator's fault injector and its
 * outage watcher may both append. */
int sw_rf_fault_add(const char *dir, json_t *fault, char *err, size_t errlen)
{
	char path[4096];
	json_error_t je;
	int rc = 0, dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 || flock(dfd, LOCK_EX)) {
		snprintf(err, errlen, "cannot lock run folder %s: %s", dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		json_decref(fault);
		return -EIO;
	}
	json_t *t0 = json_object_get(fault, "t_start_real_ns");
	json_t *t1 = json_object_get(fault, "t_end_real_ns");
	json_int_t d;
	/* (an end timed on another clock, "end_clock": the difference is no
	 * duration; the report puts both on the writer's clock) */
	if (json_is_integer(t0) && json_is_integer(t1) && !json_object_get(fault, "end_clock") &&
	    !__builtin_sub_overflow(json_integer_value(t1), json_integer_value(t0), &d))
		json_object_set_new(fault, "dur_ns", json_integer(d));
	snprintf(path, sizeof(path), "%s/faults.json", dir);
	json_t *root = NULL;
	if (access(path, F_OK) == 0) {
		root = json_load_file(path, 0, &je);
		if (!root || !json_is_array(json_object_get(root, "faults"))) {
			snprintf(err, errlen, "expected {\"faults\":[...]} in %s, saw: %s", path,
				 root ? "no faults array" : je.text);
			rc = -EINVAL;
		}
	} else {
		root = json_object();
		json_object_set_new(root, "format", json_integer(SW_RUNFOLDER_FORMAT));
		json_object_set_new(root, "faults", json_array());
	}
	if (!rc) {
		json_array_append(json_object_get(root, "faults"), fault);
		rc = sw_rf_write(dir, "faults.json", root, err, errlen);
	}
	json_decref(root);
	json_decref(fault);
	close(dfd);
	return rc;
}
