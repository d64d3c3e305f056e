/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - QEMU "-netdev stream" framing: 32-bit big-endian length, frame
 */
#ifndef NETSHIM_STREAM_H
#define NETSHIM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "netshim/packet.h"

#define STREAM_HDR_LEN		4
#define STREAM_MIN_FRAME	14	/* an Ethernet header */

enum stream_result {
	STREAM_FRAME,		/* a complete frame is returned */
	STREAM_MORE,		/* the rest of the frame has not arrived */
	STREAM_BAD_LENGTH,	/* zero, too short or too long: reset */
};

enum stream_result stream_next(const uint8_t *buf, size_t len, size_t *off,
			       size_t max_frame, struct pkt *frame);

#endif /* NETSHIM_STREAM_H */
