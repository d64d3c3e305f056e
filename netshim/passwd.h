/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - users and groups by name or number, for --runas and nobody
 */
#ifndef NETSHIM_PASSWD_H
#define NETSHIM_PASSWD_H

#include <stdbool.h>

/* The statically linked build (make static) has no NSS: glibc would load
 * its modules at run time, from a libc.so that launcher images may lack or
 * have in another version.  It reads /etc/passwd and /etc/group itself.
 */
#ifdef NETSHIM_STATIC
#define PASSWD_FILES_ONLY	true
#else
#define PASSWD_FILES_ONLY	false
#endif

/* Why a name was not found, where that differs from a dynamic build's */
#define PASSWD_STATIC_HINT						\
	"this static build reads names from /etc/passwd and /etc/group only; " \
	"give numbers"

int passwd_user(const char *name, unsigned int *uid, unsigned int *gid);
int passwd_uid_group(unsigned int uid, unsigned int *gid);
int passwd_group(const char *name, unsigned int *gid);

#endif /* NETSHIM_PASSWD_H */
