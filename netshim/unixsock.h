/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - listening UNIX sockets at a path, connecting to one, and the
 * descriptors a message on one carries
 */
#ifndef NETSHIM_UNIXSOCK_H
#define NETSHIM_UNIXSOCK_H

#include <sys/socket.h>

int unix_listen(const char *path);
int unix_connect_at(int dir_fd, const char *name);
int unix_fds_take(struct msghdr *mh, int *fds, unsigned int *n,
		  unsigned int max);

#endif /* NETSHIM_UNIXSOCK_H */
