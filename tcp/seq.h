/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - TCP sequence arithmetic and the pure bookkeeping of tcp/
 *
 * Everything here is a function of its arguments only, so the rules that
 * decide what is written, acknowledged and advertised are unit-tested
 * without sockets (tests/unit/test_tcp_seq.c).
 */
#ifndef NETSHIM_TCP_SEQ_H
#define NETSHIM_TCP_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_WS_MAX	14

static inline bool seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

static inline bool seq_gt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static inline bool seq_ge(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

/* Where a guest segment falls relative to the next byte we expect */
enum seg_fit {
	SEG_IN_ORDER,	/* starts at, or overlaps, the expected byte */
	SEG_OLD,	/* entirely before it: a duplicate or keepalive */
	SEG_FUTURE,	/* starts after it: a byte was lost, re-ACK */
};

/**
 * seg_fit() - classify a guest data segment against the expected sequence
 * @expected:	next sequence number we expect from the guest
 * @seq:	segment sequence number
 * @len:	payload length
 * @skip:	for SEG_IN_ORDER, payload bytes already received, to skip
 *
 * Return: how the segment fits
 */
static inline enum seg_fit seg_fit(uint32_t expected, uint32_t seq,
				   uint32_t len, uint32_t *skip)
{
	*skip = 0;
	if (seq == expected)
		return SEG_IN_ORDER;
	if (seq_gt(seq, expected))
		return SEG_FUTURE;
	if (seq_le(seq + len, expected))
		return SEG_OLD;
	*skip = expected - seq;
	return SEG_IN_ORDER;
}

/**
 * ack_fit() - check an acknowledgement from the guest
 * @una:	oldest byte we sent that the guest has not acknowledged
 * @nxt:	next byte we would send
 * @ack:	acknowledgement number from the guest
 * @acked:	filled in: bytes newly acknowledged
 *
 * Return: true if @ack is within [@una, @nxt] (RFC 9293 3.10.7.4), false
 * for an acknowledgement of data never sent
 */
static inline bool ack_fit(uint32_t una, uint32_t nxt, uint32_t ack,
			   uint32_t *acked)
{
	*acked = 0;
	if (seq_lt(ack, una) || seq_gt(ack, nxt))
		return seq_lt(ack, una);	/* old ACKs are harmless */
	*acked = ack - una;
	return true;
}

/**
 * wnd_to_guest() - window field to advertise, from the socket's room
 * @room:	bytes the host socket can take now
 * @ws:		window scale we announced to the guest
 *
 * Return: the scaled 16-bit window field
 */
static inline uint16_t wnd_to_guest(uint32_t room, uint8_t ws)
{
	uint32_t w = room >> ws;

	return w > 0xffff ? 0xffff : (uint16_t)w;
}

/**
 * send_budget() - how many bytes may be sent to the guest now
 * @una:	oldest unacknowledged byte
 * @nxt:	next byte to send
 * @wnd:	guest's window in bytes, from @una
 *
 * Return: bytes the guest's window still has room for
 */
static inline uint32_t send_budget(uint32_t una, uint32_t nxt, uint32_t wnd)
{
	uint32_t inflight = nxt - una;

	return inflight >= wnd ? 0 : wnd - inflight;
}

/**
 * ack_hold() - hold the ACK owed for the guest's data one loop pass more
 * @owed:	bytes taken from the guest since the last ACK that covered them
 * @full:	a full-sized segment of the guest's: its MSS, at most the link's
 * @wnd:	window (bytes) last advertised to the guest
 *
 * As a receiver's delayed ACK (RFC 1122 4.2.3.2, RFC 5681 4.2): an ACK for
 * at least every second full-sized segment.  A guest that sends a segment
 * per wake-up (a guest under emulation does) then gets half the ACKs, each
 * of which costs it an interrupt and a pass of its TCP.  Never held when
 * the guest may run short of window before the next pass.
 *
 * Return: true to hold it
 */
static inline bool ack_hold(uint32_t owed, uint32_t full, uint32_t wnd)
{
	return owed <= full && wnd >= owed + 2 * (uint64_t)full;
}

/**
 * ws_for_room() - smallest window scale that can express @room
 * @room:	largest window we expect to advertise
 *
 * Return: shift count, at most TCP_WS_MAX
 */
static inline uint8_t ws_for_room(uint32_t room)
{
	uint8_t ws = 0;

	while (ws < TCP_WS_MAX && (room >> ws) > 0xffff)
		ws++;
	return ws;
}

#define TCP_RTO_MIN_US		200000
#define TCP_RTO_MAX_US		10000000

/**
 * rto_of() - retransmission timeout from the round-trip estimates
 * @srtt:	smoothed round-trip time, microseconds, 0 before any sample
 * @rttvar:	round-trip variation, microseconds
 *
 * RFC 6298 2.3, with Linux's 200 ms floor rather than 1 s: the guest is one
 * virtual link away.
 *
 * Return: the timeout, microseconds
 */
static inline uint32_t rto_of(uint32_t srtt, uint32_t rttvar)
{
	uint64_t rto = (uint64_t)srtt + 4 * (uint64_t)rttvar;

	if (rto < TCP_RTO_MIN_US)
		rto = TCP_RTO_MIN_US;
	if (rto > TCP_RTO_MAX_US)
		rto = TCP_RTO_MAX_US;
	return (uint32_t)rto;
}

/**
 * rto_sample() - take a round-trip sample, give the retransmission timeout
 * @srtt:	smoothed round-trip time, microseconds, 0 before any sample
 * @rttvar:	round-trip variation, microseconds
 * @r:		the sample, microseconds
 *
 * RFC 6298 2.2 and 2.3.
 *
 * Return: the new timeout, microseconds
 */
static inline uint32_t rto_sample(uint32_t *srtt, uint32_t *rttvar, uint32_t r)
{
	if (!*srtt) {
		*srtt = r ? r : 1;
		*rttvar = r / 2;
	} else {
		uint32_t d = *srtt > r ? *srtt - r : r - *srtt;

		*rttvar = *rttvar - *rttvar / 4 + d / 4;
		*srtt = *srtt - *srtt / 8 + r / 8;
		if (!*srtt)
			*srtt = 1;
	}
	return rto_of(*srtt, *rttvar);
}

#endif /* NETSHIM_TCP_SEQ_H */
