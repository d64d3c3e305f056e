// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - QEMU "-netdev stream" framing
 *
 * The VMM writes each frame as a 32-bit big-endian length followed by the
 * frame.  A read may end anywhere, so the parser stops at an incomplete
 * frame and the caller keeps those bytes for the next read.
 */
#include "framing.h"

/**
 * stream_next() - next complete frame in a buffer of stream bytes
 * @buf:	bytes read from the VMM
 * @len:	number of bytes in @buf
 * @off:	offset of the next length field, advanced past a returned frame
 * @max_frame:	largest acceptable frame length
 * @frame:	the frame, filled in on STREAM_FRAME
 *
 * Return: STREAM_FRAME, STREAM_MORE (@off unchanged), or STREAM_BAD_LENGTH
 * when the length field cannot be a frame: the stream is out of sync and the
 * connection must be reset.
 */
enum stream_result stream_next(const uint8_t *buf, size_t len, size_t *off,
			       size_t max_frame, struct pkt *frame)
{
	const struct pkt all = { buf, len };
	const uint8_t *hdr = pkt_get(&all, *off, STREAM_HDR_LEN);
	const uint8_t *data;
	uint32_t flen;

	if (!hdr)
		return STREAM_MORE;

	flen = rd32(hdr);
	if (flen < STREAM_MIN_FRAME || flen > max_frame)
		return STREAM_BAD_LENGTH;

	data = pkt_get(&all, *off + STREAM_HDR_LEN, flen);
	if (!data)
		return STREAM_MORE;

	frame->data = data;
	frame->len = flen;
	*off += STREAM_HDR_LEN + flen;
	return STREAM_FRAME;
}
