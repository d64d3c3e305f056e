/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - identity maps of user namespaces
 */
#ifndef NETSHIM_USERNS_H
#define NETSHIM_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

int userns_map_uid(pid_t pid, uid_t inside);
int userns_map_gid(pid_t pid, gid_t inside);
bool userns_initial(void);
bool userns_maps(uid_t uid, gid_t gid);

#endif /* NETSHIM_USERNS_H */
