// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP sockets in repair mode, for a migration: dumped at the
 * source, rebuilt at the destination
 *
 * Whatever the device state's format (netshim's own, tcp/migrate.c, or
 * passt's, tcp/migrate_passt.c), a connection's host socket moves the
 * same way: the helper of netshim/repair.c puts it in repair mode
 * (TCP_REPAIR), its addresses, sequence numbers, queues, window and
 * options are read (struct tcp_sock_state, its queues in tcp_mig_q), and
 * the destination builds a socket again from them on the same 4-tuple,
 * so that neither the guest nor the remote peer sees more than a pause.
 * A connection that cannot move is reset towards the guest, with the
 * sequence number the guest expects: a reset, never a hang.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "tcp.h"
#include "internal.h"
#include "repair.h"
#include "seq.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "netshim/repair.h"

/* One connection's queues on their way, in zero pages until a migration
 * with data in flight touches them: the send queue can only be read
 * whole (the kernel's repair peek ignores SO_PEEK_OFF)
 */
uint8_t tcp_mig_q[MIGRATE_TCP_QBUF];

/**
 * tcp_migrate_release() - give the pages of the queue buffer back, after
 *			   a state transfer used them, whether it went
 *			   through or failed half-way
 */
void tcp_migrate_release(void)
{
	madvise(tcp_mig_q, sizeof(tcp_mig_q), MADV_DONTNEED);
}

/**
 * tcp_migratable() - can this connection's socket move with the guest
 * @conn:	connection
 *
 * Return: true for an established connection not closed either way
 */
bool tcp_migratable(const struct tcp_conn *conn)
{
	return conn->state == CONN_ESTABLISHED && conn->fd >= 0 &&
	       !(conn->flags & (F_GUEST_FIN | F_HOST_EOF | F_FIN_SENT |
				F_MIGRATED));
}

/**
 * tcp_opt() - set an integer TCP socket option
 * @fd:		socket
 * @opt:	option
 * @v:		value
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_opt(int fd, int opt, int v)
{
	return setsockopt(fd, SOL_TCP, opt, &v, sizeof(v));
}

/**
 * tcp_opt_get() - read an integer TCP socket option
 * @fd:		socket
 * @opt:	option
 * @v:		value
 *
 * Return: 0 on success, -1 on failure
 */
static int tcp_opt_get(int fd, int opt, uint32_t *v)
{
	socklen_t sl = sizeof(*v);

	return getsockopt(fd, SOL_TCP, opt, v, &sl);
}

/**
 * tcp_sock_deaf() - let a socket being handed over take nothing more from
 *		     the peer, or again
 * @c:		execution context
 * @conn:	connection, its socket in repair mode
 * @deaf:	true to drop every segment that comes, false to take them
 *
 * A socket in repair mode still takes the peer's segments, queues their
 * bytes and acknowledges them: once its queues are read, those are bytes
 * the destination never gets, acknowledged to a peer that will not send
 * them again, and the connection stalls when it goes on there.  Segments
 * reach the source for as long as the network routes the address there:
 * until the destination took over, between pods that keep their address,
 * or between the read and the close, in one namespace.  A socket filter
 * that passes nothing runs before TCP sees a segment: dropped there, it
 * is neither queued nor acknowledged, nor answered with a reset, and the
 * peer sends it again to the destination when its timer fires.  The
 * queues then stand still while they are read.  Taken off again if the
 * guest stays (a migration that failed): the peer sends again what was
 * dropped meanwhile.
 *
 * Recent kernels (6.18 here) let only CAP_NET_ADMIN put a filter on a TCP
 * socket: netshim-repair does it (REPAIR_DEAF, batched like the repair
 * commands: the caller flushes); with passt-repair, netshim tries itself,
 * and once refused stays as passt is, its sockets hearing.  Each filter
 * costs the kernel about 16 us to build here, inside the guest's pause,
 * and is paid with --migrate-no-linger too: the socket is closed right
 * after its queues are read, but a segment can still come between the
 * two, and one that came during the read waits in the socket's backlog
 * until the read lets go (tcp_sock_dump() reads again then).
 *
 * Return: 0 on success or if refused, -1 if the helper failed
 */
static int tcp_sock_deaf(struct ctx *c, struct tcp_conn *conn, bool deaf)
{
	static bool refused;

	if (deaf == !!(conn->flags & F_DEAF))
		return 0;
	if (c->repair.ext) {
		if (repair_set(c, conn->fd, deaf ? REPAIR_DEAF : REPAIR_HEAR))
			return -1;
	} else if (!deaf) {
		repair_sock_deaf(conn->fd, false);
	} else if (refused) {
		return 0;
	} else if (repair_sock_deaf(conn->fd, true)) {
		info("migration: this kernel lets neither netshim nor its "
		     "repair helper make the sockets handed over deaf (%m): "
		     "until the network moves the address away, they "
		     "acknowledge what peers send, bytes the destination "
		     "never gets (netshim-repair does it)");
		refused = true;
		return 0;
	}
	conn->flags ^= F_DEAF;
	return 0;
}

/* Reads of the receive queue's end and length that segments of the peer
 * keep splitting before giving up on the socket (it is reset towards the
 * guest then)
 */
#define TCP_DUMP_TRIES		16

/**
 * tcp_rcvq_head() - the sequence number the receive queue starts at
 * @fd:		socket in repair mode, its receive queue selected
 * @head:	set
 * @len:	set to its length then
 *
 * Nothing reads the queue, so its start does not move.  Its end moves
 * with each segment of the peer where the socket could not be made deaf
 * (tcp_sock_deaf()), and only with those the kernel had in hand where it
 * was.  The start is the end less the length, read back to back until no
 * segment came between them: a window of two system calls, where a whole
 * read of the queue could be overrun again and again by a fast sender.
 *
 * Return: 0 on success, -1 if segments kept coming between the two
 */
static int tcp_rcvq_head(int fd, uint32_t *head, uint32_t *len)
{
	uint32_t end, again;
	int i, v;

	for (i = 0; i < TCP_DUMP_TRIES; i++) {
		if (tcp_opt_get(fd, TCP_QUEUE_SEQ, &end) ||
		    ioctl(fd, SIOCINQ, &v) ||
		    tcp_opt_get(fd, TCP_QUEUE_SEQ, &again))
			return -1;
		if (end == again) {
			*len = (uint32_t)v;
			*head = end - *len;
			return 0;
		}
	}
	return -1;
}

/**
 * tcp_sock_dump() - what a socket in repair mode is made of
 * @c:		execution context
 * @fd:		socket
 * @st:		filled; its queues go to tcp_mig_q, send queue first
 *
 * The caller made the socket deaf where it could (tcp_sock_deaf()).  Each
 * system call here is paid once per connection inside the guest's pause,
 * so the reads are as few as the state allows:
 * - the send queue is peeked into the whole buffer, and the kernel says
 *   how long it is: no SIOCOUTQ before, none after.  Its end, the
 *   sequence read, cannot move (nothing is written to the socket), and
 *   an ACK of the peer meanwhile only drops bytes the destination
 *   sends again, which the peer ignores;
 * - the receive queue is peeked from its start (tcp_rcvq_head()) into
 *   the rest of the buffer, and its end is its start plus what came,
 *   checked against the kernel's once the peek let go of the socket.  On
 *   a socket that could not be made deaf, a segment that lands between
 *   that check and the close is not in the state, and this socket
 *   acknowledged it (tcp_sock_deaf()): a window of one system call.
 *
 * Return: 0 on success, -1 if it cannot move (its state, its queues)
 */
static int tcp_sock_dump(struct ctx *c, int fd, struct tcp_sock_state *st)
{
	struct sockaddr_storage ss;
	uint32_t head, len, end, got;
	struct tcp_info ti;
	int v, i, off = 0;
	socklen_t sl;
	ssize_t n;

	memset(st, 0, sizeof(*st));
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return -1;
	inany_from_sockaddr(&ss, &st->laddr, &st->lport);
	/* Accepted on a socket of both families, an IPv4 connection has an
	 * IPv6 socket and v4-mapped addresses: it is rebuilt as IPv4
	 */
	st->family = inany_is4(&st->laddr) ? 4 : 6;
	sl = sizeof(ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &sl))
		return -1;
	inany_from_sockaddr(&ss, &st->paddr, &st->pport);
	sl = sizeof(ti);
	if (getsockopt(fd, SOL_TCP, TCP_INFO, &ti, &sl) ||
	    ti.tcpi_state != TCP_ESTABLISHED)
		return -1;
	st->state = ti.tcpi_state;
	st->snd_ws = ti.tcpi_snd_wscale;
	st->rcv_ws = ti.tcpi_rcv_wscale;
	st->options = ti.tcpi_options;
	if (tcp_opt_get(fd, TCP_MAXSEG, &st->mss) ||
	    ((st->options & TCPI_OPT_TIMESTAMPS) &&
	     tcp_opt_get(fd, TCP_TIMESTAMP, &st->ts)))
		return -1;
	/* Before the receive queue is read: the window's left edge
	 * (rcv_wup) must not be past the end the state gives it
	 */
	sl = sizeof(st->w);
	if (getsockopt(fd, SOL_TCP, TCP_REPAIR_WINDOW, &st->w, &sl))
		return -1;
	if (tcp_opt(fd, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE) ||
	    tcp_opt_get(fd, TCP_QUEUE_SEQ, &st->snd_seq))
		return -1;
	/* The whole send queue, retransmission queue first: the kernel
	 * returns its length even where it did not fit
	 */
	n = recv(fd, tcp_mig_q, MIGRATE_TCP_QBUF, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return -1;
	if ((size_t)n >= MIGRATE_TCP_QBUF)
		goto big;
	st->sndq = (uint32_t)n;
	if (ioctl(fd, SIOCOUTQNSD, &v) || (uint32_t)v > st->sndq)
		return -1;
	st->notsent = (uint32_t)v;
	if (tcp_opt(fd, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE))
		return -1;
	if (tcp_rcvq_head(fd, &head, &len)) {
		info("migration: TCP connection to port %u: its receive "
		     "queue kept moving while read: it is reset", st->pport);
		return -1;
	}
	st->rcv_seq = head;
	if (!len)	/* what comes now is sent again to the destination */
		return 0;
	/* From the start of the queue, whatever was peeked before, and
	 * each peek on from where the last one ended
	 */
	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	for (i = 0, got = 0; ; i++) {
		n = recv(fd, tcp_mig_q + st->sndq + got,
			 MIGRATE_TCP_QBUF - st->sndq - got,
			 MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (n > 0)
			got += (uint32_t)n;
		if (got >= MIGRATE_TCP_QBUF - st->sndq)
			goto big;
		/* The queue only grows: less than it held is a peek cut
		 * short, and bytes we acknowledged would be missing
		 */
		if (got < len || tcp_opt_get(fd, TCP_QUEUE_SEQ, &end))
			return -1;
		/* Segments that came while the peek held the socket wait in
		 * its backlog, and are queued (and, where it is not deaf,
		 * acknowledged) as the peek lets go: past the end peeked,
		 * the rest is read.  Only what came since each time, so
		 * that a fast sender with the window open does not outrun
		 * whole reads of a long queue.
		 */
		if (end == head + got)
			break;
		if (i == TCP_DUMP_TRIES) {
			info("migration: TCP connection to port %u: its "
			     "receive queue kept growing while read: it is "
			     "reset", st->pport);
			return -1;
		}
		c->cnt.tcp_rcvq_reread++;
	}
	st->rcvq = got;
	st->rcv_seq += st->rcvq;
	return 0;
big:
	info("migration: TCP connection to port %u: more than %u MiB "
	     "queued: it is reset", st->pport, MIGRATE_TCP_QBUF >> 20);
	return -1;
}

/**
 * tcp_repair_chunk() - have the helper put the next sockets that move in
 *			repair mode and make them deaf, not waiting for it
 * @c:		execution context
 * @from:	table index to start at
 * @end:	filled in: the index after the chunk's last connection
 * @mark:	filled in: what to wait for (repair_wait_for())
 *
 * As many sockets as one message to the helper carries: while it works on
 * one chunk, the one before is read.
 *
 * Return: 0 on success, -1 if the helper failed
 */
static int tcp_repair_chunk(struct ctx *c, uint32_t from, uint32_t *end,
			    uint64_t *mark)
{
	struct tcp_table *t = c->tcp;
	uint32_t i, k = 0;

	for (i = from; i < t->idx.hiwater && k < REPAIR_FDS_MAX; i++) {
		if (!tcp_migratable(&t->c[i]))
			continue;
		if (repair_set(c, t->c[i].fd, REPAIR_ON))
			return -1;
		k++;
	}
	*end = i;
	for (i = from; i < *end; i++)
		if (tcp_migratable(&t->c[i]) && tcp_sock_deaf(c, &t->c[i], true))
			return -1;
	return repair_push(c, mark);
}

/**
 * tcp_migrate_rejoin() - a connection whose socket left repair mode goes
 *			  on: back in the loop, the guest told our window,
 *			  anything in flight to it sent again if it was lost
 * @c:		execution context
 * @conn:	the connection
 */
static void tcp_migrate_rejoin(struct ctx *c, struct tcp_conn *conn)
{
	if (c->tcp->peek_off)
		tcp_set_peek_off(conn);
	conn->events = 0;
	conn_epoll(c, conn, EPOLLIN);
	tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
	/* In flight: resent if lost; a closed window: probed, the update
	 * that would open it may have gone to the source
	 */
	tcp_timer_arm(c, conn);
}

/**
 * tcp_migrate_back() - the guest runs here again after a migration that
 *			failed: its connections whose sockets were handed
 *			over go on
 * @c:		execution context
 *
 * Their sockets are still here, in repair mode and deaf, out of the loop
 * (without --migrate-no-linger): they hear again, the helper takes them
 * out of repair mode, and they rejoin the loop as they were.  One the
 * helper cannot restore is reset towards the guest.
 */
void tcp_migrate_back(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i, back = 0, lost = 0;
	bool rep = true;

	for (i = 0; i < t->idx.hiwater; i++)
		if (t->c[i].state != CONN_FREE &&
		    (t->c[i].flags & F_MIGRATED) &&
		    tcp_sock_deaf(c, &t->c[i], false))
			rep = false;
	for (i = 0; rep && i < t->idx.hiwater; i++)
		if (t->c[i].state != CONN_FREE &&
		    (t->c[i].flags & F_MIGRATED) &&
		    repair_set(c, t->c[i].fd, REPAIR_OFF_NO_WP))
			rep = false;
	if (rep && repair_flush(c))
		rep = false;
	for (i = 0; i < t->idx.hiwater; i++) {
		struct tcp_conn *conn = &t->c[i];

		if (conn->state == CONN_FREE || !(conn->flags & F_MIGRATED))
			continue;
		conn->flags &= ~F_MIGRATED;
		if (!rep) {
			tcp_reset(c, conn);
			lost++;
			continue;
		}
		tcp_migrate_rejoin(c, conn);
		back++;
	}
	if (back || lost)
		info("migration failed or cancelled: %u TCP connections go on "
		     "here, %u reset", back, lost);
}

/**
 * tcp_migrate_reset() - reset a migrated connection towards the guest
 * @c:		execution context
 * @conn:	the connection as the source saw it, in no table
 *
 * As tcp_reset() does: the sequence number the guest expects next, or,
 * before the guest saw our SYN-ACK, the one it acknowledges.
 */
static void tcp_migrate_reset(struct ctx *c, struct tcp_conn *conn)
{
	uint32_t seq = conn->state == CONN_CONNECTING ? conn->seq_acked :
						       conn->seq_to_guest;

	conn->fd = -1;
	tcp_send_ctl(c, conn, TH_RST | TH_ACK, seq);
	c->cnt.tcp_migrated_reset++;
}

/**
 * tcp_send_all() - write bytes to a socket, all of them
 * @fd:		socket
 * @p:		bytes
 * @len:	how many
 *
 * Return: 0 if all went, -1 otherwise
 */
static int tcp_send_all(int fd, const uint8_t *p, uint32_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (uint32_t)n;
	}
	return 0;
}

/* Sockets put in repair mode ahead, a batch per family: one exchange with
 * the helper for many connections, each millisecond of it being downtime.
 * Like the batch below, it serves only while a migration's state is
 * read, one migration at a time, each refill starting it afresh: the
 * scratch of that read, not state of the loop's, so not in struct ctx.
 */
#define TCP_POOL	64

static struct {
	int fd[2][TCP_POOL];		/* [0] IPv4, [1] IPv6 */
	unsigned int n[2], next[2];
} tcp_pool;

/* Restored connections whose sockets leave repair mode in one batch */
static int32_t tcp_off_conn[REPAIR_FDS_MAX];
static unsigned int tcp_off_n;

/**
 * tcp_off_flush() - take the batch of restored sockets out of repair mode
 * @c:		execution context
 *
 * Connections whose sockets the helper failed to release are reset.
 */
static void tcp_off_flush(struct ctx *c)
{
	unsigned int i;

	if (!tcp_off_n)
		return;
	if (repair_flush(c)) {
		for (i = 0; i < tcp_off_n; i++) {
			tcp_reset(c, &c->tcp->c[tcp_off_conn[i]]);
			c->cnt.tcp_migrated--;
			c->cnt.tcp_migrated_reset++;
		}
	}
	tcp_off_n = 0;
}

/**
 * tcp_off_add() - a restored connection's socket to leave repair mode
 * @c:		execution context
 * @conn:	the connection, in the table
 */
static void tcp_off_add(struct ctx *c, struct tcp_conn *conn)
{
	if (tcp_off_n == REPAIR_FDS_MAX)
		tcp_off_flush(c);
	if (repair_set(c, conn->fd, REPAIR_OFF)) {
		tcp_reset(c, conn);
		c->cnt.tcp_migrated--;
		c->cnt.tcp_migrated_reset++;
		return;
	}
	tcp_off_conn[tcp_off_n++] = conn_index(c->tcp, conn);
}

/**
 * tcp_pool_get() - a new socket of a family, in repair mode
 * @c:		execution context
 * @six:	IPv6, else IPv4
 * @left:	connections still to come, to size a new batch
 *
 * Return: the socket, or -1 (logged) if none can be had
 */
static int tcp_pool_get(struct ctx *c, bool six, uint32_t left)
{
	unsigned int f = six, i, k;
	int one = 1;

	if (tcp_pool.next[f] < tcp_pool.n[f])
		return tcp_pool.fd[f][tcp_pool.next[f]++];
	/* The helper takes one command at a time: release first */
	tcp_off_flush(c);
	k = left < TCP_POOL ? left : TCP_POOL;
	tcp_pool.n[f] = tcp_pool.next[f] = 0;
	for (i = 0; i < k; i++) {
		int fd = socket(six ? AF_INET6 : AF_INET,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (fd < 0)
			break;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		tcp_sock_opts(fd);
		tcp_pool.fd[f][tcp_pool.n[f]++] = fd;
		if (repair_set(c, fd, REPAIR_ON))
			break;
	}
	if (!tcp_pool.n[f] || repair_flush(c)) {
		warn("migration: TCP sockets in repair mode: %s",
		     tcp_pool.n[f] ? "the helper failed" : strerror(errno));
		for (i = 0; i < tcp_pool.n[f]; i++)
			close(tcp_pool.fd[f][i]);
		tcp_pool.n[f] = 0;
		return -1;
	}
	return tcp_pool.fd[f][tcp_pool.next[f]++];
}

/**
 * tcp_pool_drain() - close the sockets put in repair mode and not used
 */
static void tcp_pool_drain(void)
{
	unsigned int f;

	for (f = 0; f < 2; f++) {
		while (tcp_pool.next[f] < tcp_pool.n[f])
			close(tcp_pool.fd[f][tcp_pool.next[f]++]);
		tcp_pool.n[f] = tcp_pool.next[f] = 0;
	}
}

/**
 * tcp_sock_restore() - build a socket again from its state, on its 4-tuple
 * @c:		execution context
 * @st:		the state, its queues in tcp_mig_q
 *
 * In repair mode (the helper sets it): bound and connected without a
 * packet, sequence numbers, queues, options and window as they were.
 * Bytes the source had not sent yet are sent once repair mode is off.
 *
 * Return: the socket, or -1 (logged) if it cannot be rebuilt here
 */
static int tcp_sock_restore(struct ctx *c, const struct tcp_sock_state *st,
			    uint32_t left)
{
	struct tcp_repair_opt o[4];
	struct sockaddr_storage ss;
	unsigned int no = 0;
	const char *what;
	socklen_t sl;
	int fd;

	fd = tcp_pool_get(c, st->family == 6, left);
	if (fd < 0)
		return -1;
	what = "bind";
	sl = inany_sockaddr(&ss, &st->laddr, st->lport);
	if (bind(fd, (struct sockaddr *)&ss, sl))
		goto fail;
	/* The send queue is left selected: an idle connection's queues
	 * then take no call of their own
	 */
	what = "sequence numbers";
	if (tcp_opt(fd, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE) ||
	    tcp_opt(fd, TCP_QUEUE_SEQ, (int)(st->rcv_seq - st->rcvq)) ||
	    tcp_opt(fd, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE) ||
	    tcp_opt(fd, TCP_QUEUE_SEQ, (int)(st->snd_seq - st->sndq)) ||
	    ((st->options & TCPI_OPT_TIMESTAMPS) &&
	     tcp_opt(fd, TCP_TIMESTAMP, (int)st->ts)))
		goto fail;
	what = "connect";
	sl = inany_sockaddr(&ss, &st->paddr, st->pport);
	if (connect(fd, (struct sockaddr *)&ss, sl))
		goto fail;
	what = "queues";
	if (st->rcvq &&
	    (tcp_opt(fd, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE) ||
	     tcp_send_all(fd, tcp_mig_q + st->sndq, st->rcvq) ||
	     tcp_opt(fd, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE)))
		goto fail;
	if (tcp_send_all(fd, tcp_mig_q, st->sndq - st->notsent))
		goto fail;
	what = "options";
	o[no++] = (struct tcp_repair_opt){ TCPOPT_MAXSEG, st->mss };
	if (st->options & TCPI_OPT_WSCALE)
		o[no++] = (struct tcp_repair_opt){ TCPOPT_WINDOW,
			st->snd_ws | (uint32_t)st->rcv_ws << 16 };
	if (st->options & TCPI_OPT_SACK)
		o[no++] = (struct tcp_repair_opt){ TCPOPT_SACK_PERMITTED, 0 };
	if (st->options & TCPI_OPT_TIMESTAMPS)
		o[no++] = (struct tcp_repair_opt){ TCPOPT_TIMESTAMP, 0 };
	if (setsockopt(fd, SOL_TCP, TCP_REPAIR_OPTIONS, o, no * sizeof(*o)) ||
	    setsockopt(fd, SOL_TCP, TCP_REPAIR_WINDOW, &st->w, sizeof(st->w)))
		goto fail;
	return fd;
fail:
	warn("migration: TCP socket to port %u: %s: %s", st->pport, what,
	     strerror(errno));
	close(fd);
	return -1;
}

/**
 * tcp_sock_unsent() - send what the source had not sent yet, once the
 *		       socket is out of repair mode
 * @c:		execution context
 * @conn:	the restored connection, in the table
 * @st:		its socket's state, the queues in tcp_mig_q
 *
 * Return: 0 on success, -1 if the connection was reset
 */
static int tcp_sock_unsent(struct ctx *c, struct tcp_conn *conn,
			   const struct tcp_sock_state *st)
{
	if (!st->notsent)
		return 0;
	tcp_off_add(c, conn);
	tcp_off_flush(c);
	if (conn->state == CONN_FREE)
		return -1;
	if (tcp_send_all(conn->fd, tcp_mig_q + st->sndq - st->notsent,
			 st->notsent)) {
		warn("migration: TCP socket to port %u: bytes not sent yet: %s",
		     st->pport, strerror(errno));
		tcp_reset(c, conn);
		c->cnt.tcp_migrated--;
		c->cnt.tcp_migrated_reset++;
		return -1;
	}
	return 0;
}

/**
 * tcp_migrate_adopt() - a migrated connection, its socket rebuilt, in the
 *			 table
 * @c:		execution context
 * @from:	the connection as the source saw it
 * @fd:		its socket, connected
 *
 * Return: the connection, or NULL if the table has no room (the socket is
 * closed)
 */
static struct tcp_conn *tcp_migrate_adopt(struct ctx *c,
					  const struct tcp_conn *from, int fd)
{
	/* The record names no queue pair: the guest's next segment does */
	struct tcp_conn *conn = conn_new(c, &from->gaddr, from->gport,
					 &from->raddr, from->rport, 0);

	if (!conn) {
		close(fd);
		return NULL;
	}
	conn->state = CONN_ESTABLISHED;
	conn->flags = 0;
	conn->ws_guest = from->ws_guest;
	conn->ws_ours = from->ws_ours;
	conn->mss_guest = from->mss_guest;
	conn->seq_from_guest = from->seq_from_guest;
	conn->seq_to_guest = from->seq_to_guest;
	conn->seq_acked = conn->recover = from->seq_acked;
	conn->seq_init_guest = from->seq_init_guest;
	conn->wnd_guest = from->wnd_guest;
	/* Its bytes to the guest are counted from here (no ISN came) */
	conn->seq_init_ours = from->seq_acked - 1;
	conn->fd = fd;
	tcp_migrate_rejoin(c, conn);
	c->cnt.tcp_migrated++;
	return conn;
}

/**
 * tcp_dump_start() - set out to hand the connections' sockets over
 * @c:		execution context
 * @d:		the walk, set up here
 *
 * With a repair helper, the first chunk of sockets that can move goes to
 * it at once, and it works on that while the caller writes.
 */
void tcp_dump_start(struct ctx *c, struct tcp_dump *d)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	memset(d, 0, sizeof(*d));
	d->t0 = migio_now_us();
	/* The queues sent start at the guest's ACK: nothing before it */
	tcp_drop_pending(c, false);
	for (i = 0; i < t->idx.hiwater && !d->rep; i++)
		d->rep = tcp_migratable(&t->c[i]);
	d->asked = d->rep;
	if (d->rep && !repair_wait(c)) {
		info("migration: no TCP repair helper: the guest's TCP "
		     "connections will be reset");
		d->rep = false;
	}
	d->waited = migio_now_us() - d->t0;
	if (d->rep && tcp_repair_chunk(c, 0, &d->queued, &d->mark))
		d->rep = false;
}

/**
 * tcp_dump_conn() - read a connection's socket, if it moves
 * @c:		execution context
 * @d:		the walk
 * @i:		the connection's index in the table, walked upwards
 * @st:		filled, its queues in tcp_mig_q, if it moves
 *
 * The chunk holding @i is the one the helper has, [ready, queued): the
 * next goes to it before this one is waited for, and it works on that
 * one while this one is read.
 *
 * Return: true if @st holds the socket, which is in repair mode
 */
bool tcp_dump_conn(struct ctx *c, struct tcp_dump *d, uint32_t i,
		   struct tcp_sock_state *st)
{
	struct tcp_table *t = c->tcp;
	struct tcp_conn *conn = &t->c[i];

	if (!d->rep || !tcp_migratable(conn))
		return false;
	if (i >= d->ready) {
		uint64_t w = migio_now_us(), this = d->mark;
		uint32_t end = d->queued;

		if (d->queued < t->idx.hiwater &&
		    tcp_repair_chunk(c, d->queued, &d->queued, &d->mark))
			d->rep = false;
		else if (repair_wait_for(c, this))
			d->rep = false;
		d->ready = end;
		d->waited += migio_now_us() - w;
		if (!d->rep)
			return false;
	}
	return !tcp_sock_dump(c, conn->fd, st);
}

/**
 * tcp_dump_unlinger() - close a socket read for the destination at once,
 *			 with --migrate-no-linger
 * @c:		execution context
 * @conn:	the connection, its socket read and in repair mode
 *
 * Still open, the socket would take and acknowledge what the peer sends
 * while the state is written, bytes the destination never sees, and the
 * peer would ignore its acknowledgements from then on.  In repair mode:
 * closed without a FIN or a RST.
 */
void tcp_dump_unlinger(struct ctx *c, struct tcp_conn *conn)
{
	if (!c->conf.migrate_no_linger)
		return;
	close(conn->fd);
	conn->fd = -1;
}

/**
 * tcp_dump_done() - a connection is in the state: its socket leaves
 * @c:		execution context
 * @d:		the walk
 * @conn:	the connection
 * @sock:	its socket is in the state (tcp_dump_conn())
 *
 * A socket in the state is closed (--migrate-no-linger: it was already,
 * tcp_dump_unlinger()) or taken out of the loop and kept until we exit
 * or another front-end comes (tcp_guest_gone()).  One put in repair mode
 * for nothing comes out again.
 */
void tcp_dump_done(struct ctx *c, struct tcp_dump *d, struct tcp_conn *conn,
		   bool sock)
{
	if (!sock) {
		if (d->rep && tcp_migratable(conn)) {
			tcp_sock_deaf(c, conn, false);
			repair_set(c, conn->fd, REPAIR_OFF_NO_WP);
		}
		return;
	}
	d->moved++;
	if (c->conf.migrate_no_linger) {
		conn_free(c, conn, false);	/* its socket closed */
	} else {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
		conn->events = 0;
		conn->flags |= F_MIGRATED;
		conn->rto_at = 0;
	}
}

/**
 * tcp_dump_end() - the last connection is in the state
 * @c:		execution context
 * @d:		the walk
 * @n:		connections in the state, for the log
 */
void tcp_dump_end(struct ctx *c, struct tcp_dump *d, uint32_t n)
{
	if (d->rep)
		repair_flush(c);
	if (n)
		info("migration: %u of %u TCP connections go with their "
		     "sockets (%llu us, %llu of them waiting for the repair "
		     "helper)", d->moved, n,
		     (unsigned long long)(migio_now_us() - d->t0),
		     (unsigned long long)d->waited);
}

/**
 * tcp_restore_count() - read how many connections a state holds, checked
 * @c:		execution context
 * @io:		the stream, at the number
 * @n:		filled
 *
 * Return: 0 on success, -1 with @io->err set (EFBIG for more than
 * --max-tcp allows)
 */
int tcp_restore_count(struct ctx *c, struct migio *io, uint32_t *n)
{
	if (migio_get_u32(io, n))
		return -1;
	if (*n > c->tcp->idx.n) {
		err("migration: %u TCP connections, more than --max-tcp %u",
		    *n, c->tcp->idx.n);
		io->err = EFBIG;
		return -1;
	}
	return 0;
}

/**
 * tcp_restore_start() - set out to rebuild a state's connections
 * @c:		execution context
 * @r:		set up here
 */
void tcp_restore_start(struct ctx *c, struct tcp_restore *r)
{
	r->rep = -1;		/* asked at the first socket */
	r->before = c->cnt.tcp_migrated;
	r->t0 = migio_now_us();
}

/**
 * tcp_restore_conn() - one connection of a state goes on here, or is reset
 * @c:		execution context
 * @r:		the rebuilding
 * @from:	the connection as the source saw it, in no table
 * @st:		its socket, its queues in tcp_mig_q, or NULL if it came
 *		without one
 * @left:	connections still to come, this one included
 *
 * A connection whose socket came with it is rebuilt on the same 4-tuple
 * if a repair helper is there; any other is reset towards the guest.
 */
void tcp_restore_conn(struct ctx *c, struct tcp_restore *r,
		      struct tcp_conn *from, const struct tcp_sock_state *st,
		      uint32_t left)
{
	struct tcp_conn *in;
	int fd = -1;

	if (st && r->rep < 0) {
		r->rep = repair_wait(c);
		if (!r->rep)
			info("migration: no TCP repair helper: the guest's "
			     "TCP connections will be reset");
	}
	/* A second record of one 4-tuple: the first one's connection
	 * stays, this one is no connection of the guest's
	 */
	if (conn_lookup(c->tcp, &from->gaddr, from->gport, &from->raddr,
			from->rport))
		st = NULL;
	if (st && r->rep)
		fd = tcp_sock_restore(c, st, left);
	if (fd < 0) {
		tcp_migrate_reset(c, from);
		return;
	}
	in = tcp_migrate_adopt(c, from, fd);
	if (!in) {
		tcp_migrate_reset(c, from);
		return;
	}
	/* Out of repair mode now, or with the next batch; reset by
	 * tcp_sock_unsent() if the bytes not sent yet cannot go
	 */
	if (st->notsent)
		tcp_sock_unsent(c, in, st);
	else
		tcp_off_add(c, in);
}

/**
 * tcp_restore_end() - the last connection of a state is in
 * @c:		execution context
 * @r:		the rebuilding
 * @n:		connections in the state, for the log
 */
void tcp_restore_end(struct ctx *c, struct tcp_restore *r, uint32_t n)
{
	tcp_off_flush(c);
	tcp_pool_drain();
	if (n)
		info("migration: %llu of %u TCP connections kept (%llu us)",
		     (unsigned long long)(c->cnt.tcp_migrated - r->before), n,
		     (unsigned long long)(migio_now_us() - r->t0));
}
