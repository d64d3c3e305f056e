// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP: segments from the guest
 *
 * A guest SYN opens a socket and connects it; guest data of a batch of
 * frames is gathered per connection and written to the socket in one call,
 * acknowledged only as far as the kernel took it; the guest's ACKs let
 * the socket dequeue what the guest has, its FIN shuts the socket down.
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>

#include "internal.h"
#include "seq.h"
#include "tcp.h"
#include "net/gaddr.h"
#include "net/outbound.h"
#include "netshim/inany.h"
#include "netshim/log.h"

/**
 * tcp_guest_ack() - take the window and ACK of a guest segment
 * @c:		execution context
 * @conn:	connection
 * @s:		segment
 *
 * Return: true if the connection is still there
 */
static bool tcp_guest_ack(struct ctx *c, struct tcp_conn *conn,
			  const struct tcp_seg *s)
{
	uint32_t acked, wnd = (uint32_t)s->wnd << conn->ws_guest;
	bool dup;

	if (!(s->flags & TH_ACK))
		return true;
	if (!ack_fit(conn->seq_acked, tcp_sent_max(conn), s->ack, &acked)) {
		tcp_ack_later(c, conn);	/* ACK of unsent data: re-sync */
		return true;
	}
	/* Past the send point, bytes sent before a retransmission went
	 * back: the guest has them, go on from there.  Refused as unsent,
	 * the window this ACK carries would go unheard, and with less
	 * resent than the guest has, every later ACK with it.
	 */
	if (seq_gt(s->ack, conn->seq_to_guest) &&
	    tcp_send_from(c, conn, s->ack))
		return false;

	dup = !acked && !s->payload.len && wnd == conn->wnd_guest &&
	      conn->seq_to_guest != conn->seq_acked &&
	      !(s->flags & (TH_SYN | TH_FIN));
	conn->wnd_guest = wnd;
	if (conn->fd >= 0)
		tcp_update_clamp(conn);
	if (conn->seq_to_guest == conn->seq_acked)
		conn->retries = 0;	/* it answers: probes go on */

	if (acked) {
		uint32_t data = acked;

		if (conn->flags & F_FIN_SENT &&
		    s->ack == conn->seq_to_guest) {
			conn->flags |= F_FIN_ACKED;
			data--;
		}
		tcp_drop_later(c, conn, data);
		conn->seq_acked = s->ack;
		if (seq_gt(conn->seq_acked, conn->recover))
			conn->recover = conn->seq_acked;  /* never left behind */
		conn->retries = 0;
		conn->dup_acks = 0;
		/* Without SO_PEEK_OFF, EOF shows only once nothing is in
		 * flight: the next peek may find it, with no event to say so
		 */
		if (!c->tcp->peek_off)
			conn->flags &= ~F_DRAINED;
		if (conn->rtt_start && seq_ge(s->ack, conn->rtt_seq)) {
			uint32_t r = (uint32_t)(tcp_now_ms(c) - conn->rtt_start);

			conn->rto_ms = rto_sample(&conn->srtt_us,
						  &conn->rttvar_us,
						  r * 1000) / 1000;
			conn->rtt_start = 0;
		} else {
			/* Progress ends any backoff (as Linux does) */
			conn->rto_ms = conn->srtt_us ?
				       rto_of(conn->srtt_us,
					      conn->rttvar_us) / 1000 :
				       TCP_RTO_INIT_MS;
		}
		tcp_timer_arm(c, conn);
	} else if (dup && seq_ge(conn->seq_acked, conn->recover) &&
		   ++conn->dup_acks == TCP_DUP_ACKS) {
		tcp_rewind(c, conn);
		return conn->state != CONN_FREE;
	}
	return true;
}

/**
 * tcp_flush_writes() - write the guest data gathered from a batch of frames
 * @c:		execution context
 *
 * In-order payloads of one connection are gathered while the frames of a
 * read from the VMM are dispatched, and written with one sendmsg(): a guest
 * with a 1500-byte MTU would otherwise cost a system call per segment.  The
 * payloads point into the receive buffer, so this runs before that buffer
 * is reused.  Only the bytes the kernel accepted are acknowledged.
 */
void tcp_flush_writes(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	struct tcp_conn *conn = t->wb_conn;
	struct iovec iov[TCP_WRITE_IOV];
	struct msghdr mh = { .msg_iov = iov };
	uint32_t len = t->wb_len, chunk = 0, done = 0;
	int i = 0, n_in = t->wb_n;
	size_t k = 0, r;
	ssize_t n;

	if (!conn)
		return;
	t->wb_conn = NULL;
	t->wb_n = 0;
	t->wb_len = 0;

	/* Payloads the link left in the guest's memory may take several
	 * buffers each: as many writes as IOV_MAX needs, usually one.
	 */
	while (i < n_in) {
		r = link_iov_resolve(c, &t->wb_iov[i], iov + k,
				     TCP_WRITE_IOV - k);
		if (r) {
			k += r;
			chunk += (uint32_t)t->wb_iov[i++].iov_len;
			if (i < n_in)
				continue;
		}
		if (!k)
			break;		/* cannot be: a frame has fewer */
		mh.msg_iovlen = k;
		n = sendmsg(conn->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    !done) {
				tcp_reset(c, conn);
				return;
			}
			n = 0;
		}
		/* What tcp_sock_room() measured, less what went in */
		conn->room_est -= (uint32_t)n < conn->room_est ?
				  (uint32_t)n : conn->room_est;
		done += (uint32_t)n;
		if ((uint32_t)n < chunk)
			break;
		k = 0;
		chunk = 0;
	}
	tcp_guest_took(c, conn, done, len);
	if (done == len)
		tcp_ooo_drain(c, conn);	/* bytes held past a hole now fit */
}

/**
 * tcp_keepalive_on() - probe the remote as the guest probes us
 * @conn:	connection whose guest sent a keepalive probe
 *
 * The guest's probes are answered here, so they alone would never find a
 * remote that went away without a word: the host socket probes it too,
 * with the pod's keepalive timers (net.ipv4.tcp_keepalive_*), and once
 * the kernel gives up, the socket's error resets the guest's connection
 * (tcp_sock_ready()).  passt does the same.
 */
static void tcp_keepalive_on(struct tcp_conn *conn)
{
	if (!setsockopt(conn->fd, SOL_SOCKET, SO_KEEPALIVE, &(int){ 1 },
			sizeof(int)))
		conn->flags |= F_KEEPALIVE;
}

/**
 * tcp_guest_data() - take guest data for the socket
 * @c:		execution context
 * @conn:	connection
 * @s:		segment
 */
static void tcp_guest_data(struct ctx *c, struct tcp_conn *conn,
			   const struct tcp_seg *s)
{
	struct tcp_table *t = c->tcp;
	uint32_t skip, len = (uint32_t)s->payload.len;
	uint32_t expected;

	if (conn->flags & F_GUEST_FIN) {
		if (len || s->flags & TH_FIN)
			tcp_ack_later(c, conn);
		return;
	}
again:
	expected = conn->seq_from_guest;
	if (t->wb_conn == conn)
		expected += t->wb_len;

	switch (seg_fit(expected, s->seq, len, &skip)) {
	case SEG_OLD:
	case SEG_FUTURE:
		/* Written, the batch may fill a hole, and bytes held past
		 * it follow (tcp/ooo.c): where the segment stands then is
		 * what counts
		 */
		if (t->wb_conn == conn) {
			tcp_flush_writes(c);
			if (conn->state == CONN_FREE)
				return;
			goto again;
		}
		/* A duplicate or a keepalive probe (one byte before the
		 * expected one) is answered here: the remote never sees it.
		 * A hole gets duplicate ACKs at once, so the guest retransmits
		 * fast instead of waiting for its timer, and what comes after
		 * it is held until it is filled (tcp/ooo.c).
		 */
		if (seq_lt(s->seq, expected)) {
			tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
			if (len <= 1 && !(conn->flags & F_KEEPALIVE))
				tcp_keepalive_on(conn);
		} else if (len || s->flags & TH_FIN) {
			c->cnt.tcp_guest_ooo++;
			tcp_ooo_hold(c, conn, s);
			tcp_send_dupacks(c, conn, 1);
		}
		return;
	case SEG_IN_ORDER:
		break;
	}

	if (len > skip) {
		if (t->wb_conn != conn || t->wb_n == TCP_WBATCH) {
			tcp_flush_writes(c);
			if (conn->state == CONN_FREE)
				return;
		}
		t->wb_iov[t->wb_n].iov_base = (void *)(s->payload.data + skip);
		t->wb_iov[t->wb_n++].iov_len = len - skip;
		t->wb_len += len - skip;
		t->wb_conn = conn;
	}

	if (s->flags & TH_FIN) {
		tcp_flush_writes(c);
		/* A FIN counts once everything before it is in the socket */
		if (conn->state == CONN_FREE ||
		    conn->seq_from_guest != s->seq + len)
			return;
		shutdown(conn->fd, SHUT_WR);
		conn->flags |= F_GUEST_FIN;
		conn->seq_from_guest++;
		tcp_ack_later(c, conn);
	}
}

/**
 * tcp_maybe_close() - free the connection once both sides are done
 * @c:		execution context
 * @conn:	connection
 *
 * Return: true if it was freed
 */
static bool tcp_maybe_close(struct ctx *c, struct tcp_conn *conn)
{
	if ((conn->flags & (F_GUEST_FIN | F_FIN_ACKED)) ==
	    (F_GUEST_FIN | F_FIN_ACKED)) {
		if (conn->flags & F_ACK_DUE) {
			tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
			tcp_ack_paid(conn);
		}
		conn_free(c, conn, false);
		return true;
	}
	return false;
}

/**
 * tcp_conn_from_guest_syn() - a guest SYN: open a host socket and connect
 * @c:		execution context
 * @m:		addresses
 * @s:		the SYN
 */
static void tcp_conn_from_guest_syn(struct ctx *c, const struct l4_meta *m,
				    const struct tcp_seg *s)
{
	struct sockaddr_storage sa;
	struct tcp_conn *conn;
	socklen_t sl;

	if (s->flags & TH_ACK) {
		tcp_rst_reply(c, m, s);
		return;
	}
	if (!outbound_reachable(c, &m->src, &m->dst)) {
		/* netshim's own link-local address, where the pod has no
		 * gateway to stand for: nothing listens, as a host says
		 */
		if (m->v6 && inany_eq(&m->dst, &c->conf.our_ll6))
			tcp_rst_reply(c, m, s);
		c->cnt.drop_link_only++;
		return;
	}

	conn = conn_new(c, &m->src, s->sport, &m->dst, s->dport, m->qp);
	if (!conn) {
		tcp_rst_reply(c, m, s);
		return;
	}
	if (m->v6)
		gaddr_seen6(c, &m->src);
	conn->seq_init_guest = s->seq;
	conn->seq_from_guest = s->seq + 1;
	conn->mss_guest = s->mss ? s->mss : 536;
	if (conn->mss_guest > tcp_link_mss(c, m->v6))
		conn->mss_guest = tcp_link_mss(c, m->v6);
	if (s->has_ws) {
		conn->ws_guest = s->ws;
	} else {
		conn->ws_guest = 0;
		conn->ws_ours = 0;
	}
	conn->wnd_guest = s->wnd;	/* SYN windows are never scaled */
	if (s->sack_ok)
		conn->flags |= F_SACK;
	conn->state = CONN_CONNECTING;

	conn->fd = socket(m->v6 ? AF_INET6 : AF_INET,
			  SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (conn->fd < 0) {
		c->cnt.drop_sock++;
		warn_rl(c->now.tv_sec, "TCP socket: %m");
		tcp_rst_reply(c, m, s);
		conn_free(c, conn, false);
		return;
	}
	tcp_sock_opts(conn->fd);
	if (s->mss) {
		int mss = s->mss;

		setsockopt(conn->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
	}
	outbound_sockaddr(c, &m->dst, s->dport, &sa, &sl);
	if (outbound_bind(c, conn->fd, &sa) ||
	    (connect(conn->fd, (struct sockaddr *)&sa, sl) &&
	     errno != EINPROGRESS)) {
		tcp_connect_failed(c, conn, errno);
		return;
	}
	conn_epoll(c, conn, EPOLLOUT);
}

/**
 * tcp_input() - a TCP segment from the guest
 * @c:		execution context
 * @m:		addresses
 * @l4:		TCP header and payload (checksum already verified)
 */
void tcp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4)
{
	struct tcp_conn *conn;
	struct tcp_seg s;

	/* --no-tcp: silently, as passt does; no socket, so no reply */
	if (c->conf.no_tcp) {
		c->cnt.drop_disabled++;
		return;
	}
	if (tcp_seg_parse(l4, &s)) {
		c->cnt.drop_tcp++;
		return;
	}
	if (inany_is4(&m->src) && !inany_to4(&m->src).s_addr) {
		c->cnt.drop_src++;
		return;
	}

	conn = conn_lookup(c->tcp, &m->src, s.sport, &m->dst, s.dport);
	if (!conn) {
		if (s.flags & TH_SYN)
			tcp_conn_from_guest_syn(c, m, &s);
		else
			tcp_rst_reply(c, m, &s);
		return;
	}
	conn->last = c->now.tv_sec;
	conn->qp = m->qp;	/* its answers follow the guest's CPU */

	if (s.flags & TH_RST) {
		/* RFC 5961: only a reset at the expected sequence counts */
		if (s.seq == conn->seq_from_guest ||
		    conn->state == CONN_SYN_SENT)
			conn_free(c, conn, true);
		return;
	}

	switch (conn->state) {
	case CONN_CONNECTING:
		return;		/* SYN retransmission: connect() still runs */
	case CONN_SYN_SENT:
		if ((s.flags & (TH_SYN | TH_ACK)) != (TH_SYN | TH_ACK) ||
		    s.ack != conn->seq_to_guest) {
			tcp_rst_reply(c, m, &s);
			return;
		}
		conn->seq_init_guest = s.seq;
		conn->seq_from_guest = s.seq + 1;
		conn->seq_acked = s.ack;
		conn->mss_guest = s.mss ? s.mss : 536;
		if (conn->mss_guest > tcp_link_mss(c, m->v6))
			conn->mss_guest = tcp_link_mss(c, m->v6);
		conn->ws_guest = s.has_ws ? s.ws : 0;
		if (!s.has_ws)
			conn->ws_ours = 0;
		if (s.sack_ok)		/* it answers our offer */
			conn->flags |= F_SACK;
		conn->wnd_guest = s.wnd;
		conn->state = CONN_ESTABLISHED;
		conn->rto_at = 0;
		conn_epoll(c, conn, EPOLLIN);
		tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
		tcp_send_data(c, conn);
		return;
	case CONN_SYNACK_SENT:
		if (s.flags & TH_SYN) {
			if (s.seq == conn->seq_init_guest)	/* lost SYN-ACK */
				tcp_send_ctl(c, conn, TH_SYN | TH_ACK,
					     conn->seq_acked);
			return;
		}
		if (!(s.flags & TH_ACK) || s.ack != conn->seq_to_guest) {
			tcp_rst_reply(c, m, &s);
			return;
		}
		conn->seq_acked = s.ack;
		conn->state = CONN_ESTABLISHED;
		conn->rto_at = 0;
		conn->rto_ms = TCP_RTO_INIT_MS;
		break;
	case CONN_ESTABLISHED:
		if (s.flags & TH_SYN) {
			/* The guest reuses the port: this one is over */
			if (s.seq != conn->seq_init_guest) {
				conn_free(c, conn, true);
				tcp_conn_from_guest_syn(c, m, &s);
			}
			return;
		}
		break;
	}

	if (!tcp_guest_ack(c, conn, &s))
		return;
	tcp_guest_data(c, conn, &s);
	if (conn->state == CONN_FREE || tcp_maybe_close(c, conn))
		return;
	tcp_send_pending(c, conn);
}
