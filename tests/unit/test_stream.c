// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the QEMU "-netdev stream" framing
 *
 * Every call to stream_next() gets a heap copy of exactly the bytes a read
 * would have delivered, so that ASan reports any read past them.
 */
#include <stdlib.h>

#include "unit.h"
#include "netshim/ctx.h"
#include "link/framing.h"

#define BIG	(STREAM_HDR_LEN + FRAME_MAX + 64)

/**
 * put_frame() - append one length-prefixed frame with recognisable bytes
 * @buf:	stream buffer
 * @at:		where the length field goes
 * @flen:	frame length
 * @seed:	first byte of the frame; the others count up from it
 *
 * Return: offset after the frame
 */
static size_t put_frame(uint8_t *buf, size_t at, uint32_t flen, uint8_t seed)
{
	uint32_t i;

	buf[at] = flen >> 24;
	buf[at + 1] = (flen >> 16) & 0xff;
	buf[at + 2] = (flen >> 8) & 0xff;
	buf[at + 3] = flen & 0xff;
	for (i = 0; i < flen; i++)
		buf[at + STREAM_HDR_LEN + i] = (uint8_t)(seed + i);
	return at + STREAM_HDR_LEN + flen;
}

/**
 * next_exact() - stream_next() on a heap copy of exactly @len bytes
 * @buf:	stream bytes
 * @len:	how many of them have arrived
 * @off:	offset of the next length field, updated as stream_next() does
 * @frame:	the frame, offsets translated back into @buf
 *
 * Return: what stream_next() returned
 */
static enum stream_result next_exact(const uint8_t *buf, size_t len,
				     size_t *off, struct pkt *frame)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum stream_result r;
	struct pkt f = { NULL, 0 };

	assert_non_null(copy);
	memcpy(copy, buf, len);
	r = stream_next(copy, len, off, FRAME_MAX, &f);
	if (r == STREAM_FRAME) {
		assert_true(f.data >= copy && f.data + f.len <= copy + len);
		frame->data = buf + (f.data - copy);
		frame->len = f.len;
	}
	free(copy);
	return r;
}

/**
 * assert_frame() - check a returned frame's place and contents
 * @frame:	frame returned by stream_next()
 * @buf:	stream buffer
 * @at:		offset of the frame's length field in @buf
 * @flen:	expected frame length
 * @seed:	seed given to put_frame()
 */
static void assert_frame(const struct pkt *frame, const uint8_t *buf,
			 size_t at, uint32_t flen, uint8_t seed)
{
	uint32_t i;

	assert_ptr_equal(frame->data, buf + at + STREAM_HDR_LEN);
	assert_int_equal(frame->len, flen);
	for (i = 0; i < flen; i++)
		assert_int_equal(frame->data[i], (uint8_t)(seed + i));
}

/**
 * test_one_frame() - a single minimal frame is returned whole, then MORE
 * @state:	cmocka state, unused
 */
static void test_one_frame(void **state)
{
	uint8_t buf[64];
	struct pkt f;
	size_t off = 0, end;

	(void)state;
	end = put_frame(buf, 0, 60, 0x10);
	assert_int_equal(next_exact(buf, end, &off, &f), STREAM_FRAME);
	assert_frame(&f, buf, 0, 60, 0x10);
	assert_int_equal(off, end);
	assert_int_equal(next_exact(buf, end, &off, &f), STREAM_MORE);
	assert_int_equal(off, end);
}

/**
 * test_several_frames() - frames packed in one read come out in order
 * @state:	cmocka state, unused
 */
static void test_several_frames(void **state)
{
	static const uint32_t lens[] = { 14, 60, 1514, 15, 9000 };
	uint8_t *buf = calloc(1, 16384);
	size_t at[5], end = 0, off = 0;
	struct pkt f;
	unsigned int i;

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < 5; i++) {
		at[i] = end;
		end = put_frame(buf, end, lens[i], (uint8_t)(i * 40));
	}
	for (i = 0; i < 5; i++) {
		assert_int_equal(off, at[i]);
		assert_int_equal(next_exact(buf, end, &off, &f), STREAM_FRAME);
		assert_frame(&f, buf, at[i], lens[i], (uint8_t)(i * 40));
	}
	assert_int_equal(off, end);
	assert_int_equal(next_exact(buf, end, &off, &f), STREAM_MORE);
	assert_int_equal(off, end);
	free(buf);
}

/**
 * test_split_everywhere() - a frame cut at any byte waits for its rest
 * @state:	cmocka state, unused
 *
 * A complete frame comes first, so the incomplete one starts at a non-zero
 * offset: that offset must stay put while the rest is missing.
 */
static void test_split_everywhere(void **state)
{
	uint8_t buf[18 + 4 + 100];
	size_t first, end, cut, off;
	struct pkt f;

	(void)state;
	first = put_frame(buf, 0, 14, 0xa0);
	end = put_frame(buf, first, 100, 0x33);
	for (cut = first; cut < end; cut++) {
		off = 0;
		assert_int_equal(next_exact(buf, cut, &off, &f), STREAM_FRAME);
		assert_frame(&f, buf, 0, 14, 0xa0);
		assert_int_equal(off, first);
		assert_int_equal(next_exact(buf, cut, &off, &f), STREAM_MORE);
		assert_int_equal(off, first);

		/* the rest arrives: the caller hands over all bytes again */
		assert_int_equal(next_exact(buf, end, &off, &f), STREAM_FRAME);
		assert_frame(&f, buf, first, 100, 0x33);
		assert_int_equal(off, end);
	}
}

/**
 * test_split_first_frame() - cut inside the very first frame
 * @state:	cmocka state, unused
 */
static void test_split_first_frame(void **state)
{
	uint8_t buf[4 + 14];
	size_t end, cut, off;
	struct pkt f;

	(void)state;
	end = put_frame(buf, 0, 14, 0x01);
	for (cut = 0; cut < end; cut++) {
		off = 0;
		assert_int_equal(next_exact(buf, cut, &off, &f), STREAM_MORE);
		assert_int_equal(off, 0);
	}
	off = 0;
	assert_int_equal(next_exact(buf, end, &off, &f), STREAM_FRAME);
	assert_frame(&f, buf, 0, 14, 0x01);
}

/**
 * bad_length() - a length field alone, with nothing behind it
 * @flen:	length field value
 *
 * Return: what stream_next() says about it, checking @off moved only past
 * a returned frame
 */
static enum stream_result bad_length(uint32_t flen)
{
	uint8_t buf[4 + 32] = { 0 };
	enum stream_result r;
	size_t off = 0;
	struct pkt f;

	buf[0] = flen >> 24;
	buf[1] = (flen >> 16) & 0xff;
	buf[2] = (flen >> 8) & 0xff;
	buf[3] = flen & 0xff;
	r = next_exact(buf, sizeof(buf), &off, &f);
	assert_int_equal(off, r == STREAM_FRAME ? 4 + flen : 0);
	return r;
}

/**
 * test_bad_lengths() - impossible lengths are reported at once
 * @state:	cmocka state, unused
 *
 * They must not be waited for (STREAM_MORE): the stream is out of sync.
 */
static void test_bad_lengths(void **state)
{
	(void)state;
	assert_int_equal(bad_length(0), STREAM_BAD_LENGTH);
	assert_int_equal(bad_length(1), STREAM_BAD_LENGTH);
	assert_int_equal(bad_length(13), STREAM_BAD_LENGTH);
	assert_int_equal(bad_length(65536), STREAM_BAD_LENGTH);
	assert_int_equal(bad_length(0x00ffffff), STREAM_BAD_LENGTH);
	assert_int_equal(bad_length(0x80000000), STREAM_BAD_LENGTH);
	assert_int_equal(bad_length(0xffffffff), STREAM_BAD_LENGTH);
	/* the shortest good one is waited for */
	assert_int_equal(bad_length(14), STREAM_FRAME);
	assert_int_equal(bad_length(33), STREAM_MORE);
}

/**
 * test_bad_length_header_only() - judged on the length field alone
 * @state:	cmocka state, unused
 */
static void test_bad_length_header_only(void **state)
{
	static const uint8_t zero[4] = { 0, 0, 0, 0 };
	static const uint8_t huge[4] = { 0, 1, 0, 0 };
	size_t off = 0;
	struct pkt f;

	(void)state;
	assert_int_equal(next_exact(zero, 4, &off, &f), STREAM_BAD_LENGTH);
	assert_int_equal(next_exact(huge, 4, &off, &f), STREAM_BAD_LENGTH);
	assert_int_equal(off, 0);
}

/**
 * test_max_frame() - a FRAME_MAX frame is accepted, and waited for
 * @state:	cmocka state, unused
 */
static void test_max_frame(void **state)
{
	uint8_t *buf = calloc(1, BIG);
	size_t end, off = 0;
	struct pkt f;

	(void)state;
	assert_non_null(buf);
	end = put_frame(buf, 0, FRAME_MAX, 0x77);
	assert_int_equal(next_exact(buf, end - 1, &off, &f), STREAM_MORE);
	assert_int_equal(off, 0);
	assert_int_equal(next_exact(buf, end, &off, &f), STREAM_FRAME);
	assert_frame(&f, buf, 0, FRAME_MAX, 0x77);
	assert_int_equal(off, end);
	free(buf);
}

/**
 * test_max_frame_argument() - the limit is the caller's, not a constant
 * @state:	cmocka state, unused
 */
static void test_max_frame_argument(void **state)
{
	uint8_t buf[4 + 1500];
	size_t end, off = 0;
	struct pkt f;

	(void)state;
	end = put_frame(buf, 0, 1500, 0);
	assert_int_equal(stream_next(buf, end, &off, 1499, &f),
			 STREAM_BAD_LENGTH);
	assert_int_equal(off, 0);
	assert_int_equal(stream_next(buf, end, &off, 1500, &f), STREAM_FRAME);
	assert_int_equal(off, end);
}

/**
 * test_garbage_after_frame() - a good frame, then bytes that are not one
 * @state:	cmocka state, unused
 */
static void test_garbage_after_frame(void **state)
{
	static const uint8_t junk[] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02 };
	uint8_t buf[4 + 60 + sizeof(junk)];
	size_t end, off = 0, n;
	struct pkt f;

	(void)state;
	end = put_frame(buf, 0, 60, 0x42);
	memcpy(buf + end, junk, sizeof(junk));

	/* fewer than four bytes of it: could still be a length */
	for (n = 0; n < 4; n++) {
		off = 0;
		assert_int_equal(next_exact(buf, end + n, &off, &f),
				 STREAM_FRAME);
		assert_frame(&f, buf, 0, 60, 0x42);
		assert_int_equal(next_exact(buf, end + n, &off, &f),
				 STREAM_MORE);
		assert_int_equal(off, end);
	}

	off = 0;
	assert_int_equal(next_exact(buf, sizeof(buf), &off, &f), STREAM_FRAME);
	assert_frame(&f, buf, 0, 60, 0x42);
	assert_int_equal(next_exact(buf, sizeof(buf), &off, &f),
			 STREAM_BAD_LENGTH);
	assert_int_equal(off, end);
}

/**
 * main() - run the stream framing tests
 *
 * Return: number of failed tests
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_frame),
		cmocka_unit_test(test_several_frames),
		cmocka_unit_test(test_split_everywhere),
		cmocka_unit_test(test_split_first_frame),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_bad_length_header_only),
		cmocka_unit_test(test_max_frame),
		cmocka_unit_test(test_max_frame_argument),
		cmocka_unit_test(test_garbage_after_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
