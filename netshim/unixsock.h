/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - listening UNIX sockets at a path, and connecting to one
 */
#ifndef NETSHIM_UNIXSOCK_H
#define NETSHIM_UNIXSOCK_H

int unix_listen(const char *path);
int unix_connect_at(int dir_fd, const char *name);

#endif /* NETSHIM_UNIXSOCK_H */
