/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - which ports have listeners on the far side (-t/-u/-T/-U auto)
 */
#ifndef NETSHIM_PORTWATCH_H
#define NETSHIM_PORTWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/portset.h"

int portwatch_next_change(const struct portset *cur, const struct portset *seen,
			  const struct portset *skip, unsigned int from,
			  bool *bind);

/**
 * struct sockset - sockets of our own, by socket cookie (SO_COOKIE)
 * @slot:	open-addressing table, 0 for a free slot
 * @mask:	table size less one (a power of two less one)
 * @n:		cookies held
 *
 * Sized once at start-up for the most sockets it will hold; adding and
 * removing from the loop allocate nothing.
 */
struct sockset {
	uint64_t *slot;
	uint32_t mask;
	uint32_t n;
};

int sockset_init(struct sockset *s, uint32_t max);
int sockset_add(struct sockset *s, uint64_t cookie);
void sockset_del(struct sockset *s, uint64_t cookie);
bool sockset_has(const struct sockset *s, uint64_t cookie);
uint64_t sock_cookie(int fd);

/**
 * struct portwatch - a sock_diag socket inside the watched namespace
 * @fd:		netlink socket, -1 if closed
 * @seq:	sequence number of the last request
 * @own:	our own sockets, which scans leave out whatever their port;
 *		NULL: none
 */
struct portwatch {
	int fd;
	uint32_t seq;
	const struct sockset *own;
};

int portwatch_open(struct portwatch *pw);
int portwatch_scan(struct portwatch *pw, int proto, bool skip_lo,
		   struct portset *out);

#endif /* NETSHIM_PORTWATCH_H */
