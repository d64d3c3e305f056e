// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP connections in passt's device state (version 2)
 *
 * A cluster moves its running VMs from passt to netshim, and back, by
 * live migration: the one back-end's state goes to the other through the
 * VMM.  passt 2025-05 and later write, after the stream's header and the
 * guest's addresses (daemon/migrate_passt.c), the number of connections
 * (4 bytes), one record of the connection's guest side per connection
 * (PASST_REC bytes, passt's struct tcp_tap_transfer), then, in the same
 * order, its socket's state (PASST_EXT bytes, struct tcp_tap_transfer_ext)
 * followed by the send queue and the receive queue.  Integers are big
 * endian, but for the ports of the two sides, which passt copies as its
 * host holds them: a migration never crosses architectures.
 *
 * Record: the interface of each side (1 each: PASST_PIF_TAP for the
 * guest's, PASST_PIF_HOST for the socket's), each side's own address,
 * the far end's address (16 each), own port, far port (2 each); passt's
 * retransmission count, the guest's and our window scale, passt's events
 * (1 each), the guest's MSS, passt's send buffer estimate (4 each),
 * passt's flags, last duplicate ACK (1 each), the guest's window and ours
 * as in the segments, unscaled (2 each), the next sequence to the guest,
 * the guest's last ACK, the next sequence from the guest, our last ACK,
 * the guest's initial sequence (4 each; what passt counts its ACKs from:
 * see tcp_passt_rec_put()).
 *
 * Socket state: sequence at the start of the send queue, of the receive
 * queue, send queue bytes, of which not sent, receive queue bytes, MSS,
 * timestamp, snd_wl1, snd_wnd, max_window, rcv_wnd, rcv_wup (4 each),
 * send and receive window scale, TCP state as TCP_INFO gives it (0: the
 * source could not read the socket, the connection is reset), tcpi_options
 * (1 each).
 *
 * passt writes connections only where a repair helper serves it, and so
 * does netshim: without one, the stream holds none, a destination without
 * a helper of its own can read it (passt refuses connections it cannot
 * rebuild), and each connection is reset once the guest sends on it
 * (tcp_rst_reply()).  Connections netshim cannot move (half-closed, more
 * queued than passt's 64 MiB a queue) go with an unreadable socket, which
 * either destination resets towards the guest; those passt moves
 * half-closed, netshim resets.  The destination reads it as untrusted
 * input, as netshim's own format.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

#include "internal.h"
#include "repair.h"
#include "tcp.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define PASST_REC		TCP_PASST_REC
#define PASST_EXT		52
#define PASST_QUEUE_MAX		(64U << 20)	/* passt's, each queue */

#define PASST_PIF_HOST		1
#define PASST_PIF_TAP		2

/* passt's events of an established connection */
#define PASST_ESTABLISHED	0x04
#define PASST_SOCK_FIN_RCVD	0x08
#define PASST_SOCK_FIN_SENT	0x10
#define PASST_TAP_FIN_RCVD	0x20
#define PASST_TAP_FIN_SENT	0x40
#define PASST_TAP_FIN_ACKED	0x80
#define PASST_FINS		0xf8

/* Where side i of a record starts */
#define PASST_SIDE(i)		(2 + 36 * (i))

static_assert(MIGRATE_TCP_QBUF >= 2 * PASST_QUEUE_MAX,
	      "both of passt's queues fit the buffer of one connection");

/**
 * struct passt_side - one side of a record, decoded
 * @oaddr:	our address on that side
 * @eaddr:	the far end's
 * @oport:	our port
 * @eport:	the far end's
 */
struct passt_side {
	struct in6_addr oaddr, eaddr;
	uint16_t oport, eport;
};

/**
 * side_put() - write one side of a record
 * @p:		the side in the record
 * @s:		the side
 */
static void side_put(uint8_t *p, const struct passt_side *s)
{
	memcpy(p, &s->oaddr, 16);
	memcpy(p + 16, &s->eaddr, 16);
	memcpy(p + 32, &s->oport, 2);		/* host order, as passt */
	memcpy(p + 34, &s->eport, 2);
}

/**
 * side_get() - read one side of a record
 * @p:		the side in the record
 * @s:		filled
 */
static void side_get(const uint8_t *p, struct passt_side *s)
{
	memcpy(&s->oaddr, p, 16);
	memcpy(&s->eaddr, p + 16, 16);
	memcpy(&s->oport, p + 32, 2);
	memcpy(&s->eport, p + 34, 2);
}

/**
 * tcp_passt_listed() - does passt's stream carry this connection
 * @conn:	connection
 *
 * Return: true for an established one with its socket here, half-closed
 * or not, as passt lists its established connections
 */
static bool tcp_passt_listed(const struct tcp_conn *conn)
{
	return conn->state == CONN_ESTABLISHED && conn->fd >= 0 &&
	       !(conn->flags & F_MIGRATED);
}

/**
 * tcp_passt_events() - passt's events for a connection's closing flags
 * @conn:	connection
 *
 * Return: the events
 */
static uint8_t tcp_passt_events(const struct tcp_conn *conn)
{
	uint8_t ev = PASST_ESTABLISHED;

	if (conn->flags & F_HOST_EOF)
		ev |= PASST_SOCK_FIN_RCVD;
	if (conn->flags & F_GUEST_FIN)
		ev |= PASST_TAP_FIN_RCVD | PASST_SOCK_FIN_SENT;
	if (conn->flags & F_FIN_SENT)
		ev |= PASST_TAP_FIN_SENT;
	if (conn->flags & F_FIN_ACKED)
		ev |= PASST_TAP_FIN_ACKED;
	return ev;
}

/**
 * tcp_passt_wnd() - a window as a segment carries it
 * @wnd:	bytes
 * @ws:		window scale
 *
 * Return: the window field
 */
static uint16_t tcp_passt_wnd(uint32_t wnd, uint8_t ws)
{
	wnd >>= ws;
	return (uint16_t)(wnd > UINT16_MAX ? UINT16_MAX : wnd);
}

/**
 * tcp_passt_rec_put() - write a connection's record
 * @io:		the stream
 * @conn:	the connection, its socket here
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int tcp_passt_rec_put(struct migio *io, const struct tcp_conn *conn)
{
	struct passt_side tap = { conn->raddr, conn->gaddr,
				  conn->rport, conn->gport };
	struct passt_side host = { 0 };
	struct sockaddr_storage ss;
	uint8_t r[PASST_REC] = { PASST_PIF_TAP, PASST_PIF_HOST };
	int sndbuf = 0, sndq;
	socklen_t sl;

	/* A socket that cannot say its addresses cannot be read either:
	 * its state then says so, and the destination resets it
	 */
	sl = sizeof(ss);
	if (!getsockname(conn->fd, (struct sockaddr *)&ss, &sl))
		inany_from_sockaddr(&ss, &host.oaddr, &host.oport);
	sl = sizeof(ss);
	if (!getpeername(conn->fd, (struct sockaddr *)&ss, &sl))
		inany_from_sockaddr(&ss, &host.eaddr, &host.eport);
	sl = sizeof(sndbuf);
	getsockopt(conn->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl);

	side_put(r + PASST_SIDE(0), &tap);
	side_put(r + PASST_SIDE(1), &host);
	r[75] = conn->ws_guest;
	r[76] = conn->ws_ours;
	r[77] = tcp_passt_events(conn);
	migio_wr_be32(r + 78, conn->mss_guest);
	migio_wr_be32(r + 82, (uint32_t)sndbuf >> 8);	/* passt keeps 24 bits */
	/* Nothing in flight: what went to the guest since its last ACK may
	 * be lost with the stop (the guest's interrupt, a frame still
	 * queued here), and passt arms its retransmission timer only when
	 * it sends, not for a flag it is handed (passt 2025-05 and 2026).
	 * Given the data as not sent yet, it sends it again when it starts
	 * (those frames reach no ring), times their ACK from then, and
	 * sends them again once that timer fires.  A guest that had them
	 * acknowledges no further than passt sent then: it sends whatever
	 * the guest's window holds.
	 */
	r[86] = 0;
	/* The last sequence passt answered with a duplicate ACK: anything
	 * but the one it holds now, so that the first old segment the guest
	 * sends again there is answered
	 */
	r[87] = (uint8_t)~conn->seq_from_guest;
	migio_wr_be16(r + 88, tcp_passt_wnd(conn->wnd_guest, conn->ws_guest));
	migio_wr_be16(r + 90, tcp_passt_wnd(conn->wnd_adv, conn->ws_ours));
	migio_wr_be32(r + 92, conn->seq_acked);
	migio_wr_be32(r + 96, conn->seq_acked);
	migio_wr_be32(r + 100, conn->seq_from_guest);
	migio_wr_be32(r + 104, conn->seq_from_guest);
	/* passt acknowledges to the guest what the peer acknowledged, as
	 * the socket's bytes_acked plus the guest's initial sequence; a
	 * rebuilt socket counts bytes_acked afresh from the start of its
	 * send queue, so the guest's sequence there takes the place of the
	 * initial one.  A peer that acknowledges more before the queue is
	 * read leaves passt's ACKs that much behind, never ahead of the
	 * peer's.
	 */
	if (ioctl(conn->fd, SIOCOUTQ, &sndq) || sndq < 0)
		migio_wr_be32(r + 108, conn->seq_init_guest);
	else
		migio_wr_be32(r + 108, conn->seq_from_guest - (uint32_t)sndq);
	return migio_put(io, r, sizeof(r));
}

/**
 * tcp_passt_ext_put() - write a connection's socket state and queues
 * @io:		the stream
 * @st:		the state, its queues in tcp_mig_q; NULL if it cannot move
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int tcp_passt_ext_put(struct migio *io, const struct tcp_sock_state *st)
{
	uint8_t e[PASST_EXT] = { 0 };

	if (!st)	/* TCP state 0: reset it */
		return migio_put(io, e, sizeof(e));
	migio_wr_be32(e, st->snd_seq - st->sndq);
	migio_wr_be32(e + 4, st->rcv_seq - st->rcvq);
	migio_wr_be32(e + 8, st->sndq);
	migio_wr_be32(e + 12, st->notsent);
	migio_wr_be32(e + 16, st->rcvq);
	migio_wr_be32(e + 20, st->mss);
	migio_wr_be32(e + 24, st->ts);
	migio_wr_be32(e + 28, st->w.snd_wl1);
	migio_wr_be32(e + 32, st->w.snd_wnd);
	migio_wr_be32(e + 36, st->w.max_window);
	migio_wr_be32(e + 40, st->w.rcv_wnd);
	migio_wr_be32(e + 44, st->w.rcv_wup);
	e[48] = st->snd_ws;
	e[49] = st->rcv_ws;
	e[50] = st->state;
	e[51] = st->options;
	return migio_put(io, e, sizeof(e)) ||
	       migio_put(io, tcp_mig_q, st->sndq + st->rcvq) ? -1 : 0;
}

/**
 * tcp_passt_save() - write the connections as passt's stream has them
 * @c:		execution context
 * @io:		the stream, after the guest's addresses
 *
 * The records first, then each socket, read as the helper puts them in
 * repair mode (tcp_dump_conn()), in the same order.
 *
 * Return: 0 on success, -1 with @io->err set
 */
int tcp_passt_save(struct ctx *c, struct migio *io)
{
	struct tcp_table *t = c->tcp;
	uint32_t i, n = 0, big = 0;
	struct tcp_dump d;

	tcp_dump_start(c, &d);
	for (i = 0; i < t->idx.hiwater; i++)
		n += tcp_passt_listed(&t->c[i]);
	/* Asked once: each millisecond of waiting is downtime */
	if (n && !d.rep && (d.asked || !repair_wait(c))) {
		info("migration: no TCP repair helper: passt's stream then "
		     "carries none of the guest's %u TCP connections; each is "
		     "reset at the destination once the guest sends on it", n);
		n = 0;
	}
	if (migio_put_u32(io, n))
		return -1;
	for (i = 0; n && i < t->idx.hiwater; i++)
		if (tcp_passt_listed(&t->c[i]) &&
		    tcp_passt_rec_put(io, &t->c[i]))
			return -1;
	for (i = 0; n && i < t->idx.hiwater; i++) {
		struct tcp_conn *conn = &t->c[i];
		struct tcp_sock_state st;
		bool sock;

		if (!tcp_passt_listed(conn))
			continue;
		sock = tcp_dump_conn(c, &d, i, &st);
		if (sock && (st.sndq > PASST_QUEUE_MAX ||
			     st.rcvq > PASST_QUEUE_MAX)) {
			big++;
			sock = false;
		}
		if (sock)
			tcp_dump_unlinger(c, conn);
		if (tcp_passt_ext_put(io, sock ? &st : NULL))
			return -1;
		tcp_dump_done(c, &d, conn, sock);
	}
	if (big)
		info("migration: %u TCP connections with more than passt's "
		     "%u MiB in a queue are reset", big, PASST_QUEUE_MAX >> 20);
	tcp_dump_end(c, &d, n);
	return 0;
}

/**
 * tcp_passt_rec_get() - a record as a connection of ours, checked
 * @r:		the record
 * @conn:	filled: the guest's side
 * @host:	filled: the socket's side
 * @events:	filled: passt's events
 *
 * Return: true if well formed
 */
static bool tcp_passt_rec_get(const uint8_t *r, struct tcp_conn *conn,
			      struct passt_side *host, uint8_t *events)
{
	int tapi = r[1] == PASST_PIF_TAP;
	struct passt_side tap;
	uint32_t mss = migio_rd_be32(r + 78);

	if (r[tapi] != PASST_PIF_TAP || r[!tapi] != PASST_PIF_HOST)
		return false;
	side_get(r + PASST_SIDE(tapi), &tap);
	side_get(r + PASST_SIDE(!tapi), host);
	memset(conn, 0, sizeof(*conn));
	conn->state = CONN_ESTABLISHED;
	conn->gaddr = tap.eaddr;
	conn->gport = tap.eport;
	conn->raddr = tap.oaddr;
	conn->rport = tap.oport;
	conn->ws_guest = r[75];
	conn->ws_ours = r[76];
	*events = r[77];
	conn->mss_guest = (uint16_t)(mss ? mss : TCP_MSS_DEFAULT);
	conn->wnd_guest = (uint32_t)migio_rd_be16(r + 88) << (r[75] & 15);
	conn->wnd_adv = (uint32_t)migio_rd_be16(r + 90) << (r[76] & 15);
	conn->seq_to_guest = migio_rd_be32(r + 92);
	conn->seq_acked = migio_rd_be32(r + 96);
	conn->seq_from_guest = migio_rd_be32(r + 100);
	conn->seq_init_guest = migio_rd_be32(r + 108);
	return conn->gport && conn->rport && host->oport && host->eport &&
	       conn->ws_guest <= 14 && conn->ws_ours <= 14 &&
	       mss <= UINT16_MAX && (*events & PASST_ESTABLISHED) &&
	       inany_is4(&conn->gaddr) == inany_is4(&conn->raddr) &&
	       inany_is4(&host->oaddr) == inany_is4(&host->eaddr);
}

/**
 * tcp_passt_ext_get() - read a socket's state and queues, checked
 * @io:		the stream, at the socket's state
 * @host:	the socket's side, from its record
 * @st:		filled; the queues go to tcp_mig_q
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int tcp_passt_ext_get(struct migio *io, const struct passt_side *host,
			     struct tcp_sock_state *st)
{
	uint8_t e[PASST_EXT];

	if (migio_get(io, e, sizeof(e)))
		return -1;
	memset(st, 0, sizeof(*st));
	st->state = e[50];
	if (!st->state)		/* the source could not read it */
		return 0;
	st->sndq = migio_rd_be32(e + 8);
	st->notsent = migio_rd_be32(e + 12);
	st->rcvq = migio_rd_be32(e + 16);
	st->snd_seq = migio_rd_be32(e) + st->sndq;
	st->rcv_seq = migio_rd_be32(e + 4) + st->rcvq;
	st->mss = migio_rd_be32(e + 20);
	st->ts = migio_rd_be32(e + 24);
	st->w.snd_wl1 = migio_rd_be32(e + 28);
	st->w.snd_wnd = migio_rd_be32(e + 32);
	st->w.max_window = migio_rd_be32(e + 36);
	st->w.rcv_wnd = migio_rd_be32(e + 40);
	st->w.rcv_wup = migio_rd_be32(e + 44);
	st->snd_ws = e[48];
	st->rcv_ws = e[49];
	st->options = e[51];
	st->family = inany_is4(&host->oaddr) ? 4 : 6;
	st->laddr = host->oaddr;
	st->lport = host->oport;
	st->paddr = host->eaddr;
	st->pport = host->eport;
	if (st->state > TCP_CLOSING || st->snd_ws > 14 || st->rcv_ws > 14 ||
	    st->sndq > PASST_QUEUE_MAX || st->rcvq > PASST_QUEUE_MAX ||
	    st->notsent > st->sndq) {
		io->err = EINVAL;
		return -1;
	}
	return migio_get(io, tcp_mig_q, st->sndq + st->rcvq);
}

/**
 * tcp_passt_load() - read the connections of passt's stream
 * @c:		execution context
 * @io:		the stream, at the number of connections
 *
 * The records are kept until their sockets come, in room sized for
 * --max-tcp connections at start-up.  A connection whose
 * socket is established is rebuilt on the same 4-tuple if a repair helper
 * is there; any other (half-closed, or left by the source) is reset
 * towards the guest (tcp_restore_conn()).
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more connections than --max-tcp allows)
 */
int tcp_passt_load(struct ctx *c, struct migio *io)
{
	uint8_t *recs = c->tcp->mig_recs;
	uint32_t i, n, closing = 0;
	struct tcp_restore r;

	if (tcp_restore_count(c, io, &n))
		return -1;
	for (i = 0; i < n; i++) {
		struct passt_side host;
		struct tcp_conn conn;
		uint8_t ev;

		if (migio_get(io, recs + (size_t)i * PASST_REC, PASST_REC))
			return -1;
		if (!tcp_passt_rec_get(recs + (size_t)i * PASST_REC, &conn,
				       &host, &ev)) {
			err("migration: passt's TCP connection %u of %u "
			    "malformed", i + 1, n);
			io->err = EINVAL;
			return -1;
		}
	}
	tcp_restore_start(c, &r);
	for (i = 0; i < n; i++) {
		struct tcp_sock_state st;
		struct passt_side host;
		struct tcp_conn conn;
		bool open;
		uint8_t ev;

		tcp_passt_rec_get(recs + (size_t)i * PASST_REC, &conn, &host,
				  &ev);
		if (tcp_passt_ext_get(io, &host, &st)) {
			if (io->err == EINVAL)
				err("migration: passt's TCP connection %u of "
				    "%u: its socket is malformed", i + 1, n);
			return -1;
		}
		open = st.state == TCP_ESTABLISHED && !(ev & PASST_FINS);
		closing += st.state && !open;
		tcp_restore_conn(c, &r, &conn, open ? &st : NULL, n - i);
	}
	if (closing)
		info("migration: %u half-closed TCP connections from passt "
		     "are reset", closing);
	tcp_restore_end(c, &r, n);
	return 0;
}
