/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - sandboxing: filesystem, user, capabilities, seccomp
 */
#ifndef NETSHIM_ISOLATE_H
#define NETSHIM_ISOLATE_H

#include <limits.h>
#include <sys/types.h>

#include "conf.h"

/**
 * struct isolate_path - a file to remove at exit, after the root is gone
 * @dirfd:	its directory, opened before detaching (-1: nothing to do)
 * @name:	its name in that directory
 * @uid:	the user that will try to remove it
 */
struct isolate_path {
	int dirfd;
	char name[NAME_MAX + 1];
	uid_t uid;
};

int isolate(const struct conf *c, const char *up_path,
	    struct isolate_path *sock, struct isolate_path *pid,
	    struct isolate_path *up, bool bpf_maps);
int isolate_seccomp(bool vhost_user, bool bpf_maps);
int isolate_caps(void);
int isolate_chroot(void);
void isolate_path_of(const char *path, struct isolate_path *k);
void isolate_remove(const struct isolate_path *k);

#endif /* NETSHIM_ISOLATE_H */
