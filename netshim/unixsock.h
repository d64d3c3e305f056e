/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - listening UNIX sockets at a path
 */
#ifndef NETSHIM_UNIXSOCK_H
#define NETSHIM_UNIXSOCK_H

int unix_listen(const char *path);

#endif /* NETSHIM_UNIXSOCK_H */
