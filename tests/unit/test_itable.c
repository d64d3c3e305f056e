// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the index table every flow table uses
 *
 * A table of a few slots, with keys of our own: every key taken must be
 * found by walking its chain, a key given back must not be, a full table
 * must refuse, slots given back must be taken again, and keys whose
 * hashes collide (in the buckets, or in all 32 bits) must all be found.
 */
#include <stdlib.h>

#include "unit.h"
#include "netshim/itable.h"

#define SLOTS	8

static struct itable t;
static uint32_t key_of[SLOTS];

/**
 * setup() - an empty table of SLOTS slots
 * @state:	unused
 *
 * Return: 0
 */
static int setup(void **state)
{
	(void)state;
	assert_int_equal(itable_init(&t, SLOTS), 0);
	return 0;
}

/**
 * teardown() - free the table's index
 * @state:	unused
 *
 * Return: 0
 */
static int teardown(void **state)
{
	(void)state;
	free(t.next);
	free(t.bucket);
	return 0;
}

/**
 * add() - take a slot for a key, remember the key in it
 * @key:	the key
 * @hash:	its hash
 *
 * Return: the slot
 */
static int32_t add(uint32_t key, uint32_t hash)
{
	int32_t slot = itable_take(&t, hash);

	assert_true(slot >= 0 && slot < SLOTS);
	key_of[slot] = key;
	return slot;
}

/**
 * find() - walk the chain of a hash for a key
 * @key:	the key
 * @hash:	its hash
 *
 * Return: its slot, -1 if not in the table
 */
static int32_t find(uint32_t key, uint32_t hash)
{
	int32_t i;

	for (i = itable_first(&t, hash); i >= 0; i = itable_next(&t, i))
		if (key_of[i] == key)
			return i;
	return -1;
}

/**
 * test_take_find_put() - keys are found while taken, not after
 * @state:	unused
 */
static void test_take_find_put(void **state)
{
	int32_t a, b;

	(void)state;
	a = add(100, 0x12345678);
	b = add(200, 0x9abcdef0);
	assert_int_not_equal(a, b);
	assert_int_equal(find(100, 0x12345678), a);
	assert_int_equal(find(200, 0x9abcdef0), b);
	assert_int_equal(find(300, 0x12345678), -1);
	assert_int_equal(t.used, 2);

	itable_put(&t, a, 0x12345678);
	assert_int_equal(find(100, 0x12345678), -1);
	assert_int_equal(find(200, 0x9abcdef0), b);
	assert_int_equal(t.used, 1);
}

/**
 * test_full() - every slot taken: the next take fails, a put makes room
 * @state:	unused
 */
static void test_full(void **state)
{
	int32_t slots[SLOTS], again;
	uint32_t i;

	(void)state;
	for (i = 0; i < SLOTS; i++)
		slots[i] = add(i, i * 0x9e3779b9u);
	assert_true(itable_full(&t));
	assert_int_equal(itable_take(&t, 42), -1);
	assert_int_equal(t.used, SLOTS);
	assert_int_equal(t.hiwater, SLOTS);
	for (i = 0; i < SLOTS; i++)
		assert_int_equal(find(i, i * 0x9e3779b9u), slots[i]);

	/* The slot given back is the one taken next */
	itable_put(&t, slots[3], 3 * 0x9e3779b9u);
	assert_false(itable_full(&t));
	again = add(1000, 77);
	assert_int_equal(again, slots[3]);
	assert_int_equal(find(1000, 77), again);
	assert_int_equal(find(3, 3 * 0x9e3779b9u), -1);
}

/**
 * test_collisions() - keys in one chain, taken out from its middle, its
 *		       head and its tail
 * @state:	unused
 */
static void test_collisions(void **state)
{
	uint32_t same_bucket = 5 + (t.mask + 1);	/* bucket 5 as 5 is */
	int32_t a, b, c, d;

	(void)state;
	a = add(1, 5);
	b = add(2, same_bucket);
	c = add(3, 5);
	d = add(4, 6);
	assert_int_equal(find(1, 5), a);
	assert_int_equal(find(2, same_bucket), b);
	assert_int_equal(find(3, 5), c);
	assert_int_equal(find(4, 6), d);

	itable_put(&t, b, same_bucket);		/* the middle */
	assert_int_equal(find(1, 5), a);
	assert_int_equal(find(2, same_bucket), -1);
	assert_int_equal(find(3, 5), c);

	itable_put(&t, c, 5);			/* the head: taken last */
	assert_int_equal(find(1, 5), a);
	assert_int_equal(find(3, 5), -1);

	itable_put(&t, a, 5);			/* the only one left */
	assert_int_equal(itable_first(&t, 5), -1);
	assert_int_equal(find(4, 6), d);
	assert_int_equal(t.used, 1);
}

/**
 * test_hiwater() - the scan bound only grows, to one past the highest
 *		    slot ever taken
 * @state:	unused
 */
static void test_hiwater(void **state)
{
	int32_t a, b;

	(void)state;
	assert_int_equal(t.hiwater, 0);
	a = add(1, 1);
	b = add(2, 2);
	assert_int_equal(t.hiwater, (uint32_t)(a > b ? a : b) + 1);
	itable_put(&t, b, 2);
	itable_put(&t, a, 1);
	assert_int_equal(t.used, 0);
	assert_int_equal(t.hiwater, (uint32_t)(a > b ? a : b) + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_take_find_put, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collisions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hiwater, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
