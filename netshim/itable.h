/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - index tables: the slots of a fixed table, chained by hash
 */
#ifndef NETSHIM_ITABLE_H
#define NETSHIM_ITABLE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct itable - which slots of a table sized at start-up are in use,
 *		   and a hash index over them
 * @next:	of each slot ever used, the next one in its hash chain, or in
 *		the free list while it is free; -1 ends both
 * @bucket:	first slot of each hash chain plus one, 0 if empty (so that
 *		zeroed memory is an empty index)
 * @mask:	buckets less one, the buckets a power of two
 * @free:	first slot freed and not taken again, -1 for none
 * @n:		slots
 * @used:	slots in use
 * @hiwater:	one past the highest slot ever used: scans stop there, and
 *		the slots from it on are free
 *
 * The entries themselves are the user's array, indexed by slot: the
 * table only keeps indices, so one implementation serves every table.
 */
struct itable {
	int32_t *next;
	int32_t *bucket;
	uint32_t mask;
	int32_t free;
	uint32_t n;
	uint32_t used;
	uint32_t hiwater;
};

int itable_init(struct itable *t, uint32_t n);
int32_t itable_take(struct itable *t, uint32_t hash);
void itable_put(struct itable *t, int32_t slot, uint32_t hash);

/**
 * itable_full() - is every slot in use
 * @t:		table
 *
 * Return: true if itable_take() would fail
 */
static inline bool itable_full(const struct itable *t)
{
	return t->free < 0 && t->hiwater >= t->n;
}

/**
 * itable_first() - first slot of the chain a hash falls in
 * @t:		table
 * @hash:	the key's hash, all 32 bits
 *
 * Return: a slot, -1 if the chain is empty
 */
static inline int32_t itable_first(const struct itable *t, uint32_t hash)
{
	return t->bucket[hash & t->mask] - 1;
}

/**
 * itable_next() - the next slot in the same chain
 * @t:		table
 * @slot:	a slot in use
 *
 * Return: a slot, -1 at the end of the chain
 */
static inline int32_t itable_next(const struct itable *t, int32_t slot)
{
	return t->next[slot];
}

#endif /* NETSHIM_ITABLE_H */
