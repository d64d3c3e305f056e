/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - descriptors a running netshim handed over for an upgrade in
 * place, until the rooms that would open them take them
 */
#ifndef NETSHIM_FDPOOL_H
#define NETSHIM_FDPOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

/* What a descriptor of the pool is: the room that takes it knows */
enum fdpool_kind {
	FDPOOL_INET	= 1,	/* a bound TCP or UDP socket (-t, -u, -T,
				 * -U, sk_lookup): taken by its address */
	FDPOOL_UNIX	= 2,	/* a listening UNIX socket: by its path */
	FDPOOL_TAP	= 3,	/* namespace mode's tap device */
	FDPOOL_KIND_MAX	= 3,
};

int fdpool_init(void);
int fdpool_put(enum fdpool_kind kind, int fd);
bool fdpool_on(void);
int fdpool_take_inet(int type, const struct in6_addr *a, uint16_t port);
bool fdpool_has_unix(const char *path);
int fdpool_take_unix(const char *path);
int fdpool_take(enum fdpool_kind kind);
unsigned int fdpool_drain(void);
void fdpool_orphans_remove(void);

#endif /* NETSHIM_FDPOOL_H */
