// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP connections handed to a new netshim, sockets and all
 *
 * An upgrade in place (daemon/upgrade.c) moves every connection with its
 * socket itself, passed over a UNIX socket: the kernel's state of it (its
 * queues, sequence numbers, timers, options, its peer) never changes
 * hands, so nothing is dumped and no repair mode is needed.  What moves
 * is netshim's own bookkeeping of the guest's side: the record of a
 * migration (tcp/migrate.c), its socket part replaced by the descriptor
 * (TCP_REC_FD), and a tail with what a migration does not keep because
 * the guest pauses for it: timers, round-trip estimates, the window last
 * advertised and the room measured, the queue pair.
 *
 * Bytes of the guest held past a hole (tcp/ooo.c) stay behind: they were
 * never acknowledged, and the guest sends them again (a SACK receiver
 * may renege, RFC 2018).  The old netshim writes without changing
 * anything: if the new one refuses, it goes on as if nothing happened.
 *
 * Section body, integers big endian: the number of connections (4), then
 * each one's record (MIGRATE_TCP_REC bytes, its socket length TCP_REC_FD),
 * the socket (a descriptor's mark), and the tail: queue pair, duplicate
 * ACKs, retransmissions without progress, a zero byte (1 each), epoll
 * events, window last advertised, window clamp, retransmission timeout,
 * smoothed round-trip time and its variation, the sequence number that
 * ends the sample and the recovery point, room measured and estimated,
 * bytes owed an ACK (4 each), then the retransmission deadline, the
 * sample's start and the last activity (8 each, CLOCK_MONOTONIC, which
 * both processes share).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "internal.h"
#include "tcp.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define TCP_UP_EVENTS	(EPOLLIN | EPOLLOUT)

/**
 * tcp_upgrade_movable() - does a connection go to the new netshim
 * @conn:	connection
 *
 * Return: false for a free slot, and for a socket handed to a migration's
 * destination, in repair mode: that guest is gone from here
 */
static bool tcp_upgrade_movable(const struct tcp_conn *conn)
{
	return conn->state != CONN_FREE && conn->fd >= 0 &&
	       !(conn->flags & F_MIGRATED);
}

/**
 * tcp_upgrade_save() - write every connection, its socket passed along
 * @c:		execution context
 * @io:		the stream, over the new netshim's UNIX socket
 *
 * Return: 0 on success, -1 with @io->err set
 */
int tcp_upgrade_save(struct ctx *c, struct migio *io)
{
	struct tcp_table *t = c->tcp;
	uint32_t i, n = 0;

	/* Bytes the guest acknowledged leave the sockets first: the new
	 * netshim's peeks start at the socket's head
	 */
	tcp_drop_pending(c, false);
	for (i = 0; i < t->idx.hiwater; i++)
		n += tcp_upgrade_movable(&t->c[i]);
	if (migio_put_u32(io, n))
		return -1;
	for (i = 0; i < t->idx.hiwater; i++) {
		const struct tcp_conn *conn = &t->c[i];
		uint8_t b[4] = { conn->qp, conn->dup_acks, conn->retries, 0 };

		if (!tcp_upgrade_movable(conn))
			continue;
		if (tcp_rec_put(io, conn, conn->seq_to_guest, TCP_REC_FD) ||
		    migio_put_fd(io, conn->fd) ||
		    migio_put(io, b, sizeof(b)) ||
		    migio_put_u32(io, conn->events) ||
		    migio_put_u32(io, conn->wnd_adv) ||
		    migio_put_u32(io, conn->clamp) ||
		    migio_put_u32(io, conn->rto_ms) ||
		    migio_put_u32(io, conn->srtt_us) ||
		    migio_put_u32(io, conn->rttvar_us) ||
		    migio_put_u32(io, conn->rtt_seq) ||
		    migio_put_u32(io, conn->recover) ||
		    migio_put_u32(io, conn->room_meas) ||
		    migio_put_u32(io, conn->room_est) ||
		    migio_put_u32(io, conn->ack_owed) ||
		    migio_put_u64(io, (uint64_t)conn->rto_at) ||
		    migio_put_u64(io, (uint64_t)conn->rtt_start) ||
		    migio_put_u64(io, (uint64_t)conn->last))
			return -1;
	}
	if (n)
		info("upgrade: %u TCP connections go with their sockets", n);
	return 0;
}

/**
 * tcp_upgrade_tail() - read the tail of a connection's record, checked
 * @io:		the stream
 * @conn:	filled
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int tcp_upgrade_tail(struct migio *io, struct tcp_conn *conn)
{
	uint64_t rto_at, rtt_start, last;
	uint8_t b[4];

	if (migio_get(io, b, sizeof(b)) ||
	    migio_get_u32(io, &conn->events) ||
	    migio_get_u32(io, &conn->wnd_adv) ||
	    migio_get_u32(io, &conn->clamp) ||
	    migio_get_u32(io, &conn->rto_ms) ||
	    migio_get_u32(io, &conn->srtt_us) ||
	    migio_get_u32(io, &conn->rttvar_us) ||
	    migio_get_u32(io, &conn->rtt_seq) ||
	    migio_get_u32(io, &conn->recover) ||
	    migio_get_u32(io, &conn->room_meas) ||
	    migio_get_u32(io, &conn->room_est) ||
	    migio_get_u32(io, &conn->ack_owed) ||
	    migio_get_u64(io, &rto_at) || migio_get_u64(io, &rtt_start) ||
	    migio_get_u64(io, &last))
		return -1;
	conn->qp = b[0];
	conn->dup_acks = b[1];
	conn->retries = b[2];
	conn->rto_at = (int64_t)rto_at;
	conn->rtt_start = (int64_t)rtt_start;
	conn->last = (time_t)last;
	if (b[3] || (conn->events & ~(uint32_t)TCP_UP_EVENTS) ||
	    conn->retries > TCP_RETRIES_MAX + 1 || !conn->rto_ms ||
	    conn->rto_at < 0 || conn->rtt_start < 0) {
		io->err = EINVAL;
		return -1;
	}
	return 0;
}

/**
 * tcp_upgrade_adopt() - a connection handed over, in the table and the loop
 * @c:		execution context
 * @from:	its state as the old netshim had it
 *
 * Return: 0 on success, -1 if the table has no room for it
 */
static int tcp_upgrade_adopt(struct ctx *c, const struct tcp_conn *from)
{
	uint16_t lists = F_ACK_LISTED | F_TX_WAIT;
	struct tcp_conn *conn;
	uint32_t events;

	conn = conn_new(c, &from->gaddr, from->gport, &from->raddr,
			from->rport, from->qp);
	if (!conn)
		return -1;
	c->cnt.tcp_conns--;		/* not a new one */
	events = from->events;
	*conn = *from;
	conn->events = 0;
	conn->next_pending = conn->next_wait = -1;
	conn->flags &= (uint16_t)~lists;
	conn->ooo = 0;
	conn->ooo_seq = conn->ooo_len = 0;
	conn->unread_acked = 0;
	/* Registered again: epoll reports at once what is there to read,
	 * or room, edge-triggered as it is or not
	 */
	if (events)
		conn_epoll(c, conn, events);
	if (from->flags & (F_ACK_LISTED | F_ACK_DUE))
		tcp_ack_later(c, conn);
	if (from->flags & F_TX_WAIT)
		tcp_wait_tx(c, conn);
	return 0;
}

/**
 * tcp_upgrade_load() - take the connections of the old netshim
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more connections than --max-tcp allows)
 */
int tcp_upgrade_load(struct ctx *c, struct migio *io)
{
	uint32_t i, n;

	if (migio_get_u32(io, &n))
		return -1;
	if (n > c->tcp->idx.n - c->tcp->idx.used) {
		err("upgrade: %u TCP connections, more than --max-tcp %u "
		    "holds", n, c->tcp->idx.n);
		io->err = EFBIG;
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct tcp_conn conn = { 0 };
		uint32_t ext;

		if (tcp_rec_get(io, &conn, &ext) || ext != TCP_REC_FD ||
		    migio_get_fd(io, &conn.fd) ||
		    tcp_upgrade_tail(io, &conn) ||
		    conn_lookup(c->tcp, &conn.gaddr, conn.gport, &conn.raddr,
				conn.rport)) {
			if (conn.fd >= 0)
				close(conn.fd);
			if (!io->err || io->err == EINVAL) {
				err("upgrade: TCP connection %u of %u is "
				    "malformed", i + 1, n);
				io->err = EINVAL;
			}
			return -1;
		}
		if (tcp_upgrade_adopt(c, &conn)) {
			close(conn.fd);
			io->err = EFBIG;
			return -1;
		}
	}
	if (n)
		info("upgrade: %u TCP connections taken over", n);
	return 0;
}

/**
 * tcp_upgrade_commit() - the old netshim let go: the sockets peek as this
 *			  netshim does
 * @c:		execution context
 *
 * Only now: until the old netshim is gone, it may go on with them, as
 * they were.  --no-peek-offset may differ between the two, and without
 * the kernel's peek offset a peek starts at the socket's head.
 */
void tcp_upgrade_commit(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater; i++) {
		struct tcp_conn *conn = &t->c[i];

		if (conn->state == CONN_FREE || conn->fd < 0)
			continue;
		if (t->peek_off && conn->state >= CONN_SYNACK_SENT)
			tcp_set_peek_off(conn);
		else
			setsockopt(conn->fd, SOL_SOCKET, SO_PEEK_OFF,
				   &(int){ -1 }, sizeof(int));
	}
}

/**
 * tcp_listeners() - the sockets of -t, for an upgrade in place
 * @c:		execution context
 * @n:		set to their number
 *
 * Return: the listeners
 */
const struct fwd_listener *tcp_listeners(const struct ctx *c, uint32_t *n)
{
	*n = c->tcp->nlst;
	return c->tcp->lst;
}
