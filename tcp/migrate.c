// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP connections in a migrated guest's device state
 *
 * The source writes one record per connection; the destination reads
 * each as untrusted input.  A record is fixed (addresses, ports, state,
 * the guest side's sequence numbers and windows) and may be followed by
 * the host socket's own state, dumped in repair mode (TCP_REPAIR, set by
 * the helper of repair.c): its addresses, sequence numbers, queues,
 * window and options.  The destination rebuilds the socket from it, on
 * the same 4-tuple, and neither the guest nor the remote peer sees more
 * than a pause.  A connection without that part (no helper on the
 * source, a half-closed connection, queues larger than MIGRATE_TCP_QBUF)
 * or one the destination cannot rebuild (no helper there, an address the
 * destination does not have) is reset towards the guest at once, with
 * the sequence number the guest expects, so that its applications see a
 * reset, never a hang, and new connections work from the start.
 *
 * Record, all integers big endian (MIGRATE_TCP_REC bytes):
 *   guest address (16, v4-mapped), remote address (16), guest port (2),
 *   remote port (2), state (1), guest and own window scale (1 each),
 *   reserved (1), flags (2), guest MSS (2), next sequence from the guest,
 *   next to it, oldest it has not acknowledged, its initial one, its
 *   window (4 each), then the length of the socket part (4) and that part.
 *
 * Socket part (MIGRATE_TCP_SOCK bytes, then the send queue, then the
 * receive queue):
 *   family (1: 4 or 6), TCP state (1), send and receive window scale (1
 *   each), tcpi_options (1), reserved (3), local address (16, v4-mapped),
 *   local port (2), peer address (16), peer port (2), MSS, timestamp
 *   offset, sequence at the end of the send queue, at the end of the
 *   receive queue, send queue bytes, of which not sent yet, receive
 *   queue bytes, snd_wl1, snd_wnd, max_window, rcv_wnd, rcv_wup (4 each).
 */
#include <errno.h>
#include <string.h>

#include "tcp.h"
#include "internal.h"
#include "repair.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define MIGRATE_TCP_REC		64
#define MIGRATE_TCP_SOCK	92
#define MIGRATE_TCP_EXT_MAX	(MIGRATE_TCP_SOCK + MIGRATE_TCP_QBUF)


/**
 * tcp_sock_put() - write a socket's state and queues
 * @io:		the stream
 * @st:		the state, its queues in tcp_mig_q
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int tcp_sock_put(struct migio *io, const struct tcp_sock_state *st)
{
	uint8_t h[8] = { st->family, st->state, st->snd_ws, st->rcv_ws,
			 st->options };

	return migio_put(io, h, sizeof(h)) ||
	       migio_put(io, &st->laddr, 16) ||
	       migio_put_u16(io, st->lport) ||
	       migio_put(io, &st->paddr, 16) ||
	       migio_put_u16(io, st->pport) ||
	       migio_put_u32(io, st->mss) || migio_put_u32(io, st->ts) ||
	       migio_put_u32(io, st->snd_seq) ||
	       migio_put_u32(io, st->rcv_seq) ||
	       migio_put_u32(io, st->sndq) ||
	       migio_put_u32(io, st->notsent) ||
	       migio_put_u32(io, st->rcvq) ||
	       migio_put_u32(io, st->w.snd_wl1) ||
	       migio_put_u32(io, st->w.snd_wnd) ||
	       migio_put_u32(io, st->w.max_window) ||
	       migio_put_u32(io, st->w.rcv_wnd) ||
	       migio_put_u32(io, st->w.rcv_wup) ||
	       migio_put(io, tcp_mig_q, st->sndq + st->rcvq) ? -1 : 0;
}

/**
 * tcp_migrate_save() - write every connection to a device state
 * @c:		execution context
 * @io:		the stream
 *
 * Their number, then one record each, followed by its socket's state
 * where the socket moves (tcp_dump_conn()).
 *
 * Return: 0 on success, -1 with @io->err set
 */
/**
 * tcp_rec_put() - write a connection's record, the part every state has
 * @io:		the stream
 * @conn:	the connection
 * @sent:	its next sequence number to the guest, as the record says it
 * @ext:	what follows the record: the length of its socket part, or
 *		TCP_REC_FD for an upgrade in place (tcp/upgrade.c)
 *
 * Return: 0 on success, -1 with @io->err set
 */
int tcp_rec_put(struct migio *io, const struct tcp_conn *conn, uint32_t sent,
		uint32_t ext)
{
	uint8_t r[MIGRATE_TCP_REC - 20];

	memcpy(r, &conn->gaddr, 16);
	memcpy(r + 16, &conn->raddr, 16);
	migio_wr_be16(r + 32, conn->gport);
	migio_wr_be16(r + 34, conn->rport);
	r[36] = conn->state;
	r[37] = conn->ws_guest;
	r[38] = conn->ws_ours;
	r[39] = 0;
	migio_wr_be16(r + 40, conn->flags);
	migio_wr_be16(r + 42, conn->mss_guest);
	return migio_put(io, r, sizeof(r)) ||
	       migio_put_u32(io, conn->seq_from_guest) ||
	       migio_put_u32(io, sent) ||
	       migio_put_u32(io, conn->seq_acked) ||
	       migio_put_u32(io, conn->seq_init_guest) ||
	       migio_put_u32(io, conn->wnd_guest) ||
	       migio_put_u32(io, ext) ? -1 : 0;
}

/**
 * tcp_rec_get() - read a connection's record, checked as every state's is
 * @io:		the stream
 * @conn:	filled: addresses, ports, state, flags, window scales, MSS,
 *		sequence numbers and the guest's window
 * @ext:	set to what follows the record (tcp_rec_put())
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a record no
 * connection can have)
 */
int tcp_rec_get(struct migio *io, struct tcp_conn *conn, uint32_t *ext)
{
	uint8_t rec[MIGRATE_TCP_REC - 20];

	if (migio_get(io, rec, sizeof(rec)) ||
	    migio_get_u32(io, &conn->seq_from_guest) ||
	    migio_get_u32(io, &conn->seq_to_guest) ||
	    migio_get_u32(io, &conn->seq_acked) ||
	    migio_get_u32(io, &conn->seq_init_guest) ||
	    migio_get_u32(io, &conn->wnd_guest) ||
	    migio_get_u32(io, ext))
		return -1;
	memcpy(&conn->gaddr, rec, 16);
	memcpy(&conn->raddr, rec + 16, 16);
	conn->gport = migio_rd_be16(rec + 32);
	conn->rport = migio_rd_be16(rec + 34);
	conn->state = rec[36];
	conn->ws_guest = rec[37];
	conn->ws_ours = rec[38];
	conn->flags = migio_rd_be16(rec + 40);
	conn->mss_guest = migio_rd_be16(rec + 42);
	if (conn->state == CONN_FREE || conn->state > CONN_ESTABLISHED ||
	    !conn->gport || !conn->rport || conn->ws_guest > 14 ||
	    conn->ws_ours > 14 ||
	    inany_is4(&conn->gaddr) != inany_is4(&conn->raddr)) {
		io->err = EINVAL;
		return -1;
	}
	return 0;
}

int tcp_migrate_save(struct ctx *c, struct migio *io)
{
	struct tcp_table *t = c->tcp;
	struct tcp_dump d;
	uint32_t i, n = 0;

	tcp_dump_start(c, &d);
	for (i = 0; i < t->idx.hiwater; i++)
		n += t->c[i].state != CONN_FREE;
	if (migio_put_u32(io, n))
		return -1;
	for (i = 0; i < t->idx.hiwater; i++) {
		struct tcp_conn *conn = &t->c[i];
		struct tcp_sock_state st;
		uint32_t sent;
		bool sock;

		if (conn->state == CONN_FREE)
			continue;
		sock = tcp_dump_conn(c, &d, i, &st);
		sent = tcp_sent_max(conn);	/* while it has its socket */
		if (sock)
			tcp_dump_unlinger(c, conn);
		if (tcp_rec_put(io, conn, sent, sock ? MIGRATE_TCP_SOCK +
						st.sndq + st.rcvq : 0) ||
		    (sock && tcp_sock_put(io, &st)))
			return -1;
		tcp_dump_done(c, &d, conn, sock);
	}
	tcp_dump_end(c, &d, n);
	return 0;
}

/**
 * tcp_sock_get() - read a socket's state and queues, checked
 * @io:		the stream, at the socket part
 * @ext:	its length, from the record
 * @st:		filled; the queues go to tcp_mig_q
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int tcp_sock_get(struct migio *io, uint32_t ext,
			struct tcp_sock_state *st)
{
	uint8_t h[8];

	if (migio_get(io, h, sizeof(h)) || migio_get(io, &st->laddr, 16) ||
	    migio_get_u16(io, &st->lport) || migio_get(io, &st->paddr, 16) ||
	    migio_get_u16(io, &st->pport) || migio_get_u32(io, &st->mss) ||
	    migio_get_u32(io, &st->ts) || migio_get_u32(io, &st->snd_seq) ||
	    migio_get_u32(io, &st->rcv_seq) || migio_get_u32(io, &st->sndq) ||
	    migio_get_u32(io, &st->notsent) || migio_get_u32(io, &st->rcvq) ||
	    migio_get_u32(io, &st->w.snd_wl1) ||
	    migio_get_u32(io, &st->w.snd_wnd) ||
	    migio_get_u32(io, &st->w.max_window) ||
	    migio_get_u32(io, &st->w.rcv_wnd) ||
	    migio_get_u32(io, &st->w.rcv_wup))
		return -1;
	st->family = h[0];
	st->state = h[1];
	st->snd_ws = h[2];
	st->rcv_ws = h[3];
	st->options = h[4];
	if ((st->family != 4 && st->family != 6) ||
	    st->state != TCP_ESTABLISHED || st->snd_ws > 14 ||
	    st->rcv_ws > 14 || !st->lport || !st->pport ||
	    (st->family == 4) != inany_is4(&st->laddr) ||
	    (st->family == 4) != inany_is4(&st->paddr) ||
	    st->notsent > st->sndq ||
	    (uint64_t)st->sndq + st->rcvq > MIGRATE_TCP_QBUF ||
	    ext != MIGRATE_TCP_SOCK + st->sndq + st->rcvq) {
		io->err = EINVAL;
		return -1;
	}
	return migio_get(io, tcp_mig_q, st->sndq + st->rcvq);
}

/**
 * tcp_migrate_load() - read the connections of a device state
 * @c:		execution context
 * @io:		the stream, at the number of records
 *
 * A connection whose socket came with it is rebuilt on the same 4-tuple
 * if a repair helper is there; any other is reset towards the guest
 * (tcp_restore_conn()).
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more connections than --max-tcp allows)
 */
int tcp_migrate_load(struct ctx *c, struct migio *io)
{
	struct tcp_restore r;
	uint32_t i, n;

	if (tcp_restore_count(c, io, &n))
		return -1;
	tcp_restore_start(c, &r);
	for (i = 0; i < n; i++) {
		struct tcp_conn conn = { 0 };
		struct tcp_sock_state st = { 0 };
		uint32_t ext;

		if (tcp_rec_get(io, &conn, &ext) ||
		    ext > MIGRATE_TCP_EXT_MAX ||
		    (ext && ext < MIGRATE_TCP_SOCK) ||
		    (ext && conn.state != CONN_ESTABLISHED)) {
			if (io->err == EINVAL || !io->err) {
				err("migration: TCP connection %u of %u "
				    "malformed", i + 1, n);
				io->err = EINVAL;
			}
			return -1;
		}
		if (ext && tcp_sock_get(io, ext, &st)) {
			if (io->err == EINVAL)
				err("migration: TCP connection %u of %u: its "
				    "socket is malformed", i + 1, n);
			return -1;
		}
		tcp_restore_conn(c, &r, &conn, ext ? &st : NULL, n - i);
	}
	tcp_restore_end(c, &r, n);
	return 0;
}
