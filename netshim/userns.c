// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - identity maps of user namespaces
 *
 * netshim makes user namespaces twice: its own, to isolate itself in a
 * mount namespace without root (isolate.c), and the one of the command
 * it runs in namespace mode (netns.c).  Either maps one id inside to
 * netshim's own effective user and group outside, which needs no
 * capability.  The maps of the namespace netshim was started in tell
 * root there which user it can become (isolate.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "userns.h"

/**
 * userns_write() - write a map, or "deny", to a file of a process in /proc
 * @pid:	the process, 0 for ourselves
 * @file:	uid_map, gid_map or setgroups
 * @s:		what to write
 *
 * Return: 0 on success, -1 with errno set
 */
static int userns_write(pid_t pid, const char *file, const char *s)
{
	char path[64];
	int fd, rc = -1;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) == (ssize_t)strlen(s))
		rc = 0;
	close(fd);
	return rc;
}

/**
 * userns_map_uid() - map one user id of a new user namespace to ours
 * @pid:	a process of the namespace, 0 for ourselves
 * @inside:	the id it has inside
 *
 * Return: 0 on success, -1 with errno set
 */
int userns_map_uid(pid_t pid, uid_t inside)
{
	char map[64];

	snprintf(map, sizeof(map), "%u %u 1", inside, geteuid());
	return userns_write(pid, "uid_map", map);
}

/**
 * userns_map_gid() - map one group id of a new user namespace to ours
 * @pid:	a process of the namespace, 0 for ourselves
 * @inside:	the id it has inside
 *
 * Without CAP_SETGID the group map needs setgroups() denied first
 * (user_namespaces(7)); if that fails, so does the map, which says so.
 *
 * Return: 0 on success, -1 with errno set
 */
int userns_map_gid(pid_t pid, gid_t inside)
{
	char map[64];

	if (getegid())
		userns_write(pid, "setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1", inside, getegid());
	return userns_write(pid, "gid_map", map);
}

/**
 * userns_own_map() - read a map of our own user namespace
 * @file:	uid_map or gid_map
 * @id:		an id inside, to look for
 * @has:	set if the map holds @id
 *
 * Return: true if the map is the initial namespace's, every id to
 *	   itself, or cannot be read (the stricter case); false otherwise
 */
static bool userns_own_map(const char *file, unsigned int id, bool *has)
{
	unsigned long in, out, count;
	bool initial = false;
	char path[64];
	FILE *f;

	*has = false;
	snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3) {
		if (id >= in && id - in < count)
			*has = true;
		if (!in && !out && count == 4294967295UL)
			initial = true;
	}
	fclose(f);
	return initial;
}

/**
 * userns_initial() - whether we run in the initial user namespace
 *
 * Return: true there, where root is the machine's root
 */
bool userns_initial(void)
{
	bool has;

	return userns_own_map("uid_map", 0, &has);
}

/**
 * userns_maps() - whether our user namespace has a user and a group
 * @uid:	user id inside
 * @gid:	group id inside
 *
 * Return: true if both are mapped: a process can switch to them
 */
bool userns_maps(uid_t uid, gid_t gid)
{
	bool u, g;

	userns_own_map("uid_map", uid, &u);
	userns_own_map("gid_map", gid, &g);
	return u && g;
}
