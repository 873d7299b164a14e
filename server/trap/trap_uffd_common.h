/* SPDX-License-Identifier: MIT */
/* trap_uffd_common.h - what the two userfaultfd MINOR-mode mechanisms
 * (uffd.c: handler thread; uffd_sigbus.c: SIGBUS in the storing
 * thread) share: opening the fd, registering the shmem mapping, re-arming
 * pages by zapping their ptes, and releasing. */
#ifndef STALEWIN_TRAP_UFFD_COMMON_H
#define STALEWIN_TRAP_UFFD_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "trap.h"

/* A userfaultfd for user faults only (so no root is needed with
 * vm.unprivileged_userfaultfd = 0) with every bit of `features`; `what`
 * names them in the error.  Returns the fd or -errno. */
int sw_uffd_open(uint64_t features, const char *what, char *err, size_t errlen);
/* Register [base, base+len) in MINOR mode; checks UFFDIO_CONTINUE is offered. */
int sw_uffd_register_minor(int uffd, void *base, size_t len, char *err,
			   size_t errlen);
/* mp->base = a MAP_SHARED read/write mapping of mp->fd, mp->len bytes. */
int sw_uffd_map(struct sw_mapping *mp, char *err, size_t errlen);
/* Cleaning: MADV_DONTNEED zaps the pte(s) and keeps the shmem page, so the
 * next store raises a minor fault again. */
int sw_uffd_rearm(struct sw_mapping *mp, uint8_t *addr, size_t len);
/* munmap the mapping and close the userfaultfd (both idempotent). */
void sw_uffd_release(struct sw_mapping *mp);

#endif
