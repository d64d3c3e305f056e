// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - link back-end: a UNIX stream socket with QEMU's framing
 *
 * QEMU "-netdev stream": each frame behind its 32-bit big-endian length.
 * One VMM at a time.  Reads fill one large buffer that is cut into frames
 * in place; frames for the guest are built directly in the output queue
 * (link/queue.c), already in this framing, and written with as few send()
 * calls as the socket allows.  When the VMM goes away, its guest's
 * connections and flows go with it (link_gone()) and the next VMM to
 * connect starts afresh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "link.h"
#include "queue.h"
#include "netshim/log.h"
#include "framing.h"

/* Sized for a burst of 64 KiB frames either way */
#define STREAM_RX_BUF_SIZE	(8 << 20)
#define STREAM_TX_BUF_SIZE	(8 << 20)

/**
 * stream_close() - drop the VMM connection and everything of its guest
 * @c:		execution context
 * @why:	reason, for the log
 */
static void stream_close(struct ctx *c, const char *why)
{
	if (c->link.fd < 0)
		return;
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->link.fd, NULL);
	close(c->link.fd);
	c->link.fd = -1;
	link_gone(c, why);
}

/**
 * stream_adopt() - take a connected VMM socket
 * @c:		execution context
 * @fd:		the socket, non-blocking; closed on failure
 *
 * A new connection replaces the current one: a VMM that restarted the guest
 * may connect again before we noticed the old connection is gone.
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int stream_adopt(struct ctx *c, int fd)
{
	int sz = 4 << 20;

	if (c->link.fd >= 0)
		stream_close(c, "replaced by a new VMM connection");

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return link_attach(c, fd, EPOLLIN | EPOLLRDHUP);
}

/**
 * stream_accept() - take a VMM connection
 * @c:		execution context
 */
static void stream_accept(struct ctx *c)
{
	int fd;

	fd = accept4(c->link.listen_fd, NULL, NULL,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0)
		stream_adopt(c, fd);
}

/**
 * stream_cut() - cut the bytes read into frames for the batch handed up
 * @c:		execution context
 *
 * Stops when the batch is full: link_in_done() brings the loop back for
 * the rest.  The partial frame left at the end moves to the start of the
 * buffer only once no frame of the batch points into it.
 */
static void stream_cut(struct ctx *c)
{
	struct rx *rx = &c->link.rx;
	struct pkt frame;
	bool more = true;

	while (more) {
		enum stream_result r = stream_next(rx->buf, rx->len, &rx->off,
						   FRAME_MAX, &frame);

		if (r == STREAM_MORE)
			break;
		/* The frames before it are handed up first, as they came */
		if (r == STREAM_BAD_LENGTH && c->link.in_n)
			break;
		if (r == STREAM_BAD_LENGTH) {
			c->cnt.drop_link_len++;
			warn("VMM sent an impossible frame length (%u): "
			     "resetting the connection",
			     rx->len - rx->off >= 4 ?
			     rd32(rx->buf + rx->off) : 0);
			stream_close(c, "bad frame length");
			return;
		}
		more = link_frame_in(c, &frame, frame.len, NULL, 0);
	}

	if (!c->link.in_n && rx->off) {
		memmove(rx->buf, rx->buf + rx->off, rx->len - rx->off);
		rx->len -= rx->off;
		rx->off = 0;
	}
}

/**
 * stream_input() - read from the VMM, and cut what came into frames
 * @c:		execution context
 */
static void stream_input(struct ctx *c)
{
	struct rx *rx = &c->link.rx;
	ssize_t n;

	n = recv(c->link.fd, rx->buf + rx->len, rx->size - rx->len,
		 MSG_DONTWAIT);
	if (n == 0) {
		stream_close(c, "VMM hung up");
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			stream_close(c, strerror(errno));
		return;
	}
	rx->len += n;
	stream_cut(c);
}

/**
 * stream_set_blocked() - wait, or stop waiting, for room on the VMM socket
 * @c:		execution context
 * @blocked:	true to wait for EPOLLOUT
 */
static void stream_set_blocked(struct ctx *c, bool blocked)
{
	struct epoll_event ev = { .data.u64 = epref(EPREF_LINK, 0) };

	if (c->link.blocked == blocked)
		return;
	ev.events = EPOLLIN | EPOLLRDHUP | (blocked ? EPOLLOUT : 0);
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, c->link.fd, &ev);
	c->link.blocked = blocked;
}

/**
 * stream_flush() - write queued frames to the VMM
 * @c:		execution context
 *
 * Return: 0 when everything was written, 1 when some is still queued, -1 if
 * the connection failed (and was closed)
 */
static int stream_flush(struct ctx *c)
{
	struct tx *tx = &c->link.tx;

	while (tx->head < tx->tail) {
		ssize_t n = send(c->link.fd, tx->buf + tx->head,
				 tx->tail - tx->head,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				stream_set_blocked(c, true);
				return 1;
			}
			stream_close(c, strerror(errno));
			return -1;
		}
		tx->head += n;
	}
	tx->head = tx->tail = 0;
	stream_set_blocked(c, false);
	return 0;
}

/**
 * stream_event() - the VMM socket is readable, writable or gone
 * @c:		execution context
 * @idx:	unused: one socket
 * @events:	epoll events
 */
static void stream_event(struct ctx *c, uint32_t idx, uint32_t events)
{
	(void)idx;
	if (c->link.fd < 0)
		return;
	if (events & EPOLLOUT)
		stream_flush(c);
	if (c->link.fd >= 0 &&
	    events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
		stream_input(c);
}

const struct link_ops link_stream_ops = {
	.name		= "stream",
	.rx_size	= STREAM_RX_BUF_SIZE,
	.tx_size	= STREAM_TX_BUF_SIZE,
	.listen		= link_listen,
	.adopt		= stream_adopt,
	.accept		= stream_accept,
	.event		= stream_event,
	.flush		= stream_flush,
	.in_done	= stream_cut,
};
