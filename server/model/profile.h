/* SPDX-License-Identifier: MIT */
/*
 * profile.h - a model profile: the writeback model's options for one kernel
 * and machine class, as data (server/model/profiles/NAME.profile, INI read
 * by libinih): [profile] kernel, validated (what it rests on); [model] one
 * writer option per key.  The writer (--model-profile) and
 * stalewin-model-sweep take its options before their own command line.
 */
#ifndef SW_MODEL_PROFILE_H
#define SW_MODEL_PROFILE_H

#include <stddef.h>

#define SW_PROFILE_MAXARGS 64

struct sw_model_profile {
	char name[64];       /* the file's name without .profile */
	char kernel[64];     /* [profile] kernel */
	char validated[512]; /* [profile] validated */
	int nargs;           /* args[0] is a program name for getopt */
	char *args[SW_PROFILE_MAXARGS + 2];
	char buf[4096];      /* the words of args */
	size_t used;
};

/* Reads PATH into p (args: "--key", "value" of [model]); only the model's
 * options are taken.  0, or -1 with "expected ..., saw ..." in err. */
int sw_model_profile_load(const char *path, struct sw_model_profile *p, char *err,
			  size_t errlen);

/* argv with "--model-profile FILE" (or --model-profile=FILE) replaced, in
 * its place, by FILE's options, so the options after it override them.
 * Without one *nargv is argv and p->name is "".  The new array is the
 * process's one (static; each call replaces it).  0, or -1 with err. */
int sw_model_profile_expand(int argc, char **argv, struct sw_model_profile *p,
			    int *nargc, char ***nargv, char *err, size_t errlen);

#endif
