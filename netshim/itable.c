// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - index tables: the slots of a fixed table, chained by hash
 *
 * The flow table, the TCP connections and the UDP local flows are each an
 * array sized at start-up, looked up by a key.  This keeps, for any of
 * them, the free slots in a list and the used ones in hash chains, in two
 * arrays of indices allocated once: taking or giving back a slot, and
 * walking a chain, allocate nothing.  Twice as many buckets as slots keep
 * the chains short.
 */
#include <stdlib.h>

#include "itable.h"

/**
 * itable_init() - allocate the index of a table of @n slots, all free
 * @t:		table
 * @n:		slots, at least one
 *
 * Nothing of it is written here: the buckets are zero pages the kernel
 * hands out on first write (calloc() of a large size maps them), and
 * slots from @hiwater on are free without being on the free list, so a
 * table sized for 65536 connections costs memory only as slots are used.
 *
 * Return: 0 on success, -1 with errno set if out of memory
 */
int itable_init(struct itable *t, uint32_t n)
{
	uint32_t nb;

	for (nb = 1; nb < n * 2; nb <<= 1)
		;
	t->next = malloc(sizeof(*t->next) * n);
	t->bucket = calloc(nb, sizeof(*t->bucket));
	if (!t->next || !t->bucket) {
		free(t->next);
		free(t->bucket);
		return -1;
	}
	t->mask = nb - 1;
	t->free = -1;
	t->n = n;
	t->used = t->hiwater = 0;
	return 0;
}

/**
 * itable_take() - take a free slot and put it in the chain of a hash
 * @t:		table
 * @hash:	the key's hash, all 32 bits
 *
 * Return: the slot, -1 if the table is full
 */
int32_t itable_take(struct itable *t, uint32_t hash)
{
	int32_t slot = t->free;
	uint32_t b = hash & t->mask;

	if (slot >= 0)
		t->free = t->next[slot];
	else if (t->hiwater < t->n)
		slot = (int32_t)t->hiwater;	/* never used yet */
	else
		return -1;
	t->next[slot] = t->bucket[b] - 1;
	t->bucket[b] = slot + 1;
	t->used++;
	if ((uint32_t)slot + 1 > t->hiwater)
		t->hiwater = (uint32_t)slot + 1;
	return slot;
}

/**
 * itable_put() - take a slot out of its chain and make it free
 * @t:		table
 * @slot:	a slot in use
 * @hash:	the hash it was taken with
 */
void itable_put(struct itable *t, int32_t slot, uint32_t hash)
{
	int32_t *head = &t->bucket[hash & t->mask], *pp;

	if (*head - 1 == slot) {
		*head = t->next[slot] + 1;
	} else if (*head) {
		for (pp = &t->next[*head - 1]; *pp >= 0 && *pp != slot;
		     pp = &t->next[*pp])
			;
		if (*pp == slot)
			*pp = t->next[slot];
	}
	t->next[slot] = t->free;
	t->free = slot;
	t->used--;
}
