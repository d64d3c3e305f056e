// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of TCP segment parsing and header building
 *
 * Segments are built byte by byte and parsed from heap buffers of their
 * exact length, so that ASan reports any read past them.
 */
#include <stdlib.h>

#include "unit.h"
#include "tcp/segment.h"

#define SEG_MAX		256

/* MSS 1460, SACK permitted, timestamps, NOP, window scale 7: Linux's SYN */
static const uint8_t linux_syn_opts[20] = {
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
	0x00, 0x01, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x03, 0x03, 0x07,
};

/**
 * struct parsed - outcome of tcp_seg_parse(), payload as an offset
 * @rc:		return code
 * @s:		parsed segment
 * @poff:	offset of the payload in the segment
 */
struct parsed {
	int rc;
	struct tcp_seg s;
	size_t poff;
};

/**
 * seg_build() - a TCP segment from its fields
 * @b:		buffer
 * @flags:	TH_* flags
 * @opts:	options, a multiple of 4 bytes long
 * @optlen:	their length
 * @paylen:	bytes of payload to add after the options
 *
 * Ports 40000 -> 443, seq 0x01020304, ack 0xa0b0c0d0, window 0xfaf0.
 *
 * Return: segment length
 */
static size_t seg_build(uint8_t *b, uint8_t flags, const uint8_t *opts,
			size_t optlen, size_t paylen)
{
	static const uint8_t fixed[TCP_HLEN] = {
		0x9c, 0x40, 0x01, 0xbb, 0x01, 0x02, 0x03, 0x04,
		0xa0, 0xb0, 0xc0, 0xd0, 0x00, 0x00, 0xfa, 0xf0,
		0x12, 0x34, 0x00, 0x00,
	};
	size_t i;

	memcpy(b, fixed, TCP_HLEN);
	b[12] = (uint8_t)((TCP_HLEN + optlen) / 4 << 4);
	b[13] = flags;
	if (optlen)
		memcpy(b + TCP_HLEN, opts, optlen);
	for (i = 0; i < paylen; i++)
		b[TCP_HLEN + optlen + i] = (uint8_t)(i + 0x61);
	return TCP_HLEN + optlen + paylen;
}

/**
 * parse_exact() - tcp_seg_parse() on a heap copy of exactly @len bytes
 * @b:		segment
 * @len:	its length
 *
 * Return: the outcome
 */
static struct parsed parse_exact(const uint8_t *b, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct parsed r;
	struct pkt p;

	assert_non_null(copy);
	memcpy(copy, b, len);
	memset(&r, 0, sizeof(r));
	p.data = copy;
	p.len = len;
	r.rc = tcp_seg_parse(&p, &r.s);
	if (!r.rc) {
		assert_true(r.s.payload.data >= copy &&
			    r.s.payload.data + r.s.payload.len <= copy + len);
		r.poff = (size_t)(r.s.payload.data - copy);
	}
	free(copy);
	return r;
}

/**
 * syn_with() - parse a SYN carrying @opts
 * @opts:	options
 * @optlen:	their length, a multiple of 4
 *
 * Return: the outcome
 */
static struct parsed syn_with(const uint8_t *opts, size_t optlen)
{
	uint8_t b[SEG_MAX];

	return parse_exact(b, seg_build(b, TH_SYN, opts, optlen, 0));
}

/**
 * test_parse_fields() - ports, numbers, flags, window of a plain ACK
 * @state:	cmocka state, unused
 */
static void test_parse_fields(void **state)
{
	uint8_t b[SEG_MAX];
	struct parsed r;

	(void)state;
	r = parse_exact(b, seg_build(b, TH_ACK | TH_PSH, NULL, 0, 0));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.sport, 40000);
	assert_int_equal(r.s.dport, 443);
	assert_int_equal(r.s.seq, 0x01020304);
	assert_int_equal(r.s.ack, 0xa0b0c0d0);
	assert_int_equal(r.s.flags, TH_ACK | TH_PSH);
	assert_int_equal(r.s.wnd, 0xfaf0);
	assert_int_equal(r.s.mss, 0);
	assert_false(r.s.has_ws);
	assert_int_equal(r.s.payload.len, 0);
	assert_int_equal(r.poff, 20);
}

/**
 * test_parse_ecn_bits_ignored() - CWR/ECE (and NS) do not show as flags
 * @state:	cmocka state, unused
 */
static void test_parse_ecn_bits_ignored(void **state)
{
	uint8_t b[SEG_MAX];
	struct parsed r;

	(void)state;
	seg_build(b, 0xc0 | TH_ACK, NULL, 0, 0);
	b[12] |= 0x01;
	r = parse_exact(b, 20);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.flags, TH_ACK);
}

/**
 * test_parse_syn_linux_options() - MSS, SACK-permitted, TS, NOP, WS
 * @state:	cmocka state, unused
 */
static void test_parse_syn_linux_options(void **state)
{
	struct parsed r;

	(void)state;
	r = syn_with(linux_syn_opts, sizeof(linux_syn_opts));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.flags, TH_SYN);
	assert_int_equal(r.s.mss, 1460);
	assert_true(r.s.has_ws);
	assert_int_equal(r.s.ws, 7);
	assert_true(r.s.sack_ok);
	assert_int_equal(r.s.payload.len, 0);
	assert_int_equal(r.poff, 40);
}

/**
 * test_parse_syn_other_order() - NOP-padded options in another order
 * @state:	cmocka state, unused
 */
static void test_parse_syn_other_order(void **state)
{
	static const uint8_t opts[24] = {
		0x01, 0x03, 0x03, 0x0e,			/* NOP, WS 14 */
		0x01, 0x01, 0x04, 0x02,			/* NOP NOP SACK-perm */
		0x01, 0x01, 0x08, 0x0a,			/* NOP NOP TS */
		0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x04, 0x23, 0x28,			/* MSS 9000 */
	};
	struct parsed r;

	(void)state;
	r = syn_with(opts, sizeof(opts));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.mss, 9000);
	assert_true(r.s.has_ws);
	assert_int_equal(r.s.ws, 14);
	assert_true(r.s.sack_ok);
}

/**
 * test_parse_syn_no_options() - MSS 0 (absent), no window scale
 * @state:	cmocka state, unused
 */
static void test_parse_syn_no_options(void **state)
{
	struct parsed r;

	(void)state;
	r = syn_with(NULL, 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.mss, 0);
	assert_false(r.s.has_ws);
	assert_false(r.s.sack_ok);
}

/**
 * test_parse_ws_clamped() - a window scale above 14 counts as 14
 * @state:	cmocka state, unused
 */
static void test_parse_ws_clamped(void **state)
{
	static const uint8_t shifts[] = { 0, 1, 13, 14, 15, 16, 100, 255 };
	uint8_t opts[4] = { 0x01, 0x03, 0x03, 0 };
	struct parsed r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shifts); i++) {
		opts[3] = shifts[i];
		r = syn_with(opts, sizeof(opts));
		assert_int_equal(r.rc, 0);
		assert_true(r.s.has_ws);
		assert_int_equal(r.s.ws, shifts[i] > 14 ? 14 : shifts[i]);
	}
}

/**
 * test_parse_eol() - options end at EOL, whatever follows
 * @state:	cmocka state, unused
 */
static void test_parse_eol(void **state)
{
	static const uint8_t opts[8] = {
		0x02, 0x04, 0x05, 0xb4, 0x00, 0x03, 0x00, 0xff,
	};
	struct parsed r;

	(void)state;
	r = syn_with(opts, sizeof(opts));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.mss, 1460);
	assert_false(r.s.has_ws);
}

/**
 * test_parse_odd_length_known_options() - MSS or WS of the wrong size
 * @state:	cmocka state, unused
 *
 * Skipped by their length, never read as a value.
 */
static void test_parse_odd_length_known_options(void **state)
{
	static const uint8_t opts[8] = {
		0x02, 0x03, 0x05, 0x03, 0x04, 0x07, 0x00, 0x00,
	};
	struct parsed r;

	(void)state;
	r = syn_with(opts, sizeof(opts));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.mss, 0);
	assert_false(r.s.has_ws);
}

/**
 * test_parse_bad_option_length() - option lengths 0 and 1 loop or lie
 * @state:	cmocka state, unused
 */
static void test_parse_bad_option_length(void **state)
{
	uint8_t opts[8] = { 0x02, 0x04, 0x05, 0xb4, 0x00, 0x00, 0x00, 0x00 };
	uint8_t kind, len;

	(void)state;
	for (kind = 2; kind < 10; kind++) {
		for (len = 0; len < 2; len++) {
			opts[4] = kind;
			opts[5] = len;
			assert_int_equal(syn_with(opts, sizeof(opts)).rc, -1);
		}
	}
}

/**
 * test_parse_option_past_header() - an option longer than what is left
 * @state:	cmocka state, unused
 *
 * Payload follows the header, so running into it must be caught by the
 * data offset, not by the segment length.
 */
static void test_parse_option_past_header(void **state)
{
	static const uint8_t tails[][4] = {
		{ 0x01, 0x01, 0x02, 0x04 },	/* MSS missing its value */
		{ 0x01, 0x01, 0x01, 0x02 },	/* kind without length */
		{ 0x01, 0x03, 0x03, 0x07 },	/* fine: control */
		{ 0x08, 0x0a, 0x00, 0x00 },	/* timestamps, 10 of 4 */
		{ 0x01, 0x03, 0x04, 0x07 },	/* WS of length 4 in 3 */
		{ 0x01, 0x01, 0x01, 0x08 },	/* kind without length */
	};
	uint8_t b[SEG_MAX];
	struct parsed r;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		len = seg_build(b, TH_SYN, tails[i], 4, 40);
		r = parse_exact(b, len);
		assert_int_equal(r.rc, i == 2 ? 0 : -1);
		len = seg_build(b, TH_SYN, tails[i], 4, 0);
		r = parse_exact(b, len);
		assert_int_equal(r.rc, i == 2 ? 0 : -1);
	}
}

/**
 * test_parse_options_only_on_syn() - MSS on a non-SYN is not taken
 * @state:	cmocka state, unused
 */
static void test_parse_options_only_on_syn(void **state)
{
	uint8_t b[SEG_MAX];
	struct parsed r;

	(void)state;
	r = parse_exact(b, seg_build(b, TH_ACK, linux_syn_opts,
				     sizeof(linux_syn_opts), 10));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.mss, 0);
	assert_false(r.s.has_ws);
	assert_int_equal(r.poff, 40);
	assert_int_equal(r.s.payload.len, 10);
}

/**
 * test_parse_data_offset() - below 5, or beyond the segment
 * @state:	cmocka state, unused
 */
static void test_parse_data_offset(void **state)
{
	uint8_t b[SEG_MAX];
	unsigned int doff;
	struct parsed r;

	(void)state;
	seg_build(b, TH_ACK, NULL, 0, 40);
	for (doff = 0; doff < 16; doff++) {
		b[12] = (uint8_t)(doff << 4);
		/* 40 bytes: offsets up to 10 words fit */
		r = parse_exact(b, 40);
		assert_int_equal(r.rc, doff >= 5 && doff <= 10 ? 0 : -1);
		if (!r.rc) {
			assert_int_equal(r.poff, doff * 4);
			assert_int_equal(r.s.payload.len, 40 - doff * 4);
		}
	}
}

/**
 * test_parse_truncated() - shorter than a header, at every length
 * @state:	cmocka state, unused
 */
static void test_parse_truncated(void **state)
{
	uint8_t b[SEG_MAX];
	size_t len, full;

	(void)state;
	full = seg_build(b, TH_SYN, linux_syn_opts, sizeof(linux_syn_opts), 0);
	for (len = 0; len < full; len++)
		assert_int_equal(parse_exact(b, len).rc, -1);
	assert_int_equal(parse_exact(b, full).rc, 0);
}

/**
 * test_parse_bad_flags() - SYN with RST or FIN
 * @state:	cmocka state, unused
 */
static void test_parse_bad_flags(void **state)
{
	static const uint8_t bad[] = {
		TH_SYN | TH_RST, TH_SYN | TH_FIN, TH_SYN | TH_RST | TH_ACK,
		TH_SYN | TH_FIN | TH_ACK, TH_SYN | TH_FIN | TH_RST, 0x3f,
	};
	static const uint8_t good[] = {
		TH_SYN, TH_SYN | TH_ACK, TH_RST, TH_FIN | TH_ACK,
		TH_RST | TH_ACK, TH_ACK | TH_PSH | TH_URG,
	};
	uint8_t b[SEG_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad); i++)
		assert_int_equal(parse_exact(b, seg_build(b, bad[i], NULL, 0,
							   0)).rc, -1);
	for (i = 0; i < sizeof(good); i++)
		assert_int_equal(parse_exact(b, seg_build(b, good[i], NULL, 0,
							   0)).rc, 0);
}

/**
 * test_parse_port_zero() - port 0 on either side
 * @state:	cmocka state, unused
 */
static void test_parse_port_zero(void **state)
{
	uint8_t b[SEG_MAX];

	(void)state;
	seg_build(b, TH_SYN, NULL, 0, 0);
	b[0] = b[1] = 0;
	assert_int_equal(parse_exact(b, 20).rc, -1);
	seg_build(b, TH_SYN, NULL, 0, 0);
	b[2] = b[3] = 0;
	assert_int_equal(parse_exact(b, 20).rc, -1);
	seg_build(b, TH_ACK, NULL, 0, 0);
	b[0] = b[1] = b[2] = b[3] = 0;
	assert_int_equal(parse_exact(b, 20).rc, -1);
}

/**
 * test_parse_payload() - the payload is what follows the data offset
 * @state:	cmocka state, unused
 */
static void test_parse_payload(void **state)
{
	static const uint8_t ts[12] = { 0x01, 0x01, 0x08, 0x0a, 1, 2, 3, 4,
					5, 6, 7, 8 };
	uint8_t b[SEG_MAX];
	struct parsed r;
	size_t i;

	(void)state;
	r = parse_exact(b, seg_build(b, TH_ACK | TH_PSH, NULL, 0, 100));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.poff, 20);
	assert_int_equal(r.s.payload.len, 100);

	r = parse_exact(b, seg_build(b, TH_ACK, ts, sizeof(ts), 7));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.poff, 32);
	assert_int_equal(r.s.payload.len, 7);
	for (i = 0; i < 7; i++)
		assert_int_equal(b[r.poff + i], 0x61 + i);

	/* data on a SYN is kept too */
	r = parse_exact(b, seg_build(b, TH_SYN, linux_syn_opts,
				     sizeof(linux_syn_opts), 5));
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.poff, 40);
	assert_int_equal(r.s.payload.len, 5);
}

/**
 * test_build_plain() - no options: 20 bytes, every one checked
 * @state:	cmocka state, unused
 */
static void test_build_plain(void **state)
{
	static const uint8_t want[20] = {
		0x01, 0xbb, 0x9c, 0x40,		/* 443 -> 40000 */
		0x89, 0xab, 0xcd, 0xef,		/* seq */
		0x01, 0x02, 0x03, 0x05,		/* ack */
		0x50, 0x11,			/* doff 5, FIN|ACK */
		0x12, 0x34,			/* window */
		0x00, 0x00, 0x00, 0x00,		/* checksum, urgent */
	};
	uint8_t out[40];

	(void)state;
	memset(out, 0xcc, sizeof(out));
	assert_int_equal(tcp_hdr_build(out, 443, 40000, 0x89abcdef,
				       0x01020305, TH_FIN | TH_ACK, 0x1234, 0,
				       -1), 20);
	assert_memory_equal(out, want, 20);
	assert_int_equal(out[20], 0xcc);

	/* a window scale alone is never sent: it goes with the MSS */
	memset(out, 0xcc, sizeof(out));
	assert_int_equal(tcp_hdr_build(out, 443, 40000, 0x89abcdef,
				       0x01020305, TH_FIN | TH_ACK, 0x1234, 0,
				       7), 20);
	assert_memory_equal(out, want, 20);
	assert_int_equal(out[20], 0xcc);
}

/**
 * test_build_mss() - MSS only: 24 bytes, data offset 6
 * @state:	cmocka state, unused
 */
static void test_build_mss(void **state)
{
	static const uint8_t want[24] = {
		0x00, 0x50, 0xff, 0xfe, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff, 0x60, 0x12, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x05, 0x8c,
	};
	uint8_t out[40];

	(void)state;
	memset(out, 0xcc, sizeof(out));
	assert_int_equal(tcp_hdr_build(out, 80, 65534, 0, 0xffffffff,
				       TH_SYN | TH_ACK, 0xffff, 1420, -1), 24);
	assert_memory_equal(out, want, 24);
	assert_int_equal(out[24], 0xcc);
}

/**
 * test_build_mss_ws() - MSS, NOP, WS: 28 bytes, data offset 7
 * @state:	cmocka state, unused
 */
static void test_build_mss_ws(void **state)
{
	static const uint8_t want[28] = {
		0x00, 0x16, 0xc3, 0x50, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x70, 0x02, 0x72, 0x10,
		0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0xff, 0xd7,
		0x01, 0x03, 0x03, 0x0e,
	};
	uint8_t out[40];

	(void)state;
	memset(out, 0xcc, sizeof(out));
	assert_int_equal(tcp_hdr_build(out, 22, 50000, 0x1000, 0, TH_SYN,
				       29200, 65495, 14), 28);
	assert_memory_equal(out, want, 28);
	assert_int_equal(out[28], 0xcc);

	/* shift 0 is an option too */
	assert_int_equal(tcp_hdr_build(out, 22, 50000, 0x1000, 0, TH_SYN,
				       29200, 65495, 0), 28);
	assert_int_equal(out[27], 0);
}

/**
 * test_build_sack_perm() - MSS, WS, then NOP NOP SACK-permitted: 32 bytes
 * @state:	cmocka state, unused
 */
static void test_build_sack_perm(void **state)
{
	uint8_t out[TCP_HLEN + TCP_OPTLEN_MAX + 4];
	size_t len;

	(void)state;
	memset(out, 0xcc, sizeof(out));
	len = tcp_hdr_build(out, 22, 50000, 0x1000, 0x2000,
			    TH_SYN | TH_ACK, 29200, 1460, 8);
	assert_int_equal(len, 28);
	len = tcp_hdr_sack_perm(out, len);
	assert_int_equal(len, 32);
	assert_int_equal(out[12], 8 << 4);
	assert_int_equal(out[28], 1);
	assert_int_equal(out[29], 1);
	assert_int_equal(out[30], 4);
	assert_int_equal(out[31], 2);
	assert_int_equal(out[32], 0xcc);
	/* The options must stay within TCP_OPTLEN_MAX: no more fits */
	assert_int_equal(tcp_hdr_sack_perm(out, len), 32);
}

/**
 * test_build_sack_block() - NOP NOP, kind 5, length 10, left, right
 * @state:	cmocka state, unused
 */
static void test_build_sack_block(void **state)
{
	static const uint8_t want[12] = {
		0x01, 0x01, 0x05, 0x0a, 0xff, 0xff, 0xff, 0xf0,
		0x00, 0x00, 0x10, 0x10,
	};
	uint8_t out[TCP_HLEN + TCP_OPTLEN_MAX + 4];
	struct parsed r;
	size_t len;

	(void)state;
	memset(out, 0xcc, sizeof(out));
	len = tcp_hdr_build(out, 443, 40000, 7, 0xffffff00, TH_ACK, 512, 0,
			    -1);
	len = tcp_hdr_sack(out, len, 0xfffffff0, 0x1010);
	assert_int_equal(len, 32);
	assert_int_equal(out[12], 8 << 4);
	assert_memory_equal(out + 20, want, sizeof(want));
	assert_int_equal(out[32], 0xcc);

	/* Parsed back, the payload starts behind the options */
	r = parse_exact(out, len);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.poff, 32);
	assert_int_equal(r.s.payload.len, 0);
}

/**
 * test_build_flags() - every flag lands in byte 13, offset in byte 12
 * @state:	cmocka state, unused
 */
static void test_build_flags(void **state)
{
	uint8_t out[40];
	unsigned int f;

	(void)state;
	for (f = 0; f < 0x40; f++) {
		memset(out, 0xcc, sizeof(out));
		tcp_hdr_build(out, 1, 2, 3, 4, (uint8_t)f, 5, 0, -1);
		assert_int_equal(out[12], 0x50);
		assert_int_equal(out[13], f);
	}
}

/**
 * round_trip() - build a header, add payload, parse it back
 * @flags:	TH_* flags
 * @mss:	MSS option, 0 for none
 * @ws:		window scale option, -1 for none
 * @paylen:	payload bytes after the header
 */
static void round_trip(uint8_t flags, uint16_t mss, int ws, size_t paylen)
{
	uint8_t b[SEG_MAX];
	struct parsed r;
	size_t hl, i;

	hl = tcp_hdr_build(b, 33000, 8080, 0xfffffffe, 0x7fffffff, flags,
			   0xabcd, mss, ws);
	for (i = 0; i < paylen; i++)
		b[hl + i] = (uint8_t)i;
	r = parse_exact(b, hl + paylen);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.s.sport, 33000);
	assert_int_equal(r.s.dport, 8080);
	assert_int_equal(r.s.seq, 0xfffffffe);
	assert_int_equal(r.s.ack, 0x7fffffff);
	assert_int_equal(r.s.flags, flags);
	assert_int_equal(r.s.wnd, 0xabcd);
	assert_int_equal(r.poff, hl);
	assert_int_equal(r.s.payload.len, paylen);
	if (!(flags & TH_SYN))
		return;
	assert_int_equal(r.s.mss, mss);
	assert_int_equal(r.s.has_ws, mss && ws >= 0);
	if (r.s.has_ws)
		assert_int_equal(r.s.ws, ws);
}

/**
 * test_round_trip() - what netshim builds, it parses back the same
 * @state:	cmocka state, unused
 */
static void test_round_trip(void **state)
{
	(void)state;
	round_trip(TH_SYN | TH_ACK, 1460, 7, 0);
	round_trip(TH_SYN | TH_ACK, 1460, -1, 0);
	round_trip(TH_SYN, 536, 0, 0);
	round_trip(TH_SYN, 0, -1, 0);
	round_trip(TH_ACK, 0, -1, 0);
	round_trip(TH_ACK | TH_PSH, 0, -1, 100);
	round_trip(TH_FIN | TH_ACK, 0, -1, 1);
	round_trip(TH_RST, 0, -1, 0);
}

/**
 * main() - run the TCP segment tests
 *
 * Return: number of failed tests
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_parse_ecn_bits_ignored),
		cmocka_unit_test(test_parse_syn_linux_options),
		cmocka_unit_test(test_parse_syn_other_order),
		cmocka_unit_test(test_parse_syn_no_options),
		cmocka_unit_test(test_parse_ws_clamped),
		cmocka_unit_test(test_parse_eol),
		cmocka_unit_test(test_parse_odd_length_known_options),
		cmocka_unit_test(test_parse_bad_option_length),
		cmocka_unit_test(test_parse_option_past_header),
		cmocka_unit_test(test_parse_options_only_on_syn),
		cmocka_unit_test(test_parse_data_offset),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_bad_flags),
		cmocka_unit_test(test_parse_port_zero),
		cmocka_unit_test(test_parse_payload),
		cmocka_unit_test(test_build_plain),
		cmocka_unit_test(test_build_mss),
		cmocka_unit_test(test_build_mss_ws),
		cmocka_unit_test(test_build_sack_perm),
		cmocka_unit_test(test_build_sack_block),
		cmocka_unit_test(test_build_flags),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
