/* SPDX-License-Identifier: MIT */
/*
 * Description: the NFSv4 fattr4 decoder (client/probe/fattr4.c) on hand-built XDR
 * bytes and on bytes captured from nfs-ganesha 4.3's reply to the probe's
 * PUTFH+GETATTR compound.  A broken decoder shows wrong change/size/mtime/
 * ctime/fileid values, accepts an attribute it cannot size, or misses a
 * short buffer -- the probe would then log invented attributes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fattr4.h"

static size_t put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
	return 4;
}
static size_t put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	return 4 + put32(p + 4, (uint32_t)v);
}

/* the probe's request, all six attributes in bit order */
SW_CASE(all_six)
{
	uint32_t req[SW_FATTR4_WORDS], type;
	struct sw_attrs a;
	char err[256];
	unsigned char b[256] = { 0 };
	size_t n = 0;

	CHECK(sw_fattr4_request(req) == 2);
	CHECK(req[0] == ((1u << 1) | (1u << 3) | (1u << 4) | (1u << 20)));
	CHECK(req[1] == ((1u << 20) | (1u << 21)));

	/* all six, in bit order: type, change, size, fileid, time_metadata, time_modify */
	n += put32(b + n, 1);                       /* NF4REG */
	n += put64(b + n, 0x0102030405060708ull);   /* change */
	n += put64(b + n, 5000);                    /* size */
	n += put64(b + n, 10952772);                /* fileid */
	n += put64(b + n, 1796289134ull); n += put32(b + n, 457992963); /* ctime */
	n += put64(b + n, 981173106ull);  n += put32(b + n, 123456789); /* mtime */
	CHECK(sw_fattr4_decode(req, 2, b, n, &a, &type, err, sizeof(err)) == 0);
	CHECK(type == 1);
	CHECK(a.change == 0x0102030405060708ull);
	CHECK(a.size == 5000);
	CHECK(a.fileid == 10952772);
	CHECK(a.ctime_ns == 1796289134457992963ll);
	CHECK(a.mtime_ns == 981173106123456789ll);
	CHECK(a.valid == (SW_ATTR_CHANGE | SW_ATTR_SIZE | SW_ATTR_FILEID | SW_ATTR_CTIME | SW_ATTR_MTIME));
}

/* a subset, then the buffers the decoder must refuse */
SW_CASE(subset_and_bad)
{
	uint32_t type;
	struct sw_attrs a;
	char err[256];
	unsigned char b[256] = { 0 };
	size_t n = 0;

	/* a subset: only change and time_modify */
	uint32_t m2[2] = { 1u << 3, 1u << 21 };
	n += put64(b + n, 42);
	n += put64(b + n, 7); n += put32(b + n, 999999999);
	CHECK(sw_fattr4_decode(m2, 2, b, n, &a, &type, err, sizeof(err)) == 0);
	CHECK(a.valid == (SW_ATTR_CHANGE | SW_ATTR_MTIME) && a.change == 42 &&
	      a.mtime_ns == 7999999999ll && type == 0);

	/* short buffer */
	CHECK(sw_fattr4_decode(m2, 2, b, n - 1, &a, &type, err, sizeof(err)) == -EPROTO);
	CHECK(strstr(err, "short") != NULL);
	/* trailing bytes */
	CHECK(sw_fattr4_decode(m2, 2, b, n + 4, &a, &type, err, sizeof(err)) == -EPROTO);
	/* nseconds out of range */
	put32(b + 16, 1000000000u);
	CHECK(sw_fattr4_decode(m2, 2, b, n, &a, &type, err, sizeof(err)) == -EPROTO);
	/* an attribute we did not ask for (mode, 33) cannot be skipped */
	uint32_t m3[2] = { 0, 1u << 1 };
	CHECK(sw_fattr4_decode(m3, 2, b, 4, &a, &type, err, sizeof(err)) == -EPROTO);
	CHECK(strstr(err, "33") != NULL);
	/* empty mask, empty buffer: nothing valid */
	uint32_t m4[1] = { 0 };
	CHECK(sw_fattr4_decode(m4, 1, b, 0, &a, &type, err, sizeof(err)) == 0 && a.valid == 0);
}

SW_CASE(ganesha_capture)
{
	uint32_t type;
	struct sw_attrs a;
	char err[256];

	/* attr_vals captured from nfs-ganesha 4.3 (FSAL VFS on tmpfs) answering
	 * the probe's PUTFH+GETATTR{1,3,4,20,52,53} for a 4-byte file (probe
	 * built with -DSW_DUMP_FATTR4); reply mask {0x0010001a, 0x00300000}.
	 * stat(1) on the server side said: size 4, inode 10955234,
	 * mtime 1796289299.593997957, ctime 1796289299.597997957. */
	static const unsigned char cap[] = {
		0x00,0x00,0x00,0x01, 0x18,0xed,0xb3,0x99,0xd0,0x5f,0xb7,0x85,
		0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x04, 0x00,0x00,0x00,0x00,0x00,0xa7,0x29,0xe2,
		0x00,0x00,0x00,0x00,0x6b,0x11,0x33,0x13, 0x23,0xa4,0xb9,0x85,
		0x00,0x00,0x00,0x00,0x6b,0x11,0x33,0x13, 0x23,0x67,0xb0,0x85,
	};
	uint32_t cm[2] = { 0x0010001a, 0x00300000 };
	CHECK(sw_fattr4_decode(cm, 2, cap, sizeof(cap), &a, &type, err, sizeof(err)) == 0);
	CHECK(type == 1 && a.size == 4 && a.fileid == 10955234);
	CHECK(a.mtime_ns == 1796289299593997957ll);
	CHECK(a.ctime_ns == 1796289299597997957ll);
	CHECK(a.change == 0x18edb399d05fb785ull);
}

SW_MAIN()
