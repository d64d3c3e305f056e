/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - TCP connection table entries
 */
#ifndef NETSHIM_TCP_CONN_H
#define NETSHIM_TCP_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <netinet/in.h>

/* See tcp/README.md for the state machine */
enum tcp_state {
	CONN_FREE = 0,
	CONN_CONNECTING,		/* guest SYN seen, host connect() running */
	CONN_SYNACK_SENT,	/* host connected, SYN-ACK sent to the guest */
	CONN_SYN_SENT,		/* inbound: accepted, SYN sent to the guest */
	CONN_ESTABLISHED,	/* data both ways; half-close in the flags */
};

#define F_GUEST_FIN	0x01	/* guest sent FIN: host socket SHUT_WR */
#define F_HOST_EOF	0x02	/* host socket read EOF */
#define F_FIN_SENT	0x04	/* our FIN is in seq_to_guest */
#define F_FIN_ACKED	0x08	/* the guest acknowledged our FIN */
#define F_WANT_ROOM	0x10	/* EPOLLOUT armed: window update owed */
#define F_ACK_DUE	0x20	/* an ACK is owed to the guest */
#define F_TX_WAIT	0x40	/* on the list waiting for room to the VMM */
#define F_ACK_LISTED	0x80	/* on the deferred ACK list */
#define F_DROPPED	0x100	/* guest data beyond our ACK was not taken */
#define F_DRAINED	0x200	/* a peek found nothing new: wait for EPOLLIN */
#define F_KEEPALIVE	0x400	/* the guest probes: so does the host socket */
#define F_MIGRATED	0x800	/* its socket went to a migration's destination:
				 * out of the loop, in repair mode */
#define F_ROOM_KNOWN	0x1000	/* @room_est holds the socket's room */
#define F_SACK		0x4000	/* SACK agreed with the guest (tcp/ooo.c) */
#define F_DEAF		0x2000	/* its socket drops what the peer sends
				 * (tcp_sock_deaf()) */
#define F_ACK_NOW	0x8000	/* the owed ACK goes at this loop pass's end:
				 * not for data alone, or held once already */

/**
 * struct tcp_conn - one guest TCP connection and its host socket
 * @state:		enum tcp_state
 * @qp:			queue pair its frames to the guest go to: the one the
 *			guest's last segment came in on (l4_meta.qp)
 * @flags:		F_* above
 * @ws_guest:		window scale the guest announced
 * @ws_ours:		window scale we announced
 * @mss_guest:		guest's MSS: largest segment we send
 * @dup_acks:		duplicate ACKs in a row
 * @retries:		retransmissions without progress
 * @gport:		guest port
 * @rport:		remote port (as the guest sees it)
 * @gaddr:		guest address (v4-mapped for IPv4)
 * @raddr:		remote address as the guest sees it
 * @fd:			host socket
 * @events:		epoll events registered for @fd
 * @seq_from_guest:	next byte expected from the guest (our RCV.NXT)
 * @seq_to_guest:	next byte we send (our SND.NXT)
 * @seq_acked:		oldest byte the guest has not acknowledged (SND.UNA)
 * @seq_init_guest:	guest's initial sequence number
 * @wnd_guest:		guest's receive window, bytes from @seq_acked
 * @wnd_adv:		window (bytes) last advertised to the guest
 * @clamp:		last TCP_WINDOW_CLAMP pushed into the socket
 * @rto_ms:		retransmission timeout
 * @rto_at:		deadline of the retransmission timer, 0 when off (ms)
 * @srtt_us:		smoothed round-trip time to the guest, 0 before a sample
 * @rttvar_us:		its variation
 * @rtt_seq:		a sample ends when the guest acknowledges this
 * @rtt_start:		when that byte was sent (ms), 0 when no sample runs
 * @recover:		after a fast retransmission, no other until this is
 *			acknowledged (RFC 6582's recovery point)
 * @ooo:		slot (from 1) of the guest's bytes held past a hole
 *			(tcp/ooo.c), 0 for none
 * @ooo_seq:		sequence number of the first of them
 * @ooo_len:		how many
 * @room_meas:		with F_ROOM_KNOWN, what tcp_sock_room() last measured
 * @room_est:		that, less what was written to the socket since
 * @unread_acked:	bytes the guest acknowledged that are still in the
 *			socket: dropped from it once per loop iteration, or
 *			before the socket is read or closed (tcp_drop_later())
 * @ack_owed:		bytes taken from the guest since the last ACK that
 *			covered them (tcp_flush_acks())
 * @last:		last activity, seconds
 * @born:		when it was opened here (a migrated one: when it came),
 *			seconds, for netshim-ctl's flows
 * @inbound:		accepted on a forwarded port, not opened by the guest
 * @seq_init_ours:	our sequence number before the first byte to the
 *			guest counted in its flows (the ISN, or where a
 *			migrated connection came in)
 * @next_pending:	deferred ACK or TX-wait list, -1 for none
 */
struct tcp_conn {
	uint8_t state;
	uint8_t qp;
	uint16_t flags;
	uint8_t ws_guest, ws_ours;
	uint16_t mss_guest;
	uint8_t dup_acks, retries;
	uint8_t ooo;
	uint16_t gport, rport;
	struct in6_addr gaddr, raddr;
	int fd;
	uint32_t events;
	uint32_t seq_from_guest;
	uint32_t seq_to_guest;
	uint32_t seq_acked;
	uint32_t seq_init_guest;
	uint32_t wnd_guest;
	uint32_t wnd_adv;
	uint32_t clamp;
	uint32_t rto_ms;
	int64_t rto_at;
	uint32_t srtt_us, rttvar_us;
	uint32_t rtt_seq;
	int64_t rtt_start;
	uint32_t recover;
	uint32_t ooo_seq, ooo_len;
	uint32_t unread_acked;
	uint32_t room_meas, room_est;
	uint32_t ack_owed;
	time_t last;
	time_t born;
	bool inbound;
	uint32_t seq_init_ours;
	int32_t next_pending;
	int32_t next_wait;
};

#endif /* NETSHIM_TCP_CONN_H */
