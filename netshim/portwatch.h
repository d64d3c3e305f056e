/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - which ports have listeners on the far side (-t/-u/-T/-U auto)
 */
#ifndef NETSHIM_PORTWATCH_H
#define NETSHIM_PORTWATCH_H

#include <stdbool.h>
#include <stdint.h>

#define PORTSET_WORDS	(65536 / 64)

/**
 * struct portset - a set of ports, one bit each
 * @w:		bits, port p is bit p % 64 of word p / 64
 */
struct portset {
	uint64_t w[PORTSET_WORDS];
};

/**
 * portset_add() - put a port in a set
 * @s:		set
 * @port:	port
 */
static inline void portset_add(struct portset *s, uint16_t port)
{
	s->w[port / 64] |= 1ULL << (port % 64);
}

/**
 * portset_del() - take a port out of a set
 * @s:		set
 * @port:	port
 */
static inline void portset_del(struct portset *s, uint16_t port)
{
	s->w[port / 64] &= ~(1ULL << (port % 64));
}

/**
 * portset_has() - tell if a port is in a set
 * @s:		set
 * @port:	port
 *
 * Return: true if it is
 */
static inline bool portset_has(const struct portset *s, uint16_t port)
{
	return s->w[port / 64] & (1ULL << (port % 64));
}

int portwatch_next_change(const struct portset *cur, const struct portset *seen,
			  const struct portset *skip, unsigned int from,
			  bool *bind);
#define PORTWATCH_SKIP_MAX	2

/**
 * struct portwatch - a sock_diag socket inside the watched namespace
 * @fd:		netlink socket, -1 if closed
 * @seq:	sequence number of the last request
 * @skip_ino:	inodes of sockets of our own that scans leave out, 0: none
 */
struct portwatch {
	int fd;
	uint32_t seq;
	uint32_t skip_ino[PORTWATCH_SKIP_MAX];
};

int portwatch_open(struct portwatch *pw);
int portwatch_skip(struct portwatch *pw, unsigned int i, int fd);
int portwatch_scan(struct portwatch *pw, int proto, bool skip_lo,
		   struct portset *out);

#endif /* NETSHIM_PORTWATCH_H */
