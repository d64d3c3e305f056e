/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - sets of ports, one bit each: what is forwarded, what the pod
 * or the namespace listens on
 */
#ifndef NETSHIM_PORTSET_H
#define NETSHIM_PORTSET_H

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

#endif /* NETSHIM_PORTSET_H */
