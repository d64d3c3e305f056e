// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the virtio-net header
 *
 * Expectations from virtio 1.2, 5.1.6: fields little-endian in the order
 * flags, gso_type, hdr_len, gso_size, csum_start, csum_offset; a driver
 * may only use the offloads it negotiated (5.1.6.2.1); Linux's virtio_net
 * sends TSO frames with NEEDS_CSUM, csum_start at the TCP header and
 * csum_offset 16.
 */
#include "unit.h"
#include "link/vnet.h"

static const struct vnet_accept all = { true, true, true, true };
static const struct vnet_accept none;

/**
 * parse() - parse ten header bytes for a frame
 * @h:		header bytes
 * @flen:	frame length
 * @ok:		negotiated offloads
 * @o:		filled in
 *
 * Return: what vnet_hdr_parse() returns
 */
static int parse(const uint8_t *h, size_t flen, const struct vnet_accept *ok,
		 struct link_offload *o)
{
	struct pkt p = { h, VNET_HDR_BASE_LEN };

	return vnet_hdr_parse(&p, flen, ok, o);
}

/**
 * test_build() - a TSO frame to the guest, byte by byte
 * @state:	unused
 */
static void test_build(void **state)
{
	struct link_offload o = {
		.flags = VNET_F_NEEDS_CSUM, .gso_type = VNET_GSO_TCPV6,
		.hdr_len = 74, .gso_size = 1440, .csum_start = 54,
		.csum_offset = 16,
	};
	const uint8_t want[] = { 1, 4, 74, 0, 0xa0, 0x05, 54, 0, 16, 0 };
	uint8_t out[VNET_HDR_BASE_LEN];

	(void)state;
	vnet_hdr_build(out, &o);
	assert_memory_equal(out, want, sizeof(want));
	memset(out, 0xff, sizeof(out));
	vnet_hdr_build(out, NULL);
	assert_memory_equal(out, (uint8_t[VNET_HDR_BASE_LEN]){ 0 },
			    VNET_HDR_BASE_LEN);
}

/**
 * test_parse_linux_tso() - what Linux sends for a 64 KiB TSO frame
 * @state:	unused
 */
static void test_parse_linux_tso(void **state)
{
	const uint8_t h[] = { 1, 1, 66, 0, 0xb4, 0x05, 34, 0, 16, 0 };
	struct link_offload o;

	(void)state;
	assert_int_equal(parse(h, 65000, &all, &o), 0);
	assert_int_equal(o.flags, VNET_F_NEEDS_CSUM);
	assert_int_equal(o.gso_type, VNET_GSO_TCPV4);
	assert_int_equal(o.hdr_len, 66);
	assert_int_equal(o.gso_size, 1460);
	assert_int_equal(o.csum_start, 34);
	assert_int_equal(o.csum_offset, 16);
	/* Not negotiated: dropped */
	assert_int_equal(parse(h, 65000, &none, &o), -1);
}

/**
 * test_parse_plain() - no offload at all is always fine
 * @state:	unused
 */
static void test_parse_plain(void **state)
{
	const uint8_t h[VNET_HDR_BASE_LEN] = { 0 };
	const uint8_t valid[VNET_HDR_BASE_LEN] = { VNET_F_DATA_VALID };
	struct link_offload o;

	(void)state;
	assert_int_equal(parse(h, 60, &none, &o), 0);
	assert_int_equal(o.flags, 0);
	assert_int_equal(o.gso_type, VNET_GSO_NONE);
	/* DATA_VALID from a driver means nothing: ignored, not trusted */
	assert_int_equal(parse(valid, 60, &none, &o), 0);
	assert_int_equal(o.flags, 0);
}

/**
 * test_parse_bad() - headers a driver must not send
 * @state:	unused
 */
static void test_parse_bad(void **state)
{
	/* checksum field past the end of the frame */
	const uint8_t csum_out[] = { 1, 0, 0, 0, 0, 0, 34, 0, 16, 0 };
	/* csum_start + csum_offset wrapping 16 bits is still refused */
	const uint8_t csum_far[] = { 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	/* GSO without a segment size */
	const uint8_t no_size[] = { 1, 1, 54, 0, 0, 0, 34, 0, 16, 0 };
	/* headers longer than the frame */
	const uint8_t long_hdr[] = { 1, 4, 0xff, 0x0f, 0xa0, 5, 54, 0, 16, 0 };
	/* UDP fragmentation offload, never offered */
	const uint8_t ufo[] = { 1, 3, 42, 0, 0xa0, 5, 34, 0, 6, 0 };
	/* ECN bit on a frame that is not GSO */
	const uint8_t ecn_plain[] = { 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0 };
	/* a flag no version of the spec has */
	const uint8_t flag[] = { 8, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t ecn[] = { 1, 0x81, 54, 0, 0xa0, 5, 34, 0, 16, 0 };
	struct vnet_accept no_ecn = all;
	struct link_offload o;
	uint8_t short_hdr[4] = { 0 };
	struct pkt p = { short_hdr, sizeof(short_hdr) };

	(void)state;
	assert_int_equal(parse(csum_out, 40, &all, &o), -1);
	assert_int_equal(parse(csum_out, 52, &all, &o), 0);
	assert_int_equal(parse(csum_far, 65535, &all, &o), -1);
	assert_int_equal(parse(no_size, 3000, &all, &o), -1);
	assert_int_equal(parse(long_hdr, 3000, &all, &o), -1);
	assert_int_equal(parse(ufo, 3000, &all, &o), -1);
	assert_int_equal(parse(ecn_plain, 60, &all, &o), -1);
	assert_int_equal(parse(flag, 60, &all, &o), -1);
	assert_int_equal(parse(ecn, 3000, &all, &o), 0);
	no_ecn.ecn = false;
	assert_int_equal(parse(ecn, 3000, &no_ecn, &o), -1);
	assert_int_equal(vnet_hdr_parse(&p, 60, &all, &o), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_parse_linux_tso),
		cmocka_unit_test(test_parse_plain),
		cmocka_unit_test(test_parse_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
