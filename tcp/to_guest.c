// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP: segments to the guest
 *
 * Remote data is peeked from the socket (SO_PEEK_OFF: only new bytes)
 * straight into frames for the guest and dequeued only once the guest
 * acknowledged it; a retransmission is a peek again from the acknowledged
 * point.  The window the guest sees is the room the socket has; ACKs,
 * FINs and RSTs go from here too.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>

#include "tcp.h"
#include "internal.h"
#include "seq.h"
#include "icmp/icmp.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/uring.h"

/**
 * tcp_link_mss() - largest segment the guest's link carries
 * @c:		execution context
 * @v6:		IPv6
 *
 * Return: MSS for the guest's MTU
 */
uint16_t tcp_link_mss(const struct ctx *c, bool v6)
{
	uint32_t mtu = c->conf.mtu ? c->conf.mtu : 1500;
	uint32_t mss = mtu - (v6 ? IP6_HLEN : IP4_HLEN) - TCP_HLEN;

	return mss > 0xffff ? 0xffff : (uint16_t)mss;
}

/**
 * tcp_sock_room() - payload bytes the host socket can accept now
 * @conn:	connection
 *
 * SO_MEMINFO gives the send buffer and what is queued in it in the
 * kernel's accounting, which counts buffer overhead too: with small
 * buffers (a lossy path fragments them) that is half of it.  SIOCOUTQ gives
 * the payload queued, so their ratio turns free memory into payload room.
 * Advertising more than the socket takes would make the guest send data
 * we can only drop, so an eighth is kept back as well.
 *
 * Measured, the room is kept, less the payload written after (the ratio
 * above counts room in payload bytes; the remote's ACKs only add room):
 * it is measured again when a quarter of it is gone, on EPOLLOUT, and
 * at each tick of the loop's timer.  That saves two calls per ACK to a
 * guest sending bulk data (of 67 per MiB at MTU 1500), and every call
 * of a transfer towards the guest, which writes nothing.
 *
 * Return: bytes
 */
static uint32_t tcp_sock_room(struct tcp_conn *conn)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mi);
	uint64_t room, queued;
	int outq = 0;

	if (conn->flags & F_ROOM_KNOWN &&
	    conn->room_est >= conn->room_meas - conn->room_meas / 4)
		return conn->room_est;
	if (getsockopt(conn->fd, SOL_SOCKET, SO_MEMINFO, mi, &sl) ||
	    sl < sizeof(uint32_t) * (SK_MEMINFO_WMEM_QUEUED + 1))
		return 0;
	queued = mi[SK_MEMINFO_WMEM_QUEUED];
	if (queued >= mi[SK_MEMINFO_SNDBUF])
		return 0;
	room = mi[SK_MEMINFO_SNDBUF] - queued;
	if (queued && !ioctl(conn->fd, SIOCOUTQ, &outq) && outq > 0 &&
	    (uint64_t)outq < queued)
		room = room * (uint64_t)outq / queued;
	else
		room /= 2;	/* nothing queued to measure the overhead by */
	room -= room / 8;
	if (room > UINT32_MAX)
		room = UINT32_MAX;
	conn->flags |= F_ROOM_KNOWN;
	conn->room_meas = conn->room_est = (uint32_t)room;
	return (uint32_t)room;
}

/**
 * tcp_send_seg() - send a segment without data to the guest
 * @c:		execution context
 * @conn:	connection
 * @flags:	TH_* flags
 * @seq:	sequence number
 * @room:	window to advertise, bytes
 *
 * SYNs carry our MSS and window scale (only if the guest offered one, on a
 * SYN-ACK), and SACK-permitted (on a SYN-ACK, if the guest offered it).
 * Other segments carry a SACK block when SACK was agreed and bytes of the
 * guest are held past a hole (tcp/ooo.c): the guest then resends only the
 * hole.
 *
 * Return: 0 if queued, -1 if the queue to the VMM is full
 */
static int tcp_send_seg(struct ctx *c, struct tcp_conn *conn, uint8_t flags,
			uint32_t seq, uint32_t room)
{
	bool v6 = !inany_is4(&conn->raddr);
	uint8_t *l4 = ip_tx_l4(c, conn->qp, v6, TCP_HLEN + TCP_OPTLEN_MAX);
	uint16_t mss = 0;
	int ws = -1;
	size_t len;

	if (!l4)
		return -1;
	if (flags & TH_SYN) {
		mss = tcp_link_mss(c, v6);
		/* On a SYN-ACK, only if the guest offered scaling */
		if (!(flags & TH_ACK) || conn->ws_ours)
			ws = conn->ws_ours;
		room = room > 0xffff ? 0xffff : room;	/* never scaled */
	}
	conn->wnd_adv = room;

	len = tcp_hdr_build(l4, conn->rport, conn->gport, seq,
			    (flags & TH_ACK) ? conn->seq_from_guest : 0, flags,
			    (flags & TH_SYN) ? (uint16_t)room :
			    wnd_to_guest(room, conn->ws_ours), mss, ws);
	if ((flags & TH_SYN) && (!(flags & TH_ACK) || conn->flags & F_SACK))
		len = tcp_hdr_sack_perm(l4, len);
	else if ((flags & (TH_ACK | TH_RST)) == TH_ACK &&
		 conn->flags & F_SACK && conn->ooo_len &&
		 seq_gt(conn->ooo_seq, conn->seq_from_guest))
		len = tcp_hdr_sack(l4, len, conn->ooo_seq,
				   conn->ooo_seq + conn->ooo_len);
	ip_tx_send(c, l4, &conn->raddr, &conn->gaddr, IPPROTO_TCP, len, NULL);
	return 0;
}

/**
 * tcp_rst_reply() - reset a guest segment that has no connection
 * @c:		execution context
 * @m:		addresses of the segment
 * @s:		the segment
 */
void tcp_rst_reply(struct ctx *c, const struct l4_meta *m,
			  const struct tcp_seg *s)
{
	uint8_t *l4;
	uint32_t seq = 0, ack = 0;
	uint8_t flags = TH_RST;
	size_t len;

	if (s->flags & TH_RST)
		return;
	l4 = ip_tx_l4(c, m->qp, m->v6, TCP_HLEN);
	if (!l4)
		return;
	/* RFC 9293 3.10.7.1 */
	if (s->flags & TH_ACK) {
		seq = s->ack;
	} else {
		ack = s->seq + (uint32_t)s->payload.len +
		      !!(s->flags & TH_SYN) + !!(s->flags & TH_FIN);
		flags |= TH_ACK;
	}
	len = tcp_hdr_build(l4, s->dport, s->sport, seq, ack, flags, 0, 0, -1);
	ip_tx_send(c, l4, &m->dst, &m->src, IPPROTO_TCP, len, NULL);
}

/**
 * tcp_send_ctl() - send a segment without data, the window the socket's room
 * @c:		execution context
 * @conn:	connection
 * @flags:	TH_* flags
 * @seq:	sequence number
 *
 * Return: 0 if queued, -1 if the queue to the VMM is full
 */
int tcp_send_ctl(struct ctx *c, struct tcp_conn *conn, uint8_t flags,
			uint32_t seq)
{
	uint32_t room = 0;

	if (!(flags & TH_RST) && conn->fd >= 0 && conn->state != CONN_CONNECTING)
		room = tcp_sock_room(conn);
	return tcp_send_seg(c, conn, flags, seq, room);
}

/**
 * tcp_send_dupacks() - duplicate ACKs: the same ACK and the same window
 * @c:		execution context
 * @conn:	connection
 * @n:		how many
 *
 * A window that changed makes an ACK a window update, not a duplicate, and
 * only duplicates make the guest retransmit at once (fast retransmit).
 */
void tcp_send_dupacks(struct ctx *c, struct tcp_conn *conn, int n)
{
	while (n-- && !tcp_send_seg(c, conn, TH_ACK, conn->seq_to_guest,
				    conn->wnd_adv))
		;
}

/**
 * tcp_reset() - reset both sides and free the connection
 * @c:		execution context
 * @conn:	connection
 */
void tcp_reset(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->state != CONN_CONNECTING)
		tcp_send_ctl(c, conn, TH_RST | TH_ACK, conn->seq_to_guest);
	else
		tcp_send_ctl(c, conn, TH_RST | TH_ACK, conn->seq_acked);
	conn_free(c, conn, true);
}

/**
 * tcp_ack_owe() - owe the guest an ACK, sent at the end of a loop pass
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_ack_owe(struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_table *t = c->tcp;

	/* Owing an ACK and being on the list differ: a data segment pays
	 * the debt, but the connection stays listed until the next flush.
	 */
	conn->flags |= F_ACK_DUE;
	if (conn->flags & F_ACK_LISTED)
		return;
	conn->flags |= F_ACK_LISTED;
	conn->next_pending = t->ack_list;
	t->ack_list = conn_index(t, conn);
}

/**
 * tcp_ack_later() - owe the guest an ACK, sent at the end of this loop pass
 * @c:		execution context
 * @conn:	connection
 */
void tcp_ack_later(struct ctx *c, struct tcp_conn *conn)
{
	conn->flags |= F_ACK_NOW;
	tcp_ack_owe(c, conn);
}

/**
 * tcp_ack_paid() - a segment to the guest carried the ACK owed
 * @conn:	connection
 */
void tcp_ack_paid(struct tcp_conn *conn)
{
	conn->flags &= ~(F_ACK_DUE | F_ACK_NOW);
	conn->ack_owed = 0;
}

/**
 * tcp_guest_took() - the socket took @done of @len guest bytes written
 * @c:		execution context
 * @conn:	connection
 * @done:	bytes the socket took
 * @len:	bytes written
 *
 * They are acknowledged; what the socket refused comes back as a
 * retransmission once the window we advertise opens again.  Shared by
 * the in-order writes (from_guest.c) and the runs held past a hole
 * (ooo.c).
 */
void tcp_guest_took(struct ctx *c, struct tcp_conn *conn, uint32_t done,
		    uint32_t len)
{
	conn->seq_from_guest += done;
	conn->ack_owed += done;
	if (done == len)
		tcp_ack_owe(c, conn);	/* may wait a pass: tcp_flush_acks() */
	else
		tcp_ack_later(c, conn);
	if (done < len) {
		c->cnt.tcp_sock_refused += len - done;
		conn->flags |= F_WANT_ROOM | F_DROPPED;
		conn_epoll(c, conn, conn->events | EPOLLOUT);
	}
}

/**
 * tcp_wait_tx() - resume sending when the VMM takes frames again
 * @c:		execution context
 * @conn:	connection
 */
void tcp_wait_tx(struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_table *t = c->tcp;

	if (conn->flags & F_TX_WAIT)
		return;
	conn->flags |= F_TX_WAIT;
	conn->next_wait = t->wait_list;
	t->wait_list = conn_index(t, conn);
}

/**
 * tcp_update_clamp() - push the guest's window into the socket
 * @conn:	connection
 *
 * TCP_WINDOW_CLAMP makes the remote see the guest's receive window, so a
 * slow guest slows the remote down instead of filling the pod's socket.
 * Only changes by more than a quarter are pushed: one system call per ACK
 * would cost more than it tells.
 */
void tcp_update_clamp(struct tcp_conn *conn)
{
	uint32_t w = conn->wnd_guest, diff;
	int v;

	if (w < 65536)
		w = 65536;
	diff = w > conn->clamp ? w - conn->clamp : conn->clamp - w;
	if (conn->clamp && diff < conn->clamp / 4)
		return;
	v = (int)(w > INT32_MAX ? INT32_MAX : w);
	if (!setsockopt(conn->fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v)))
		conn->clamp = w;
}

/**
 * tcp_set_peek_off() - make the next peek start after the bytes in flight
 * @conn:	connection
 */
void tcp_set_peek_off(struct tcp_conn *conn)
{
	int off = (int)(conn->seq_to_guest - conn->seq_acked);

	setsockopt(conn->fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
}

/**
 * tcp_drop_later() - drop bytes the guest acknowledged from the socket,
 *		      with the next tcp_drop_pending()
 * @c:		execution context
 * @conn:	connection
 * @bytes:	bytes acknowledged
 *
 * A guest acknowledges every other segment: dropping each ACK's bytes
 * at once cost a recv() per ACK, five times as many as the peeks of a
 * transfer to the guest (measured, MTU 1500).  Peeks with SO_PEEK_OFF
 * need not wait for it: the kernel moves the offset back by what is
 * dropped.
 */
void tcp_drop_later(struct ctx *c, struct tcp_conn *conn, uint32_t bytes)
{
	struct tcp_table *t = c->tcp;

	if (!bytes)
		return;
	if (!conn->unread_acked) {
		if (t->n_drop == TCP_DROP_BATCH)
			tcp_drop_pending(c, false);
		t->drop[t->n_drop++] = conn_index(t, conn);
	}
	conn->unread_acked += bytes;
}

/**
 * tcp_drop_pending() - drop what the guest acknowledged from the sockets
 * @c:		execution context
 * @defer:	just before the loop waits: with io_uring, the drops are
 *		submitted with the wait (tcp_drop_failed() after it)
 *
 * Once per loop iteration, and before a migration reads the queues.
 */
void tcp_drop_pending(struct ctx *c, bool defer)
{
	struct tcp_table *t = c->tcp;
	int i;

	for (i = 0; i < t->n_drop; i++) {
		int32_t idx = t->drop[i];
		struct tcp_conn *conn = &t->c[idx];
		uint64_t tag = (uint64_t)idx << 32 | (uint32_t)conn->fd;

		/* A slot freed and taken again since has nothing owed */
		if (conn->state == CONN_FREE || !conn->unread_acked)
			continue;
		if (defer &&
		    uring_discard(c, conn->fd, conn->unread_acked, tag)) {
			conn->unread_acked = 0;
			continue;
		}
		if (conn_drop_acked(conn))
			tcp_reset(c, conn);
	}
	t->n_drop = 0;
}

/**
 * tcp_drop_failed() - reset connections whose drop through io_uring failed
 * @c:		execution context
 *
 * Right after the wait that submitted them, where they completed: the
 * slot and descriptor of each are still those of the connection.
 */
void tcp_drop_failed(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint64_t tag;

	while (uring_failed(c, &tag)) {
		uint32_t idx = (uint32_t)(tag >> 32);
		struct tcp_conn *conn;

		if (idx >= t->idx.n)
			continue;
		conn = &t->c[idx];
		if (conn->state != CONN_FREE && conn->fd == (int)(uint32_t)tag)
			tcp_reset(c, conn);
	}
}

/**
 * tcp_send_from() - move the point the next segment to the guest starts at
 * @c:		execution context
 * @conn:	connection, with a socket
 * @seq:	that point, from @conn->seq_acked to tcp_sent_max()
 *
 * The peek offset counts from the socket's head, where the guest's last
 * ACK is once what it acknowledged is dropped.
 *
 * Return: 0, -1 if the socket had lost bytes and the connection was reset
 */
int tcp_send_from(struct ctx *c, struct tcp_conn *conn, uint32_t seq)
{
	conn->seq_to_guest = seq;
	if (conn_drop_acked(conn)) {
		tcp_reset(c, conn);
		return -1;
	}
	if (c->tcp->peek_off)
		tcp_set_peek_off(conn);
	return 0;
}

/**
 * tcp_rewind() - retransmit: send again from the first unacknowledged byte
 * @c:		execution context
 * @conn:	connection
 */
void tcp_rewind(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->flags & F_FIN_SENT && !(conn->flags & F_FIN_ACKED))
		conn->flags &= ~F_FIN_SENT;
	/* The highest byte sent (RFC 6582): a second rewind before the
	 * first was made good must not forget what went out then
	 */
	if (seq_gt(conn->seq_to_guest, conn->recover))
		conn->recover = conn->seq_to_guest;
	conn->rtt_start = 0;		/* Karn: no samples from resent data */
	if (tcp_send_from(c, conn, conn->seq_acked))
		return;
	conn->dup_acks = 0;
	conn->flags &= ~F_DRAINED;	/* what was in flight is unsent again */
	tcp_send_data(c, conn);
}

/**
 * tcp_timer_arm() - (re)start or stop the retransmission timer, or the
 *		     persist timer when the guest's window is closed
 * @c:		execution context
 * @conn:	connection
 *
 * With nothing in flight and a zero window, only a window update from
 * the guest would restart the transfer, and nothing makes the guest send
 * one again if it was lost: a migration's hop, a front-end that
 * reconnected.  So the timer runs on and probes (RFC 9293 3.8.6.1).
 */
void tcp_timer_arm(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->seq_to_guest != conn->seq_acked || tcp_persist_due(conn))
		conn->rto_at = tcp_now_ms(c) + conn->rto_ms;
	else
		conn->rto_at = 0;
}

/**
 * tcp_persist_probe() - on the persist timer: ask the guest for its window
 * @c:		execution context
 * @conn:	connection, its window closed and nothing in flight
 *
 * Only if the socket holds bytes for the guest: a closed window with
 * nothing to send is the guest's business, and new bytes arm the timer
 * again (tcp_send_data()).  The probe is an ACK of a byte already
 * acknowledged, outside the guest's window, which it must answer with an
 * ACK carrying its window (RFC 9293 3.10.7.4), as Linux probes.
 *
 * Return: true if the probe went and the timer runs on
 */
bool tcp_persist_probe(struct ctx *c, struct tcp_conn *conn)
{
	int inq = 0;

	if (conn->fd < 0 || ioctl(conn->fd, SIOCINQ, &inq) ||
	    (uint32_t)inq <= conn->unread_acked)
		return false;
	c->cnt.tcp_window_probes++;
	tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest - 1);
	return true;
}

/**
 * tcp_send_fin() - send our FIN once all remote data went to the guest
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_send_fin(struct ctx *c, struct tcp_conn *conn)
{
	if (tcp_send_ctl(c, conn, TH_FIN | TH_ACK, conn->seq_to_guest)) {
		tcp_wait_tx(c, conn);
		return;
	}
	conn->seq_to_guest++;
	conn->flags |= F_FIN_SENT;
	tcp_timer_arm(c, conn);
}

/**
 * tcp_peek() - peek new socket data into frames reserved on the link
 * @c:		execution context
 * @conn:	connection
 * @f:		the reserved frames
 * @seg:	payload bytes per segment
 * @nseg:	number of frames reserved
 * @budget:	bytes the guest's window takes: the last frame may be short
 *
 * Return: new bytes peeked, 0 at EOF, -1 with errno set (EAGAIN: none)
 */
static ssize_t tcp_peek(struct ctx *c, struct tcp_conn *conn,
			const struct link_frame *f, size_t seg, int nseg,
			size_t budget)
{
	struct iovec iov[TCP_PEEK_IOV];
	struct msghdr mh = { .msg_iov = iov };
	int i, n = 0;

	if (!c->tcp->peek_off) {
		/* Skipping what is in flight, from the socket's head */
		if (conn_drop_acked(conn)) {
			errno = ECONNRESET;
			return -1;
		}
		iov[n].iov_base = c->tcp->discard;
		iov[n++].iov_len = conn->seq_to_guest - conn->seq_acked;
	}
	/* The kernel advances the peek offset by what it copied: never
	 * peek more than will be sent.  A frame built in the guest's own
	 * buffers may take several entries.
	 */
	for (i = 0; i < nseg && budget; i++) {
		size_t want = budget < seg ? budget : seg;
		unsigned int k;

		if (n + f[i].niov > TCP_PEEK_IOV)
			break;
		budget -= want;
		for (k = 0; k < f[i].niov && want; k++) {
			iov[n].iov_base = f[i].iov[k].iov_base;
			iov[n].iov_len = f[i].iov[k].iov_len < want ?
					 f[i].iov[k].iov_len : want;
			want -= iov[n++].iov_len;
		}
	}
	mh.msg_iovlen = n;
	n = (int)recvmsg(conn->fd, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0 && !c->tcp->peek_off) {
		/* Only bytes already in flight: nothing new yet.  EOF shows
		 * once the guest acknowledged them all and the peek is empty.
		 */
		n -= (int)(conn->seq_to_guest - conn->seq_acked);
		if (n <= 0) {
			errno = EAGAIN;
			return -1;
		}
	}
	return n;
}

/**
 * tcp_send_data() - send the guest whatever its window allows
 * @c:		execution context
 * @conn:	connection
 *
 * MSS-sized frames are reserved on the link, the socket is peeked into
 * their payload areas in one recvmsg(), then headers are written for the
 * segments that got data.  Where the link carries segmentation offload,
 * frames hold as many MSS as one IP packet can instead, and the guest
 * sees them cut at its MSS; where it takes partial checksums, the payload
 * is not summed here.
 */
void tcp_send_data(struct ctx *c, struct tcp_conn *conn)
{
	bool v6 = !inany_is4(&conn->raddr);
	size_t hlen = ip_l2l3_len(v6) + TCP_HLEN;
	uint32_t budget, mss = conn->mss_guest, room, seg;
	struct link_frame *f = c->tcp->frames;
	ssize_t n;
	int nseg, i;

	/* A socket handed to a migration is in repair mode: not read */
	if (conn->state != CONN_ESTABLISHED ||
	    conn->flags & (F_FIN_SENT | F_DRAINED | F_MIGRATED))
		return;

	budget = send_budget(conn->seq_acked, conn->seq_to_guest,
			     conn->wnd_guest);
	if (!c->tcp->peek_off) {
		/* Every peek copies the bytes in flight again: keep them to
		 * sixteen segments, within 256 KiB and 1 MiB (measured best
		 * at MTU 1500 and 65520 alike).
		 */
		uint32_t cap = 16 * mss, inflight;

		cap = cap < TCP_DISCARD_MIN ? TCP_DISCARD_MIN :
		      cap > TCP_DISCARD_SIZE ? TCP_DISCARD_SIZE : cap;
		inflight = conn->seq_to_guest - conn->seq_acked;
		budget = inflight >= cap ? 0 :
			 budget < cap - inflight ? budget : cap - inflight;
	}
	if (!budget) {
		/* The guest's next ACK opens the window, or a probe asks */
		if (!conn->rto_at)
			tcp_timer_arm(c, conn);
		return;
	}
	seg = link_tso_max(c, v6);
	seg = seg > mss ? seg - seg % mss : mss;
	if (seg > budget)
		seg = budget;

	nseg = (int)((budget + seg - 1) / seg);
	if (nseg > TCP_BATCH)
		nseg = TCP_BATCH;
	nseg = tx_reserve_frames(c, conn->qp, hlen, seg, nseg, f);
	if (!nseg) {
		tcp_wait_tx(c, conn);
		return;
	}

	n = tcp_peek(c, conn, f, seg, nseg, budget);
	if (n < 0) {
		/* Nothing new: the next EPOLLIN edge says when there is,
		 * until then guest segments need not ask the socket again.
		 */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			conn->flags |= F_DRAINED;
		else
			tcp_reset(c, conn);
		return;
	}
	if (n == 0) {
		/* EOF, after everything was peeked: FIN follows the data */
		conn->flags |= F_HOST_EOF;
		tcp_send_fin(c, conn);
		return;
	}

	room = tcp_sock_room(conn);
	for (i = 0; n > 0; i++) {
		uint8_t *frame = f[i].l2;
		size_t plen = (size_t)n < seg ? (size_t)n : seg;
		uint8_t *l4 = frame + ip_l2l3_len(v6);
		struct link_offload o = { 0 };

		tcp_hdr_build(l4, conn->rport, conn->gport, conn->seq_to_guest,
			      conn->seq_from_guest,
			      TH_ACK | ((size_t)n == plen ? TH_PSH : 0),
			      wnd_to_guest(room, conn->ws_ours), 0, -1);
		ip_frame_fill_offload(c, &f[i], &conn->raddr, &conn->gaddr,
				      IPPROTO_TCP, TCP_HLEN + plen, &o);
		if (plen > mss) {
			o.gso_type = v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4;
			o.gso_size = (uint16_t)mss;
			o.hdr_len = (uint16_t)hlen;
		}
		tx_commit_frame(c, &f[i], plen, &o);
		conn->seq_to_guest += (uint32_t)plen;
		n -= (ssize_t)plen;
	}
	conn->wnd_adv = room;
	tcp_ack_paid(conn);	/* data carried the ACK */
	if (!conn->rtt_start && seq_ge(conn->seq_acked, conn->recover)) {
		conn->rtt_seq = conn->seq_to_guest;
		conn->rtt_start = tcp_now_ms(c) ? tcp_now_ms(c) : 1;
	}
	if (!conn->rto_at)
		tcp_timer_arm(c, conn);

	/* The window or the batch ran out, not the data: more next time */
	if (send_budget(conn->seq_acked, conn->seq_to_guest, conn->wnd_guest) &&
	    i == nseg)
		tcp_wait_tx(c, conn);
}

/**
 * tcp_send_pending() - send the guest new data, and our FIN once it is due
 * @c:		execution context
 * @conn:	connection
 *
 * The FIN goes here when the remote's EOF was seen but the FIN could not be
 * queued then, or was taken back by a retransmission.
 */
void tcp_send_pending(struct ctx *c, struct tcp_conn *conn)
{
	tcp_send_data(c, conn);
	if (conn->state == CONN_ESTABLISHED && conn->flags & F_HOST_EOF &&
	    !(conn->flags & F_FIN_SENT) &&
	    conn->seq_to_guest == conn->seq_acked)
		tcp_send_fin(c, conn);
}

/**
 * tcp_flush_acks() - send the ACKs owed to the guest, one per connection
 * @c:		execution context
 * @all:	none waits: the front-end may stop the guest's rings next
 *
 * An ACK owed for data alone may wait one pass (ack_hold()): the guest's
 * next segment, if it comes by then, is acknowledged with it.
 *
 * Return: true if it held an ACK: the next pass is then due within
 *	   TCP_ACK_HOLD_MS (ACKs the full VMM refused wait for it to take
 *	   frames again, as its other frames do)
 */
bool tcp_flush_acks(struct ctx *c, bool all)
{
	struct tcp_table *t = c->tcp;
	int32_t held = -1;
	bool any;

	while (t->ack_list >= 0) {
		int32_t i = t->ack_list;
		struct tcp_conn *conn = &t->c[i];

		t->ack_list = conn->next_pending;
		conn->next_pending = -1;
		if (!(conn->flags & F_ACK_DUE)) {
			conn->flags &= ~F_ACK_LISTED;
			continue;
		}
		/* mss_guest is clamped to the link's at the handshake */
		if (!all && !(conn->flags & F_ACK_NOW) &&
		    ack_hold(conn->ack_owed, conn->mss_guest, conn->wnd_adv)) {
			conn->flags |= F_ACK_NOW;
			conn->next_pending = held;
			held = i;
			continue;
		}
		conn->flags &= ~F_ACK_LISTED;
		tcp_ack_paid(conn);
		if (tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest)) {
			tcp_ack_later(c, conn);	/* the VMM is full: later */
			break;
		}
		/* A closed window is reopened on EPOLLOUT */
		if (!wnd_to_guest(conn->wnd_adv, conn->ws_ours) &&
		    !(conn->flags & F_WANT_ROOM)) {
			conn->flags |= F_WANT_ROOM;
			conn_epoll(c, conn, conn->events | EPOLLOUT);
		}
	}
	/* What waits goes back on the list, still marked as listed */
	any = held >= 0;
	while (held >= 0) {
		struct tcp_conn *conn = &t->c[held];

		held = conn->next_pending;
		conn->next_pending = t->ack_list;
		t->ack_list = conn_index(t, conn);
	}
	return any;
}

/**
 * tcp_tx_resume() - the VMM takes frames again: resume waiting senders
 * @c:		execution context
 */
void tcp_tx_resume(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	int32_t list = t->wait_list;

	t->wait_list = -1;
	while (list >= 0) {
		struct tcp_conn *conn = &t->c[list];

		list = conn->next_wait;
		conn->next_wait = -1;
		conn->flags &= ~F_TX_WAIT;
		if (conn->state == CONN_ESTABLISHED)
			tcp_send_pending(c, conn);
	}
}

/**
 * tcp_connect_failed() - answer the guest's SYN for a failed connect()
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING, freed here
 * @err:	the error
 *
 * As a real network would answer: the host refused (RST), or nothing
 * answered on the way (ICMP unreachable), so the guest's connect() fails at
 * once, and with the right error.
 */
void tcp_connect_failed(struct ctx *c, struct tcp_conn *conn, int err)
{
	debug("TCP connect to port %u failed: %s", conn->rport, strerror(err));
	if (err == ECONNREFUSED) {
		tcp_send_ctl(c, conn, TH_RST | TH_ACK, 0);
	} else {
		uint8_t l4[8];

		wr16(l4, conn->gport);
		wr16(l4 + 2, conn->rport);
		wr32(l4 + 4, conn->seq_init_guest);
		icmp_unreach(c, conn->qp, &conn->gaddr, &conn->raddr,
			     IPPROTO_TCP, l4, NULL, 0, false);
	}
	conn_free(c, conn, false);
}
