/* SPDX-License-Identifier: MIT */
/* fattr4.c - see fattr4.h. */
#include "fattr4.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum {
	A_TYPE = 1,
	A_CHANGE = 3,
	A_SIZE = 4,
	A_FILEID = 20,
	A_TIME_METADATA = 52,
	A_TIME_MODIFY = 53,
};

unsigned sw_fattr4_request(uint32_t w[SW_FATTR4_WORDS])
{
	w[0] = (1u << A_TYPE) | (1u << A_CHANGE) | (1u << A_SIZE) |
	       (1u << A_FILEID);
	w[1] = (1u << (A_TIME_METADATA - 32)) | (1u << (A_TIME_MODIFY - 32));
	return SW_FATTR4_WORDS;
}

struct cur {
	const uint8_t *p; /* next byte */
	size_t left;      /* bytes left */
};

static int get32(struct cur *c, uint32_t *v)
{
	if (c->left < 4)
		return -1;
	*v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 |
	     (uint32_t)c->p[2] << 8 | c->p[3];
	c->p += 4;
	c->left -= 4;
	return 0;
}

static int get64(struct cur *c, uint64_t *v)
{
	uint32_t hi, lo;
	if (get32(c, &hi) || get32(c, &lo))
		return -1;
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

/* nfstime4: int64 seconds, uint32 nseconds */
static int gettime(struct cur *c, int64_t *ns, const char **why)
{
	uint64_t s;
	uint32_t n;
	if (get64(c, &s) || get32(c, &n)) {
		*why = "short buffer";
		return -1;
	}
	if (n >= 1000000000u) {
		*why = "nseconds >= 1e9";
		return -1;
	}
	*ns = (int64_t)s * 1000000000ll + (int64_t)n;
	return 0;
}

int sw_fattr4_decode(const uint32_t *mask, unsigned nwords, const void *vals,
		     size_t len, struct sw_attrs *out, uint32_t *type_out,
		     char *err, size_t errlen)
{
	struct cur c = { .p = vals, .left = len };
	const char *why = "short buffer";
	uint32_t type = 0;
	unsigned bit;

	memset(out, 0, sizeof(*out));
	for (bit = 0; bit < nwords * 32; bit++) {
		uint32_t w;
		memcpy(&w, (const char *)mask + (bit / 32) * 4, 4); /* may be unaligned */
		if (!(w & (1u << (bit % 32))))
			continue;
		switch (bit) {
		case A_TYPE:
			if (get32(&c, &type))
				goto bad;
			break;
		case A_CHANGE:
			if (get64(&c, &out->change))
				goto bad;
			out->valid |= SW_ATTR_CHANGE;
			break;
		case A_SIZE:
			if (get64(&c, &out->size))
				goto bad;
			out->valid |= SW_ATTR_SIZE;
			break;
		case A_FILEID:
			if (get64(&c, &out->fileid))
				goto bad;
			out->valid |= SW_ATTR_FILEID;
			break;
		case A_TIME_METADATA:
			if (gettime(&c, &out->ctime_ns, &why))
				goto bad;
			out->valid |= SW_ATTR_CTIME;
			break;
		case A_TIME_MODIFY:
			if (gettime(&c, &out->mtime_ns, &why))
				goto bad;
			out->valid |= SW_ATTR_MTIME;
			break;
		default:
			snprintf(err, errlen,
				 "fattr4: expected only attributes 1,3,4,20,52,53, saw attribute %u in the reply mask",
				 bit);
			return -EPROTO;
		}
	}
	if (c.left) {
		snprintf(err, errlen,
			 "fattr4: %zu trailing bytes after the attributes the mask names",
			 c.left);
		return -EPROTO;
	}
	if (type_out)
		*type_out = type;
	return 0;
bad:
	snprintf(err, errlen, "fattr4: %s decoding attribute %u (%zu bytes given)",
		 why, bit, len);
	return -EPROTO;
}
