// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP: socket events, inbound connections and timers
 *
 * A connect() that completed or failed, data or room on a socket,
 * connections accepted on a forwarded port (-t) or spliced when both ends
 * are local, and the timers: retransmission, handshakes and FINs that
 * wait too long.
 */
#include <unistd.h>
#include <sys/epoll.h>

#include "internal.h"
#include "seq.h"
#include "splice.h"
#include "tcp.h"
#include "net/gaddr.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/nssock.h"

/**
 * tcp_connected() - the host connect() finished: answer the guest's SYN
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING
 */
static void tcp_connected(struct ctx *c, struct tcp_conn *conn)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &sl);
	if (err) {
		tcp_connect_failed(c, conn, err);
		return;
	}
	conn->state = CONN_SYNACK_SENT;
	if (c->tcp->peek_off)
		tcp_set_peek_off(conn);		/* 0: enables the offset */
	conn_epoll(c, conn, EPOLLIN);
	tcp_send_ctl(c, conn, TH_SYN | TH_ACK, conn->seq_acked);
	conn->seq_to_guest = conn->seq_acked + 1;
	tcp_timer_arm(c, conn);
}

/**
 * tcp_sock_ready() - events on a connection's host socket
 * @c:		execution context
 * @idx:	connection index
 * @events:	epoll events
 */
void tcp_sock_ready(struct ctx *c, uint32_t idx, uint32_t events)
{
	struct tcp_conn *conn;

	if (idx >= c->tcp->idx.n)
		return;
	conn = &c->tcp->c[idx];
	if (conn->state == CONN_FREE)
		return;
	conn->last = c->now.tv_sec;

	if (conn->state == CONN_CONNECTING) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			tcp_connected(c, conn);
		return;
	}
	if (events & EPOLLERR) {
		tcp_reset(c, conn);
		return;
	}
	if (conn->state != CONN_ESTABLISHED)
		return;
	if (events & EPOLLOUT && conn->flags & F_WANT_ROOM) {
		conn->flags &= ~(F_WANT_ROOM | F_ROOM_KNOWN);
		conn_epoll(c, conn, EPOLLIN);
		if (tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest)) {
			tcp_ack_later(c, conn);
		} else if (conn->flags & F_DROPPED) {
			/* Guest data beyond our ACK was not taken: duplicate
			 * ACKs have it resent now, not at its next timeout.
			 */
			tcp_send_dupacks(c, conn, 3);
			conn->flags &= ~F_DROPPED;
		}
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
		conn->flags &= ~F_DRAINED;
		tcp_send_data(c, conn);
	}
}

/**
 * tcp_conn_timer() - retransmission and expiry of one connection
 * @c:		execution context
 * @conn:	connection in use
 */
static void tcp_conn_timer(struct ctx *c, struct tcp_conn *conn)
{
	time_t idle = c->now.tv_sec - conn->last;
	bool persist;

	conn->flags &= ~F_ROOM_KNOWN;	/* measured again when next needed */
	if ((conn->state == CONN_SYN_SENT ||
	     conn->state == CONN_SYNACK_SENT) && idle > TCP_HANDSHAKE_TIMEOUT) {
		tcp_reset(c, conn);
		return;
	}
	/* Both sides closed but the last ACK never came.  A connection
	 * closed in one direction only is left alone: the other one works.
	 */
	if ((conn->flags & (F_GUEST_FIN | F_FIN_SENT)) ==
	    (F_GUEST_FIN | F_FIN_SENT) && idle > TCP_FIN_TIMEOUT) {
		tcp_reset(c, conn);
		return;
	}
	if (!conn->rto_at || tcp_now_ms(c) < conn->rto_at)
		return;
	/* Nothing in flight: the persist timer if the guest's window is
	 * closed, else it opened since and nothing is due
	 */
	persist = tcp_persist_due(conn);
	if (!persist && conn->state == CONN_ESTABLISHED &&
	    conn->seq_to_guest == conn->seq_acked) {
		conn->rto_at = 0;
		return;
	}
	if (link_blocked(c)) {
		/* Queued for a VMM that does not read: not lost, not late */
		conn->rto_at = tcp_now_ms(c) + conn->rto_ms;
		return;
	}

	if (++conn->retries > TCP_RETRIES_MAX) {
		debug("TCP: guest stopped acknowledging, resetting");
		tcp_reset(c, conn);
		return;
	}
	conn->rto_ms = conn->rto_ms * 2 > TCP_RTO_MAX_US / 1000 ?
		       TCP_RTO_MAX_US / 1000 : conn->rto_ms * 2;
	if (persist) {		/* a probe, nothing to resend */
		if (tcp_persist_probe(c, conn))
			conn->rto_at = tcp_now_ms(c) + conn->rto_ms;
		else
			conn->rto_at = 0;
		return;
	}
	switch (conn->state) {
	case CONN_SYN_SENT:
		tcp_send_ctl(c, conn, TH_SYN, conn->seq_acked);
		break;
	case CONN_SYNACK_SENT:
		tcp_send_ctl(c, conn, TH_SYN | TH_ACK, conn->seq_acked);
		break;
	case CONN_ESTABLISHED:
		tcp_rewind(c, conn);
		break;
	}
	if (conn->state != CONN_FREE)
		conn->rto_at = tcp_now_ms(c) + conn->rto_ms;
}

/**
 * tcp_timer() - run the timers of every connection
 * @c:		execution context
 */
void tcp_timer(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater && t->idx.used; i++)
		if (t->c[i].state != CONN_FREE)
			tcp_conn_timer(c, &t->c[i]);
}

/**
 * tcp_splice_local() - a pod process connects to a forwarded port on the
 *			pod's loopback: join it to the namespace's server
 *			(at the namespace's address: nssock_local_dst())
 * @c:		execution context, in namespace mode
 * @fd:		the accepted socket
 * @raddr:	its peer, a loopback address
 * @port:	the namespace's port
 *
 * Loopback to loopback needs no frames: the two sockets are spliced
 * (tcp/splice.c), as pasta does.
 */
static void tcp_splice_local(struct ctx *c, int fd,
			     const struct in6_addr *raddr, uint16_t port)
{
	int ns_fd = nssock_connect_local(c, !inany_is4(raddr), port);

	if (ns_fd < 0) {
		struct linger l = { 1, 0 };

		debug("local flow to port %u: %m", port);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
		return;
	}
	c->cnt.tcp_spliced++;
	splice_join(c, fd, ns_fd, true);
}

/**
 * tcp_listener_ready() - a connection to a forwarded port
 * @c:		execution context
 * @idx:	listener index
 */
void tcp_listener_ready(struct ctx *c, uint32_t idx)
{
	struct tcp_table *t = c->tcp;

	if (idx < t->nlst)
		tcp_accept_fwd(c, &t->lst[idx]);
}

/**
 * tcp_accept_fwd() - take a connection to a forwarded port to the guest
 * @c:		execution context
 * @l:		the listener: a -t one, or one that follows the namespace's
 *		listeners (fwd_auto.c)
 */
void tcp_accept_fwd(struct ctx *c, const struct fwd_listener *l)
{
	struct tcp_table *t = c->tcp;
	struct in6_addr raddr, gaddr, to_addr;
	struct sockaddr_storage sa;
	struct tcp_conn *conn;
	socklen_t sl = sizeof(sa);
	uint16_t rport, gport;
	int fd;

	fd = accept4(l->fd, (struct sockaddr *)&sa, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	inany_from_sockaddr(&sa, &raddr, &rport);
	if (fwd_guest_port(c, l, fd, &gport, &to_addr))
		goto refuse;

	/* A rule's own guest address is reached through the link only */
	if (c->splice && IN6_IS_ADDR_UNSPECIFIED(&to_addr) &&
	    inany_is_loopback(&raddr)) {
		tcp_splice_local(c, fd, &raddr, gport);
		return;
	}

	if (!link_up(c)) {
		struct linger l = { 1, 0 };

		/* No guest to take it: refuse now, never leave it hanging */
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
		return;
	}

	/* An IPv4 client of a socket of both families comes v4-mapped:
	 * the guest hears of it over IPv4
	 */
	if (!(inany_is4(&raddr) ? c->conf.v4 : c->conf.v6))
		goto refuse;
	gaddr = gaddr_inbound(c, !inany_is4(&raddr));
	fwd_inbound_peer(c, &raddr);
	if (!IN6_IS_ADDR_UNSPECIFIED(&to_addr))
		gaddr = to_addr;

	/* New flows from outside are spread over the guest's queue pairs
	 * by the client's port, as a NIC's receive hash would
	 */
	conn = conn_new(c, &gaddr, gport, &raddr, rport, link_spread(rport));
	if (!conn)
		goto refuse;
	conn->fd = fd;
	conn->state = CONN_SYN_SENT;
	conn->inbound = true;
	if (t->peek_off)
		tcp_set_peek_off(conn);		/* 0: enables the offset */
	conn->mss_guest = tcp_link_mss(c, !inany_is4(&raddr));
	tcp_sock_opts(fd);
	conn_epoll(c, conn, 0);
	tcp_send_ctl(c, conn, TH_SYN, conn->seq_acked);
	conn->seq_to_guest = conn->seq_acked + 1;
	tcp_timer_arm(c, conn);
	return;
refuse:
	{
		struct linger l = { 1, 0 };

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
	}
}
