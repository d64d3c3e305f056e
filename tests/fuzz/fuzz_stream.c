// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: stream_next(), the VMM framing
 *
 * The input is what a VMM could write on the link.  Every frame handed out
 * must lie inside the buffer, right behind its length field, and the
 * parser must either advance or stop: a loop that neither would hang the
 * daemon.
 */
#include "common.h"
#include "netshim/ctx.h"
#include "link/framing.h"

/**
 * walk() - cut a buffer into frames as link_input() does, checking each
 * @data:	stream bytes
 * @size:	their number
 * @max_frame:	largest frame accepted
 */
static void walk(const uint8_t *data, size_t size, size_t max_frame)
{
	size_t off = 0, before;
	enum stream_result r;
	struct pkt frame;
	uint32_t sum = 0;

	for (;;) {
		before = off;
		r = stream_next(data, size, &off, max_frame, &frame);
		if (r != STREAM_FRAME) {
			FUZZ_CHECK(r == STREAM_MORE || r == STREAM_BAD_LENGTH);
			FUZZ_CHECK(off == before);
			break;
		}
		FUZZ_CHECK(frame.len >= STREAM_MIN_FRAME);
		FUZZ_CHECK(frame.len <= max_frame);
		FUZZ_CHECK(frame.data == data + before + STREAM_HDR_LEN);
		FUZZ_CHECK(off == before + STREAM_HDR_LEN + frame.len);
		FUZZ_CHECK(off <= size);
		/* Read every byte, so ASan checks the whole frame */
		for (size_t i = 0; i < frame.len; i++)
			sum += frame.data[i];
	}
	/* Keep the reads from being optimised away */
	__asm__ volatile("" : : "r"(sum));
}

/**
 * LLVMFuzzerInitialize() - nothing to set up
 * @argc:	libFuzzer's arguments, unused
 * @argv:	libFuzzer's arguments, unused
 *
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/**
 * LLVMFuzzerTestOneInput() - one stream, with the daemon's limit and a
 *			      small one that makes more lengths impossible
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	walk(data, size, FRAME_MAX);
	walk(data, size, 1514);
	return 0;
}
