// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the Internet checksum */
#include "unit.h"

#include <stdlib.h>

#include "netshim/checksum.h"

/* RFC 1071 as written: 16-bit big-endian words, byte by byte */
static uint16_t ref_csum(const uint8_t *b, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
		sum = (sum & 0xffff) + (sum >> 16);	/* end-around carry */
	}
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void test_matches_reference_all_lengths_and_alignments(void **state)
{
	uint8_t buf[2048 + 8];
	size_t len, off, i;

	(void)state;
	srand(1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	for (off = 0; off < 8; off++)
		for (len = 0; len <= 2048; len += (len < 80 ? 1 : 37))
			assert_int_equal(csum_fold(csum_add(buf + off, len, 0)),
					 ref_csum(buf + off, len, 0));
}

static void test_all_ones_carries(void **state)
{
	uint8_t buf[4096];

	(void)state;
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(csum_fold(csum_add(buf, sizeof(buf), 0)),
			 ref_csum(buf, sizeof(buf), 0));
	assert_int_equal(csum_fold(csum_add(buf, 3, 0xfffe)),
			 ref_csum(buf, 3, 0xfffe));
}

/* More than 65537 blocks of 32 bytes, all ones: each lane takes its
 * largest values for longer than it may hold them without a flush
 */
static void test_all_ones_past_a_lane(void **state)
{
	static uint8_t buf[(65537 + 3) * 32 + 7];
	size_t off;

	(void)state;
	memset(buf, 0xff, sizeof(buf));
	for (off = 0; off < 2; off++)
		assert_int_equal(csum_fold(csum_add(buf + off,
						    sizeof(buf) - off, 0)),
				 ref_csum(buf + off, sizeof(buf) - off, 0));
}

static void test_running_sum_in_pieces(void **state)
{
	uint8_t buf[1000];
	uint32_t sum;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	/* even-sized pieces chain like one buffer */
	sum = csum_add(buf, 100, 0);
	sum = csum_add(buf + 100, 900, sum);
	assert_int_equal(csum_fold(sum), ref_csum(buf, sizeof(buf), 0));
}

static void test_ipv4_header_known_value(void **state)
{
	/* the header of RFC 1071's era examples: a real IPv4 header */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
			  0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
			  0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	assert_int_equal(csum_ip4_header(h, 20), 0xb861);
	h[10] = 0xb8;
	h[11] = 0x61;
	assert_int_equal(csum_ip4_header(h, 20), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_reference_all_lengths_and_alignments),
		cmocka_unit_test(test_all_ones_carries),
		cmocka_unit_test(test_all_ones_past_a_lane),
		cmocka_unit_test(test_running_sum_in_pieces),
		cmocka_unit_test(test_ipv4_header_known_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
