// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - userspace network backend for virtual machines in pods
 *
 * passwd.c - users and groups by name or number
 *
 * The dynamic build asks the C library (getpwnam() and the like, through
 * NSS, as every program of the system does).  The static build cannot:
 * glibc's NSS loads shared modules of the glibc it was built with, which
 * a launcher image of another distribution does not have, and which an
 * empty root has not at all.  It reads the two files a container image
 * has, if any, with fgetpwent()/fgetgrent(), which are plain parsers; a
 * user or group missing there is reported, and a number always works.
 */

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "passwd.h"

#ifdef NETSHIM_STATIC

/**
 * passwd_find() - an entry of /etc/passwd by name or by number
 * @name:	user name, or NULL to look up @uid
 * @uid:	user ID, when @name is NULL
 *
 * Return: the entry (static storage of the C library), NULL if the file
 *	   or the user is missing
 */
static const struct passwd *passwd_find(const char *name, uid_t uid)
{
	const struct passwd *pw;
	FILE *f = fopen("/etc/passwd", "re");

	if (!f)
		return NULL;
	while ((pw = fgetpwent(f))) {
		if (name ? !strcmp(pw->pw_name, name) : pw->pw_uid == uid)
			break;
	}
	fclose(f);
	return pw;
}

/**
 * group_find() - an entry of /etc/group by name
 * @name:	group name
 *
 * Return: the entry (static storage of the C library), NULL if the file
 *	   or the group is missing
 */
static const struct group *group_find(const char *name)
{
	const struct group *gr;
	FILE *f = fopen("/etc/group", "re");

	if (!f)
		return NULL;
	while ((gr = fgetgrent(f))) {
		if (!strcmp(gr->gr_name, name))
			break;
	}
	fclose(f);
	return gr;
}

#else /* !NETSHIM_STATIC */

/**
 * passwd_find() - a user by name or by number, from the system's databases
 * @name:	user name, or NULL to look up @uid
 * @uid:	user ID, when @name is NULL
 *
 * Return: the entry (static storage of the C library), NULL if unknown
 */
static const struct passwd *passwd_find(const char *name, uid_t uid)
{
	return name ? getpwnam(name) : getpwuid(uid);
}

/**
 * group_find() - a group by name, from the system's databases
 * @name:	group name
 *
 * Return: the entry (static storage of the C library), NULL if unknown
 */
static const struct group *group_find(const char *name)
{
	return getgrnam(name);
}

#endif /* NETSHIM_STATIC */

/**
 * passwd_user() - a user's ID and primary group by name
 * @name:	user name
 * @uid:	set to the user's ID on success
 * @gid:	set to the user's primary group on success
 *
 * Return: 0 on success, -1 if the user is unknown
 */
int passwd_user(const char *name, unsigned int *uid, unsigned int *gid)
{
	const struct passwd *pw = passwd_find(name, 0);

	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

/**
 * passwd_uid_group() - the primary group of a user given by number
 * @uid:	user ID
 * @gid:	set to the user's primary group if the user is known
 *
 * Return: 0 if known, -1 if not (the caller picks a group itself)
 */
int passwd_uid_group(unsigned int uid, unsigned int *gid)
{
	const struct passwd *pw = passwd_find(NULL, uid);

	if (!pw)
		return -1;
	*gid = pw->pw_gid;
	return 0;
}

/**
 * passwd_group() - a group's ID by name
 * @name:	group name
 * @gid:	set to its ID on success
 *
 * Return: 0 on success, -1 if the group is unknown
 */
int passwd_group(const char *name, unsigned int *gid)
{
	const struct group *gr = group_find(name);

	if (!gr)
		return -1;
	*gid = gr->gr_gid;
	return 0;
}
