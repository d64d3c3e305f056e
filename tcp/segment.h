/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - TCP segment parsing and header building (pure functions)
 */
#ifndef NETSHIM_TCP_SEGMENT_H
#define NETSHIM_TCP_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netshim/packet.h"

#define TCP_HLEN	20
/* Most option bytes we write: MSS, window scale and SACK-permitted on a
 * SYN, or one SACK block
 */
#define TCP_OPTLEN_MAX	12

#define TH_FIN	0x01
#define TH_SYN	0x02
#define TH_RST	0x04
#define TH_PSH	0x08
#define TH_ACK	0x10
#define TH_URG	0x20

/**
 * struct tcp_seg - a parsed guest segment
 * @sport:	source port
 * @dport:	destination port
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	TH_* flags
 * @wnd:	window field, unscaled
 * @mss:	MSS option, 0 if absent
 * @ws:		window scale option, if @has_ws
 * @has_ws:	window scale option present
 * @sack_ok:	SACK-permitted option present (RFC 2018)
 * @payload:	segment data
 */
struct tcp_seg {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	uint16_t mss;
	uint8_t ws;
	bool has_ws;
	bool sack_ok;
	struct pkt payload;
};

int tcp_seg_parse(const struct pkt *l4, struct tcp_seg *s);
size_t tcp_hdr_build(uint8_t *out, uint16_t sport, uint16_t dport,
		     uint32_t seq, uint32_t ack, uint8_t flags, uint16_t wnd,
		     uint16_t mss, int ws);
size_t tcp_hdr_sack_perm(uint8_t *out, size_t len);
size_t tcp_hdr_sack(uint8_t *out, size_t len, uint32_t left, uint32_t right);

#endif /* NETSHIM_TCP_SEGMENT_H */
