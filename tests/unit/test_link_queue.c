// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the queue of frames to the guest
 *
 * The queue is what the stream back-end sends as it is, so every frame must
 * come out in QEMU's stream framing (a 32-bit big-endian length, then the
 * frame), in order, whatever mix of reservations built it.
 */
#include <stdlib.h>

#include "unit.h"
#include "netshim/ctx.h"
#include "link/queue.h"
#include "link/framing.h"

#define QSIZE	(3 * (LQ_HDR_LEN + FRAME_MAX))

static struct tx q;

/**
 * setup() - an empty queue with room for three of the largest frames
 * @state:	unused
 *
 * Return: 0
 */
static int setup(void **state)
{
	(void)state;
	q.size = QSIZE;
	q.buf = malloc(q.size);
	q.head = q.tail = 0;
	assert_non_null(q.buf);
	return 0;
}

/**
 * teardown() - free the queue
 * @state:	unused
 *
 * Return: 0
 */
static int teardown(void **state)
{
	(void)state;
	free(q.buf);
	return 0;
}

/**
 * put() - reserve, fill and commit one frame
 * @len:	its length
 * @seed:	its first byte; the others count up
 *
 * Return: true if there was room
 */
static bool put(size_t len, uint8_t seed)
{
	uint8_t *f = lq_reserve(&q, len);
	size_t i;

	if (!f)
		return false;
	for (i = 0; i < len; i++)
		f[i] = (uint8_t)(seed + i);
	lq_commit(&q, f, len);
	return true;
}

/**
 * expect() - the oldest queued frame, in stream framing, then drop it
 * @len:	its expected length
 * @seed:	its expected first byte
 */
static void expect(size_t len, uint8_t seed)
{
	size_t off = q.head, flen, i;
	struct pkt f;
	uint8_t *p;

	assert_int_equal(stream_next(q.buf, q.tail, &off, FRAME_MAX, &f),
			 STREAM_FRAME);
	assert_int_equal(f.len, len);
	assert_true(lq_peek(&q, &p, &flen));
	assert_ptr_equal(p, f.data);
	assert_int_equal(flen, len);
	for (i = 0; i < len; i++)
		assert_int_equal(p[i], (uint8_t)(seed + i));
	lq_drop_head(&q);
}

static void test_in_order(void **state)
{
	(void)state;
	assert_false(lq_pending(&q));
	assert_true(put(60, 1));
	assert_true(put(1514, 2));
	assert_true(put(FRAME_MAX, 3));
	assert_true(lq_pending(&q));
	expect(60, 1);
	expect(1514, 2);
	expect(FRAME_MAX, 3);
	assert_false(lq_pending(&q));
	assert_int_equal(q.head, 0);		/* emptied: back to the start */
}

/* A frame is queued only on commit, shorter than reserved if need be */
static void test_commit_shorter(void **state)
{
	uint8_t *f;
	size_t len;

	(void)state;
	f = lq_reserve(&q, FRAME_MAX);
	assert_non_null(f);
	assert_false(lq_pending(&q));
	assert_false(lq_peek(&q, &f, &len));
	f = lq_reserve(&q, FRAME_MAX);
	memset(f, 7, 100);
	lq_commit(&q, f, 100);
	assert_true(lq_peek(&q, &f, &len));
	assert_int_equal(len, 100);
}

/* Full: no room is given, and room comes back as frames leave */
static void test_full(void **state)
{
	int n = 0;

	(void)state;
	while (put(FRAME_MAX, (uint8_t)n))
		n++;
	assert_int_equal(n, 3);
	assert_int_equal(lq_room(&q), 0);
	expect(FRAME_MAX, 0);
	/* The queued frames move to the front to make the room */
	assert_true(put(FRAME_MAX, 9));
	expect(FRAME_MAX, 1);
	expect(FRAME_MAX, 2);
	expect(FRAME_MAX, 9);
}

/* Batches: back to back in commit order, cut to the room there is */
static void test_batch(void **state)
{
	uint8_t *frames[8];
	int n, i;

	(void)state;
	n = lq_reserve_batch(&q, 1000, 8, frames);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		memset(frames[i], i, 1000);
		lq_commit(&q, frames[i], i == n - 1 ? 10 : 1000);
	}
	for (i = 0; i < n; i++) {
		size_t len;
		uint8_t *p;

		assert_true(lq_peek(&q, &p, &len));
		assert_int_equal(len, i == n - 1 ? 10 : 1000);
		assert_int_equal(p[0], i);
		lq_drop_head(&q);
	}
	n = lq_reserve_batch(&q, FRAME_MAX, 8, frames);
	assert_int_equal(n, 3);
}

/**
 * test_meta() - a back-end that offloads keeps each frame's metadata
 *		 between its length and its bytes, and gets it back with it
 * @state:	unused
 */
static void test_meta(void **state)
{
	uint8_t *frames[4], *p;
	size_t len;
	int n, i;

	(void)state;
	q.meta = 10;
	n = lq_reserve_batch(&q, 1000, 4, frames);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(frames[i] - 10 - LQ_HDR_LEN,
				 q.buf + (size_t)i * (LQ_HDR_LEN + 10 + 1000));
		memset(lq_meta(&q, frames[i]), 0xa0 + i, 10);
		memset(frames[i], i, 1000);
		lq_commit(&q, frames[i], 1000);
	}
	for (i = 0; i < n; i++) {
		assert_true(lq_peek(&q, &p, &len));
		assert_int_equal(len, 1000);
		assert_int_equal(p[0], i);
		assert_int_equal(p[999], i);
		assert_int_equal(lq_meta(&q, p)[0], 0xa0 + i);
		assert_int_equal(lq_meta(&q, p)[9], 0xa0 + i);
		lq_drop_head(&q);
	}
	assert_false(lq_pending(&q));
	/* Three of the largest frames no longer fit with their metadata */
	assert_int_equal(lq_reserve_batch(&q, FRAME_MAX, 8, frames), 2);
	q.meta = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_commit_shorter, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meta, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
