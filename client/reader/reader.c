/* SPDX-License-Identifier: MIT */
/*
 * reader.c - stalewin-reader: what a real Linux NFS client serves.
 *
 * Reads the stamped page of a file through a kernel NFS mount every N ms
 * and logs the stamp generation each read returned (SW_REC_KREAD), so the
 * analysis can tell, store by store, how long the kernel client's page
 * cache kept serving old data under the mount's options.
 *
 *   stalewin-reader --path FILE --page N --every-ms N --mode kept-open|cto
 *                   --log PATH --duration SEC [--run-id HEX]
 *                   [--page-size BYTES] [--quiet]
 *   stalewin-reader clock-serve ADDR:PORT | clock ADDR:PORT [--samples N]
 *                   (UDP clock exchange between guests: reader_clock.c)
 *   stalewin-reader mount DIR [--nfs]   the mount DIR is on, as JSON
 *                   (mountinfo.h; --nfs: exit 2 unless NFS)
 *
 * kept-open: the file is opened once (O_RDONLY, no O_DIRECT) and read with
 *            pread(2): the client revalidates by its attribute cache rules
 *            only.  If the file does not exist yet, every tick retries the
 *            open and logs the failure.
 * cto:       open / pread / close at every tick: close-to-open consistency
 *            (a GETATTR at each open, unless the mount says nocto).
 * The log header's JSON meta carries the mount the file lives on
 * (/proc/self/mountinfo, options as /proc/mounts shows them):
 * "mount_source", "mount_point", "mount_fstype", "mount_options",
 * "mount_dev".
 * Exit 0 done or stopped by SIGINT/SIGTERM (END record, fsync), 2 bad
 * input, 1 runtime failure (the log keeps everything appended before).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "mountinfo.h"
#include "parse.h"
#include "reader_clock.h"
#include "records.h"
#include "swlog.h"
#include "swtime.h"

struct reader_opts {
	const char *path;     /* file on the NFS mount */
	const char *log_path; /* swlog output */
	uint64_t page;        /* page index read */
	uint64_t page_size;   /* bytes per page (default: sysconf) */
	int64_t every_ns;     /* read period, ns */
	int64_t duration_ns;  /* run length, ns; 0 = until a signal */
	uint32_t mode;        /* enum sw_kread_mode */
	uint64_t run_id;      /* writer's run id (0: unknown, no check) */
	int have_run_id;      /* --run-id given */
	int quiet;            /* no summary line on stderr */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fputs("usage: stalewin-reader --path FILE --page N --every-ms N "
	      "--mode kept-open|cto --log PATH --duration SEC\n"
	      "         [--run-id HEX] [--page-size BYTES] [--quiet]\n"
	      "       stalewin-reader clock-serve ADDR:PORT\n"
	      "       stalewin-reader clock ADDR:PORT [--samples N]\n"
	      "       stalewin-reader mount DIR [--nfs]\n",
	      f);
}

static int parse_u64(const char *s, uint64_t *out, int base)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, int64_t *out_ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > 1e7)
		return -1;
	*out_ns = (int64_t)(v * 1e9);
	return 0;
}

/* Returns 0, or 2 after printing a one-line usage error. */
static int parse_args(int argc, char **argv, struct reader_opts *o)
{
	static const struct option lo[] = {
		SW_OPT_ARG("path", 'p'),
		SW_OPT_ARG("page", 'n'),
		SW_OPT_ARG("every-ms", 'e'),
		SW_OPT_ARG("mode", 'm'),
		SW_OPT_ARG("log", 'l'),
		SW_OPT_ARG("duration", 'd'),
		SW_OPT_ARG("run-id", 'r'),
		SW_OPT_ARG("page-size", 's'),
		SW_OPT_FLAG("quiet", 'q'),
		SW_OPT_FLAG("help", 'h'),
		SW_OPT_END,
	};
	uint64_t v;
	int c, have_page = 0, have_every = 0, have_dur = 0;

	memset(o, 0, sizeof(*o));
	opterr = 0; /* our own one-line messages */
	long ps = sysconf(_SC_PAGESIZE);
	o->page_size = ps > 0 ? (uint64_t)ps : 4096;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->path = optarg;
			break;
		case 'l':
			o->log_path = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, &o->page, 10)) {
				fprintf(stderr, "stalewin-reader: --page: expected a page index, saw '%s'\n", optarg);
				return 2;
			}
			have_page = 1;
			break;
		case 'e':
			if (parse_u64(optarg, &v, 10) || v == 0 || v > 3600000) {
				fprintf(stderr, "stalewin-reader: --every-ms: expected 1..3600000 ms, saw '%s'\n", optarg);
				return 2;
			}
			o->every_ns = (int64_t)v * SW_NS_PER_MS;
			have_every = 1;
			break;
		case 'm':
			if (!strcmp(optarg, "kept-open"))
				o->mode = SW_KREAD_KEPT_OPEN;
			else if (!strcmp(optarg, "cto"))
				o->mode = SW_KREAD_CTO;
			else {
				fprintf(stderr, "stalewin-reader: --mode: expected kept-open or cto, saw '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			if (parse_seconds(optarg, &o->duration_ns)) {
				fprintf(stderr, "stalewin-reader: --duration: expected seconds >= 0, saw '%s'\n", optarg);
				return 2;
			}
			have_dur = 1;
			break;
		case 'r':
			if (parse_u64(optarg, &o->run_id, 16)) {
				fprintf(stderr, "stalewin-reader: --run-id: expected a hex run id, saw '%s'\n", optarg);
				return 2;
			}
			o->have_run_id = 1;
			break;
		case 's':
			if (parse_u64(optarg, &v, 10) || v < sizeof(struct sw_stamp) || v > (1u << 24)) {
				fprintf(stderr, "stalewin-reader: --page-size: expected 48..16777216 bytes, saw '%s'\n", optarg);
				return 2;
			}
			o->page_size = v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "stalewin-reader: unknown option or missing value at '%s' (see --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "stalewin-reader: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	const char *missing = !o->path ? "--path" : !o->log_path ? "--log" :
			      !have_page ? "--page" : !have_every ? "--every-ms" :
			      !o->mode ? "--mode" : !have_dur ? "--duration" : NULL;
	if (missing) {
		fprintf(stderr, "stalewin-reader: %s is required (see --help)\n", missing);
		return 2;
	}
	return 0;
}

static char *meta_json(const struct reader_opts *o, const struct sw_mount *mi)
{
	struct utsname u;
	char host[256] = "";
	json_t *m = json_object();

	gethostname(host, sizeof(host) - 1);
	uname(&u);
	json_object_set_new(m, "tool", json_string("stalewin-reader"));
	json_object_set_new(m, "version", json_string(STALEWIN_VERSION));
	json_object_set_new(m, "path", json_string(o->path));
	json_object_set_new(m, "page", json_integer((json_int_t)o->page));
	json_object_set_new(m, "page_size", json_integer((json_int_t)o->page_size));
	json_object_set_new(m, "every_ms", json_integer(o->every_ns / SW_NS_PER_MS));
	json_object_set_new(m, "duration_s", json_real((double)o->duration_ns / 1e9));
	json_object_set_new(m, "mode", json_string(o->mode == SW_KREAD_CTO ? "cto" : "kept-open"));
	json_object_set_new(m, "o_direct", json_false());
	if (o->have_run_id) {
		char id[32];
		snprintf(id, sizeof(id), "%016" PRIx64, o->run_id);
		json_object_set_new(m, "writer_run_id", json_string(id));
	}
	sw_mount_json_set(m, mi, "mount_");
	json_object_set_new(m, "host", json_string(host));
	json_object_set_new(m, "kernel", json_string(u.release));
	json_object_set_new(m, "t_start_real_ns", json_integer(sw_real_ns()));
	char *s = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	return s;
}

/* Decode the stamp at the start of buf into rec (gen, stamp time, flags). */
static void decode_stamp(const struct reader_opts *o, const unsigned char *buf,
			 size_t n, struct sw_rec_kread *rec)
{
	struct sw_stamp st;

	if (n < sizeof(st)) {
		rec->flags |= SW_READ_NOSTAMP; /* short file: page not written */
		return;
	}
	memcpy(&st, buf, sizeof(st));
	if (st.magic != SW_STAMP_MAGIC) {
		rec->flags |= SW_READ_NOSTAMP;
		return;
	}
	if (st.check != sw_stamp_check(&st) || st.page != o->page) {
		rec->flags |= SW_READ_TORN;
		return;
	}
	if (o->have_run_id && st.run_id != o->run_id)
		rec->flags |= SW_READ_OTHERRUN;
	rec->gen = st.gen;
	rec->stamp_real_ns = st.t_real_ns;
}

struct reader_stats {
	uint64_t reads;    /* reads attempted */
	uint64_t errors;   /* reads that failed (open or pread) */
	uint64_t last_gen; /* last generation seen */
	uint64_t changes;  /* times the generation seen changed */
};

/* One tick: read the page, fill rec.  *fd is the kept-open descriptor. */
static void read_once(const struct reader_opts *o, int *fd, unsigned char *buf,
		      struct sw_rec_kread *rec)
{
	off_t off = (off_t)(o->page * o->page_size);
	ssize_t n;

	memset(rec, 0, sizeof(*rec));
	rec->page = o->page;
	rec->mode = o->mode;
	rec->t_before_real_ns = sw_real_ns();
	rec->t_before_mono_ns = sw_mono_ns();
	if (*fd < 0)
		*fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		rec->err = -errno;
	} else {
		n = pread(*fd, buf, o->page_size, off);
		if (n < 0)
			rec->err = -errno;
		else
			decode_stamp(o, buf, (size_t)n, rec);
		if (o->mode == SW_KREAD_CTO) {
			close(*fd);
			*fd = -1;
		}
	}
	rec->t_after_real_ns = sw_real_ns();
	rec->t_after_mono_ns = sw_mono_ns();
}

static int run(const struct reader_opts *o, struct swlog_writer *w,
	       struct reader_stats *st)
{
	unsigned char *buf = malloc(o->page_size);
	int fd = -1, rc = 0;
	int64_t t0 = sw_mono_ns(), next = t0;

	if (!buf)
		return -ENOMEM;
	while (!stop_signal) {
		struct sw_rec_kread rec;
		read_once(o, &fd, buf, &rec);
		st->reads++;
		if (rec.err)
			st->errors++;
		else if (rec.gen != st->last_gen) {
			st->changes++;
			st->last_gen = rec.gen;
		}
		rc = swlog_append(w, SW_REC_KREAD, &rec, sizeof(rec));
		if (rc)
			break;
		next += o->every_ns;
		int64_t now = sw_mono_ns();
		if (o->duration_ns && next - t0 >= o->duration_ns)
			break;
		if (next < now) /* fell behind (slow server): skip, do not burst */
			next = now + o->every_ns - (now - next) % o->every_ns;
		struct timespec ts = sw_ns_ts(next);
		while (!stop_signal &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* `stalewin-reader mount DIR [--nfs]`: the mount DIR lives on, as one
 * JSON object (mountinfo.h) on stdout, for the orchestrators (a kernel
 * mount the user made: stalewin-run --kernel-mount).  --nfs: exit 2 unless
 * it is an NFS mount.  Exit 0, 2 bad input (named), 1 cannot read. */
static int mount_main(int argc, char **argv)
{
	struct sw_mount m;
	char err[PATH_MAX + 128];
	int nfs = argc == 3 && !strcmp(argv[2], "--nfs");

	if (argc != 2 && !nfs) {
		fprintf(stderr, "stalewin-reader: usage: stalewin-reader mount DIR [--nfs]\n");
		return 2;
	}
	int rc = sw_mount_of(argv[1], 0, &m, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "stalewin-reader: mount: %s\n", err);
		return rc == -ENOENT || rc == -ENOTDIR ? 2 : 1;
	}
	char *j = sw_mount_json(&m, argv[1]);
	puts(j ? j : "{}");
	free(j);
	if (nfs && strncmp(m.fstype, "nfs", 3)) {
		fprintf(stderr, "stalewin-reader: mount: expected %s on an NFS mount (nfs or nfs4), "
			"saw %s: %s mounted at %s\n", argv[1], m.fstype, m.source, m.point);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct reader_opts o;
	struct sw_mount mi;
	struct reader_stats st = { 0 };
	struct swlog_writer *w = NULL;
	char err[SWLOG_ERRLEN];
	int rc;

	if (argc > 1 && (!strcmp(argv[1], "clock") || !strcmp(argv[1], "clock-serve")))
		return sw_reader_clock_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "mount"))
		return mount_main(argc - 1, argv + 1);
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	char merr[PATH_MAX + 128];
	if (sw_mount_of(o.path, 1, &mi, merr, sizeof(merr))) {
		fprintf(stderr, "stalewin-reader: --path %s: %s\n", o.path, merr);
		return 2;
	}
	if (strncmp(mi.fstype, "nfs", 3))
		fprintf(stderr, "stalewin-reader: warning: %s is on %s (%s), not an NFS mount\n",
			o.path, mi.fstype, mi.point);

	uint64_t log_id = o.run_id;
	if (!o.have_run_id && getrandom(&log_id, sizeof(log_id), 0) != sizeof(log_id))
		log_id = (uint64_t)sw_real_ns();
	char *meta = meta_json(&o, &mi);
	rc = swlog_create(&w, o.log_path, 0, SWLOG_KIND_READER, log_id, meta, 0, err);
	free(meta);
	if (rc) {
		fprintf(stderr, "stalewin-reader: cannot create the log %s: %s\n", o.log_path, err);
		return 1;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	rc = run(&o, w, &st);
	struct sw_rec_end end = {
		.t_real_ns = sw_real_ns(),
		.t_mono_ns = sw_mono_ns(),
		.count_a = st.reads,
		.count_b = st.errors,
		.count_c = st.changes,
		.reason = rc ? SW_END_ERROR : stop_signal ? SW_END_SIGNAL : SW_END_DONE,
		.err = rc < 0 ? -rc : 0,
	};
	if (!rc)
		rc = swlog_append(w, SW_REC_END, &end, sizeof(end));
	int crc = swlog_close(w);
	if (rc || crc) {
		fprintf(stderr, "stalewin-reader: writing the log %s failed: %s\n",
			o.log_path, strerror(-(rc ? rc : crc)));
		return 1;
	}
	if (!o.quiet)
		fprintf(stderr, "stalewin-reader: %" PRIu64 " reads of page %" PRIu64
			" (%s), %" PRIu64 " errors, %" PRIu64 " generation changes, last gen %" PRIu64 "\n",
			st.reads, o.page, o.mode == SW_KREAD_CTO ? "cto" : "kept-open",
			st.errors, st.changes, st.last_gen);
	return 0;
}
