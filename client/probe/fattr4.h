/* SPDX-License-Identifier: MIT */
/*
 * fattr4.h - the NFSv4 attribute bitmap the probe asks for, and a decoder of
 * the fattr4 the server returns (libnfs hands fattr4.attr_vals over as raw
 * XDR bytes; its high-level stat has no change attribute).
 *
 * Asked for (RFC 7530 attribute numbers): type (1), change (3), size (4),
 * fileid (20), time_metadata (52), time_modify (53).  The server may return
 * a subset; sw_attrs.valid says which.  Pure code: no I/O, no allocation.
 */
#ifndef STALEWIN_FATTR4_H
#define STALEWIN_FATTR4_H

#include <stddef.h>
#include <stdint.h>
#include "records.h"

#define SW_FATTR4_WORDS 2 /* bitmap words the request uses */

/* Fill words[0..1] with the request bitmap; returns the word count (2). */
unsigned sw_fattr4_request(uint32_t words[SW_FATTR4_WORDS]);

/* Decode attr_vals (len bytes, XDR big-endian) described by mask (nwords
 * host-order words, as libnfs decoded the bitmap4).  Sets out->valid from the
 * bits present; *type_out gets nfs_ftype4 (0 if absent).  Returns 0, or
 * -EPROTO with a one-line reason in err (an attribute outside the set above,
 * a short buffer, nseconds >= 1e9, trailing bytes). */
int sw_fattr4_decode(const uint32_t *mask, unsigned nwords, const void *vals,
		     size_t len, struct sw_attrs *out, uint32_t *type_out,
		     char *err, size_t errlen);

#endif
