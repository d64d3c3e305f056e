// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - listening UNIX sockets at a path: the VMM's (link/link.c) and
 * the TCP repair helper's (repair.c); and connecting to one the VMM
 * listens on (link/client.c)
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "unixsock.h"

/**
 * unix_listen() - listen on a UNIX socket path, non-blocking
 * @path:	where
 *
 * A socket left there by a crashed instance is replaced, never one some
 * other process still listens on.
 *
 * Return: the socket, or -1 with errno set (EADDRINUSE if another process
 * listens there, ENAMETOOLONG for a path too long)
 */
int unix_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		errno = EADDRINUSE;
		return -1;
	}
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/**
 * unix_connect_at() - connect to a UNIX socket in a directory, non-blocking
 * @dir_fd:	the directory (O_PATH will do)
 * @name:	the socket's name in it
 *
 * There is no connectat(): the directory becomes the working one, which
 * also reaches a directory outside an isolated process's root, and keeps
 * the address short whatever the directory's path.  A UNIX socket's
 * connect() does not wait: it succeeds, or fails at once (EAGAIN when
 * the listener's backlog is full).
 *
 * Return: the connected socket, or -1 with errno set (ENOENT where nothing
 * is there yet, ECONNREFUSED where nothing listens any more)
 */
int unix_connect_at(int dir_fd, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(name) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, name);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (fchdir(dir_fd) || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/**
 * unix_fds_take() - the descriptors a message received carried
 *		     (SCM_RIGHTS), appended to an array
 * @mh:		the message, its control data as recvmsg() left it
 * @fds:	the array
 * @n:		descriptors in @fds, updated
 * @max:	room in @fds: descriptors past it are closed
 *
 * Return: 0 if every descriptor was taken, -1 with errno EPROTO if some
 * had no room or the control data was cut short (MSG_CTRUNC): a peer
 * that sent more than the protocol lets it
 */
int unix_fds_take(struct msghdr *mh, int *fds, unsigned int *n,
		  unsigned int max)
{
	struct cmsghdr *cm;
	bool extra = false;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t i, k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			if (*n < max) {
				fds[(*n)++] = fd;
			} else {
				close(fd);
				extra = true;
			}
		}
	}
	if (extra || (mh->msg_flags & MSG_CTRUNC)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}
