// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of TCP sequence arithmetic and window bookkeeping */
#include "unit.h"
#include "tcp/seq.h"

/**
 * assert_order() - @a comes strictly before @b in sequence space
 * @a:		earlier sequence number
 * @b:		later sequence number
 */
static void assert_order(uint32_t a, uint32_t b)
{
	assert_true(seq_lt(a, b));
	assert_true(seq_le(a, b));
	assert_false(seq_gt(a, b));
	assert_false(seq_ge(a, b));
	assert_true(seq_gt(b, a));
	assert_true(seq_ge(b, a));
	assert_false(seq_lt(b, a));
	assert_false(seq_le(b, a));
}

/**
 * test_seq_compare() - comparisons, plain and across 2^32
 * @state:	cmocka state, unused
 */
static void test_seq_compare(void **state)
{
	static const uint32_t base[] = { 0, 1, 1000, 0x7fffffff, 0x80000000,
					 0xfffffff0, 0xffffffff };
	size_t i;

	(void)state;
	assert_order(1, 2);
	assert_order(0xffffffff, 0);
	assert_order(0xfffffff0, 0x10);
	assert_order(0xffff0000, 0x0000ffff);
	assert_order(0x80000000, 0x80000001);
	assert_order(0x7fffffff, 0x80000000);
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		/* the farthest ahead that is still ahead: 2^31 - 1 */
		assert_order(base[i], base[i] + 1);
		assert_order(base[i], base[i] + 0x7fffffff);
		assert_order(base[i] - 0x7fffffff, base[i]);

		assert_true(seq_le(base[i], base[i]));
		assert_true(seq_ge(base[i], base[i]));
		assert_false(seq_lt(base[i], base[i]));
		assert_false(seq_gt(base[i], base[i]));
	}
}

/**
 * test_seg_fit_in_order() - the segment starts at the expected byte
 * @state:	cmocka state, unused
 */
static void test_seg_fit_in_order(void **state)
{
	uint32_t skip = 99;

	(void)state;
	assert_int_equal(seg_fit(1000, 1000, 500, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 0);
	skip = 99;
	assert_int_equal(seg_fit(1000, 1000, 0, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 0);
	skip = 99;
	assert_int_equal(seg_fit(0xffffffff, 0xffffffff, 10, &skip),
			 SEG_IN_ORDER);
	assert_int_equal(skip, 0);
}

/**
 * test_seg_fit_old() - entirely received already: duplicate or keepalive
 * @state:	cmocka state, unused
 */
static void test_seg_fit_old(void **state)
{
	uint32_t skip = 99;

	(void)state;
	assert_int_equal(seg_fit(1000, 900, 100, &skip), SEG_OLD);
	assert_int_equal(skip, 0);
	assert_int_equal(seg_fit(1000, 500, 10, &skip), SEG_OLD);
	/* keepalive: one byte before, no data (or one garbage byte) */
	assert_int_equal(seg_fit(1000, 999, 0, &skip), SEG_OLD);
	assert_int_equal(seg_fit(1000, 999, 1, &skip), SEG_OLD);
	assert_int_equal(skip, 0);
}

/**
 * test_seg_fit_future() - starts after the expected byte: something lost
 * @state:	cmocka state, unused
 */
static void test_seg_fit_future(void **state)
{
	uint32_t skip = 99;

	(void)state;
	assert_int_equal(seg_fit(1000, 1001, 100, &skip), SEG_FUTURE);
	assert_int_equal(skip, 0);
	assert_int_equal(seg_fit(1000, 1000u + 65536, 0, &skip), SEG_FUTURE);
	assert_int_equal(seg_fit(1000, 1000u + 0x7fffffff, 1, &skip),
			 SEG_FUTURE);
}

/**
 * test_seg_fit_overlap() - partly old: the received part is skipped
 * @state:	cmocka state, unused
 */
static void test_seg_fit_overlap(void **state)
{
	uint32_t skip = 0;

	(void)state;
	assert_int_equal(seg_fit(1000, 900, 150, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 100);
	assert_int_equal(seg_fit(1000, 999, 2, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 1);
	assert_int_equal(seg_fit(1000, 0, 1460 * 10, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 1000);
}

/**
 * test_seg_fit_wrap() - the same rules across 2^32
 * @state:	cmocka state, unused
 */
static void test_seg_fit_wrap(void **state)
{
	uint32_t skip = 0;

	(void)state;
	/* overlapping the wrap: 0x20 bytes old, 0x10 new */
	assert_int_equal(seg_fit(0x10, 0xfffffff0, 0x30, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 0x20);
	/* ends exactly at the expected byte, across the wrap */
	assert_int_equal(seg_fit(0, 0xfffffff0, 0x10, &skip), SEG_OLD);
	assert_int_equal(seg_fit(5, 0xfffffff0, 0x10, &skip), SEG_OLD);
	assert_int_equal(seg_fit(5, 0xfffffff0, 0x15, &skip), SEG_OLD);
	assert_int_equal(seg_fit(5, 0xfffffff0, 0x16, &skip), SEG_IN_ORDER);
	assert_int_equal(skip, 0x15);
	/* ahead, across the wrap */
	assert_int_equal(seg_fit(0xfffffff0, 0x10, 100, &skip), SEG_FUTURE);
	assert_int_equal(seg_fit(0xffffffff, 0, 1, &skip), SEG_FUTURE);
	assert_int_equal(skip, 0);
}

/**
 * test_ack_fit() - old, in-range and beyond-sent acknowledgements
 * @state:	cmocka state, unused
 */
static void test_ack_fit(void **state)
{
	uint32_t acked = 99;

	(void)state;
	/* old: harmless, nothing newly acknowledged */
	assert_true(ack_fit(1000, 2000, 999, &acked));
	assert_int_equal(acked, 0);
	assert_true(ack_fit(1000, 2000, 1, &acked));
	assert_int_equal(acked, 0);

	assert_true(ack_fit(1000, 2000, 1000, &acked));
	assert_int_equal(acked, 0);
	assert_true(ack_fit(1000, 2000, 1500, &acked));
	assert_int_equal(acked, 500);
	assert_true(ack_fit(1000, 2000, 2000, &acked));
	assert_int_equal(acked, 1000);

	/* never sent */
	acked = 99;
	assert_false(ack_fit(1000, 2000, 2001, &acked));
	assert_int_equal(acked, 0);
	assert_false(ack_fit(1000, 1000, 1001, &acked));
	assert_false(ack_fit(1000, 2000, 0x7fff0000, &acked));
	assert_int_equal(acked, 0);
}

/**
 * test_ack_fit_wrap() - the same rules across 2^32
 * @state:	cmocka state, unused
 */
static void test_ack_fit_wrap(void **state)
{
	uint32_t acked = 0;

	(void)state;
	assert_true(ack_fit(0xfffffff0, 0x10, 0x5, &acked));
	assert_int_equal(acked, 0x15);
	assert_true(ack_fit(0xfffffff0, 0x10, 0x10, &acked));
	assert_int_equal(acked, 0x20);
	assert_true(ack_fit(0xfffffff0, 0x10, 0xffffffe0, &acked));
	assert_int_equal(acked, 0);
	assert_false(ack_fit(0xfffffff0, 0x10, 0x11, &acked));
	assert_int_equal(acked, 0);
}

/**
 * test_wnd_to_guest() - scaled down, never more than the room, clamped
 * @state:	cmocka state, unused
 */
static void test_wnd_to_guest(void **state)
{
	(void)state;
	assert_int_equal(wnd_to_guest(0, 0), 0);
	assert_int_equal(wnd_to_guest(1000, 0), 1000);
	assert_int_equal(wnd_to_guest(0xffff, 0), 0xffff);
	assert_int_equal(wnd_to_guest(0x10000, 0), 0xffff);
	assert_int_equal(wnd_to_guest(0x10000, 1), 0x8000);
	assert_int_equal(wnd_to_guest(4 << 20, 7), 0x8000);
	/* rounded down: the guest is never told of room that is not there */
	assert_int_equal(wnd_to_guest(1023, 10), 0);
	assert_int_equal(wnd_to_guest(1025, 10), 1);
	assert_int_equal(wnd_to_guest(0xffffffff, 14), 0xffff);
	assert_int_equal(wnd_to_guest(0xffffffff, 0), 0xffff);
	assert_int_equal(wnd_to_guest(0xffff << 14, 14), 0xffff);
}

/**
 * test_send_budget() - what the guest's window still has room for
 * @state:	cmocka state, unused
 */
static void test_send_budget(void **state)
{
	(void)state;
	assert_int_equal(send_budget(1000, 1000, 65535), 65535);
	assert_int_equal(send_budget(1000, 1400, 1000), 600);
	assert_int_equal(send_budget(1000, 2000, 1000), 0);
	/* the window shrank below what is in flight */
	assert_int_equal(send_budget(1000, 3000, 1000), 0);
	assert_int_equal(send_budget(1000, 1000, 0), 0);
	assert_int_equal(send_budget(1000, 1500, 0), 0);
	/* across 2^32 */
	assert_int_equal(send_budget(0xffffff00, 0x100, 0x1000), 0xe00);
	assert_int_equal(send_budget(0xffffff00, 0x100, 0x200), 0);
	assert_int_equal(send_budget(0, 0, 0xffffffff), 0xffffffff);
}

/**
 * test_ack_hold() - an ACK for at least every second full-sized segment
 * (RFC 5681 4.2), never held when the guest may run short of window
 * @state:	cmocka state, unused
 */
static void test_ack_hold(void **state)
{
	(void)state;
	/* One segment, full-sized or not, may wait for the next */
	assert_true(ack_hold(1460, 1460, 65535));
	assert_true(ack_hold(100, 1460, 65535));
	assert_true(ack_hold(65480, 65480, 4 << 20));
	/* A second one is acknowledged at once */
	assert_false(ack_hold(1461, 1460, 65535));
	assert_false(ack_hold(2920, 1460, 65535));
	assert_false(ack_hold(65481, 65480, 4 << 20));
	/* Less than two more full segments of window left after it */
	assert_false(ack_hold(1460, 1460, 4379));
	assert_true(ack_hold(1460, 1460, 4380));
	assert_false(ack_hold(100, 1460, 0));
	assert_false(ack_hold(65480, 65480, 65535));
	/* No wrap in the sum with the largest figures */
	assert_false(ack_hold(0xffffffff, 0xffffffff, 0xffffffff));
}

/**
 * test_ws_for_room() - the smallest shift that fits, at most 14
 * @state:	cmocka state, unused
 */
static void test_ws_for_room(void **state)
{
	uint32_t room;
	uint8_t ws;
	int i;

	(void)state;
	assert_int_equal(ws_for_room(0), 0);
	assert_int_equal(ws_for_room(0xffff), 0);
	assert_int_equal(ws_for_room(0x10000), 1);
	assert_int_equal(ws_for_room(0x1ffff), 1);
	assert_int_equal(ws_for_room(0x20000), 2);
	assert_int_equal(ws_for_room(4 << 20), 7);
	assert_int_equal(ws_for_room(0xffffu << 14), 14);
	assert_int_equal(ws_for_room((0xffffu << 14) + (1u << 14)), 14);
	assert_int_equal(ws_for_room(0xffffffff), TCP_WS_MAX);

	for (i = 0; i < 32; i++) {
		room = (1u << i) | ((1u << i) - 1) >> 1;
		ws = ws_for_room(room);
		assert_true(ws <= TCP_WS_MAX);
		assert_true(ws == TCP_WS_MAX || (room >> ws) <= 0xffff);
		assert_true(ws == 0 || (room >> (ws - 1)) > 0xffff);
	}
}

/**
 * main() - run the sequence arithmetic tests
 *
 * Return: number of failed tests
 */
/* RFC 6298: first sample, smoothing, the 200 ms floor and 10 s ceiling */
static void test_rto_sample(void **state)
{
	uint32_t srtt = 0, rttvar = 0;

	(void)state;
	/* a fast local link: the floor */
	assert_int_equal(rto_sample(&srtt, &rttvar, 300), TCP_RTO_MIN_US);
	assert_int_equal(srtt, 300);
	assert_int_equal(rttvar, 150);

	/* a slow guest: 100 ms samples, RTO = SRTT + 4 RTTVAR */
	srtt = rttvar = 0;
	assert_int_equal(rto_sample(&srtt, &rttvar, 100000), 300000);
	/* same sample again: variation shrinks by a quarter */
	assert_int_equal(rto_sample(&srtt, &rttvar, 100000),
			 100000 + 4 * 37500);
	assert_int_equal(srtt, 100000);

	/* a sample far off moves SRTT by an eighth */
	rto_sample(&srtt, &rttvar, 900000);
	assert_int_equal(srtt, 100000 - 12500 + 112500);

	/* the ceiling */
	srtt = rttvar = 0;
	assert_int_equal(rto_sample(&srtt, &rttvar, 20000000), TCP_RTO_MAX_US);

	/* a zero sample never leaves SRTT at "no sample yet" */
	srtt = rttvar = 0;
	rto_sample(&srtt, &rttvar, 0);
	assert_true(srtt > 0);
	assert_int_equal(rto_of(0, 0), TCP_RTO_MIN_US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_compare),
		cmocka_unit_test(test_seg_fit_in_order),
		cmocka_unit_test(test_seg_fit_old),
		cmocka_unit_test(test_seg_fit_future),
		cmocka_unit_test(test_seg_fit_overlap),
		cmocka_unit_test(test_seg_fit_wrap),
		cmocka_unit_test(test_ack_fit),
		cmocka_unit_test(test_ack_fit_wrap),
		cmocka_unit_test(test_wnd_to_guest),
		cmocka_unit_test(test_send_budget),
		cmocka_unit_test(test_ack_hold),
		cmocka_unit_test(test_ws_for_room),
		cmocka_unit_test(test_rto_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
