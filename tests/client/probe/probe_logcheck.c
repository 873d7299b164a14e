/* SPDX-License-Identifier: MIT */
/*
 * probe_logcheck LOG: print a probe log in a stable, positional text form for
 * the probe's tests (read with swlog_open/swlog_next, so framing and CRCs are
 * checked too):
 *   KIND probe RUNID
 *   ATTR target vers seq status t_send_real t_recv_real size mtime ctime change fileid valid
 *        rtt_ns(mono) t_send_mono t_recv_mono
 *   READ target vers seq status page gen flags t_send_real mtime valid
 *   EVENT target kind err t_real text
 *   GAP target t_start_real t_end_real err
 *   END reason replies errors gaps
 *   EOF clean|torn|corrupt
 * Exit 0 on a clean EOF, 1 otherwise.
 *
 * probe_logcheck futimens FILE MTIME_NS: futimens(2) the file's mtime (atime
 * untouched) the way a local writer does, then print "MTIME_NS CTIME_NS" as
 * fstat reads them back.
 *
 * probe_logcheck stamp FILE PAGE GEN RUN_ID_HEX [torn]: pwrite a struct
 * sw_stamp (records.h) at PAGE * 4096 as the writer would (torn: with a
 * wrong check word).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#include "swlog.h"

int main(int argc, char **argv)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	char err[SWLOG_ERRLEN];
	int st;
	if (argc == 4 && !strcmp(argv[1], "futimens")) {
		long long ns = atoll(argv[3]);
		struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT },
					  { .tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll } };
		struct stat st;
		int fd = open(argv[2], O_RDWR);
		if (fd < 0 || futimens(fd, ts) || fstat(fd, &st)) {
			perror(argv[2]);
			return 1;
		}
		printf("%lld %lld\n", (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec,
		       (long long)st.st_ctim.tv_sec * 1000000000ll + st.st_ctim.tv_nsec);
		close(fd);
		return 0;
	}
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "stamp")) {
		struct sw_stamp st = { .magic = SW_STAMP_MAGIC,
				       .run_id = strtoull(argv[5], NULL, 16),
				       .page = strtoull(argv[3], NULL, 10),
				       .gen = strtoull(argv[4], NULL, 10) };
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		st.t_real_ns = (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec;
		st.check = sw_stamp_check(&st) ^ (argc == 7 ? 1 : 0);
		int fd = open(argv[2], O_RDWR);
		if (fd < 0 || pwrite(fd, &st, sizeof(st), (off_t)(st.page * 4096)) != (ssize_t)sizeof(st)) {
			perror(argv[2]);
			return 1;
		}
		close(fd);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: probe_logcheck LOG\n");
		return 2;
	}
	if (swlog_open(&r, argv[1], err)) {
		fprintf(stderr, "probe_logcheck: %s\n", err);
		return 1;
	}
	printf("KIND %s %016llx\n", swlog_kind_name(swlog_reader_kind(r)),
	       (unsigned long long)swlog_reader_run_id(r));
	while ((st = swlog_next(r, &rec)) == SWLOG_OK) {
		if (rec.type == SW_REC_ATTR) {
			struct sw_rec_attr a;
			memcpy(&a, rec.payload, sizeof(a));
			printf("ATTR %u %u %llu %d %lld %lld %llu %lld %lld %llu %llu %u %lld %lld %lld\n", a.target,
			       a.vers, (unsigned long long)a.seq, a.status,
			       (long long)a.t_send_real_ns, (long long)a.t_recv_real_ns,
			       (unsigned long long)a.attrs.size, (long long)a.attrs.mtime_ns,
			       (long long)a.attrs.ctime_ns, (unsigned long long)a.attrs.change,
			       (unsigned long long)a.attrs.fileid, a.attrs.valid,
			       (long long)(a.t_recv_mono_ns - a.t_send_mono_ns),
			       (long long)a.t_send_mono_ns, (long long)a.t_recv_mono_ns);
		} else if (rec.type == SW_REC_READ) {
			struct sw_rec_read a;
			memcpy(&a, rec.payload, sizeof(a));
			printf("READ %u %u %llu %d %llu %llu %u %lld %lld %u\n", a.target, a.vers,
			       (unsigned long long)a.seq, a.status, (unsigned long long)a.page,
			       (unsigned long long)a.gen, a.flags, (long long)a.t_send_real_ns,
			       (long long)a.attrs.mtime_ns, a.attrs.valid);
		} else if (rec.type == SW_REC_EVENT) {
			struct sw_rec_event e;
			memcpy(&e, rec.payload, sizeof(e));
			printf("EVENT %u %u %d %lld %.*s\n", e.target, e.kind, e.err,
			       (long long)e.t_real_ns, (int)e.len,
			       (const char *)rec.payload + sizeof(e));
		} else if (rec.type == SW_REC_GAP) {
			struct sw_rec_gap g;
			memcpy(&g, rec.payload, sizeof(g));
			printf("GAP %u %lld %lld %d\n", g.target, (long long)g.t_start_real_ns,
			       (long long)g.t_end_real_ns, g.err);
		} else if (rec.type == SW_REC_END) {
			struct sw_rec_end e;
			memcpy(&e, rec.payload, sizeof(e));
			printf("END %u %llu %llu %llu\n", e.reason, (unsigned long long)e.count_a,
			       (unsigned long long)e.count_b, (unsigned long long)e.count_c);
		}
	}
	printf("EOF %s\n", st == SWLOG_EOF ? "clean" : st == SWLOG_TORN ? "torn" : "corrupt");
	if (st != SWLOG_EOF)
		fprintf(stderr, "probe_logcheck: %s\n", swlog_reader_error(r));
	swlog_reader_close(r);
	return st == SWLOG_EOF ? 0 : 1;
}
