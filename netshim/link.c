// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the link to the VMM: a UNIX stream socket, QEMU framing
 *
 * One VMM at a time.  Reads fill one large buffer that is cut into frames
 * in place; frames for the guest are built directly in one output buffer,
 * each behind its length, and written with as few send() calls as the
 * socket allows.  When the VMM goes away, its guest's connections and
 * flows go with it and the next VMM to connect starts afresh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "link.h"
#include "eth.h"
#include "flow.h"
#include "gaddr.h"
#include "log.h"
#include "pcap.h"
#include "stream.h"
#include "tcp/tcp.h"

/**
 * link_init() - create the UNIX socket the VMM connects to
 * @c:		execution context
 *
 * Return: 0 on success, -1 with a message on failure
 */
int link_init(struct ctx *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	if (strlen(c->conf.sock_path) >= sizeof(sa.sun_path)) {
		err("socket path too long: %s", c->conf.sock_path);
		return -1;
	}
	strcpy(sa.sun_path, c->conf.sock_path);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err("UNIX socket: %m");
		return -1;
	}
	/* A stale socket left by a crashed instance: replace it, but never
	 * a path some other process is still listening on.
	 */
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err("%s is in use by another process", sa.sun_path);
		close(fd);
		return -1;
	}
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 1)) {
		err("cannot listen on %s: %m", sa.sun_path);
		close(fd);
		return -1;
	}
	chmod(sa.sun_path, 0600);

	ev.data.u64 = epref(EPREF_LINK_LISTEN, 0);
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err("epoll: %m");
		close(fd);
		return -1;
	}
	c->listen_fd = fd;
	c->link_fd = -1;
	return 0;
}

/**
 * link_adopt() - make a connected socket the VMM connection
 * @c:		execution context, without a VMM connection
 * @fd:		non-blocking stream socket, closed here on failure
 */
static void link_adopt(struct ctx *c, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	int sz = 4 << 20;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	ev.data.u64 = epref(EPREF_LINK, 0);
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		warn("epoll on VMM connection: %m");
		close(fd);
		return;
	}
	c->link_fd = fd;
	c->rx.len = 0;
	c->tx.head = c->tx.tail = 0;
	c->tx_blocked = false;
	if (!c->conf.guest_mac_set)
		c->guest_mac_known = false;
	c->cnt.vmm_connects++;
	info("VMM connected");
}

/**
 * link_accept() - take a VMM connection
 * @c:		execution context
 *
 * A new connection replaces the current one: a VMM that restarted the guest
 * may connect again before we noticed the old connection is gone.
 */
void link_accept(struct ctx *c)
{
	int fd;

	fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;

	if (c->link_fd >= 0)
		link_close(c, "replaced by a new VMM connection");
	link_adopt(c, fd);
}

/**
 * link_init_fd() - serve a VMM connection opened by the launcher (-F)
 * @c:		execution context
 * @fd:		connected stream socket, e.g. QEMU's -netdev passt socketpair
 *
 * There is nothing to listen on: when this connection closes, netshim
 * exits (the configuration set one_off).
 *
 * Return: 0 on success, -1 with a message on failure
 */
int link_init_fd(struct ctx *c, int fd)
{
	int fl = fcntl(fd, F_GETFL);

	c->listen_fd = -1;
	c->link_fd = -1;
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		err("VMM connection (--fd %d): %m", fd);
		return -1;
	}
	link_adopt(c, fd);
	return c->link_fd == fd ? 0 : -1;
}

/**
 * link_close() - drop the VMM connection and everything of its guest
 * @c:		execution context
 * @why:	reason, for the log
 */
void link_close(struct ctx *c, const char *why)
{
	if (c->link_fd < 0)
		return;
	info("VMM connection closed: %s", why);
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->link_fd, NULL);
	close(c->link_fd);
	c->link_fd = -1;
	c->rx.len = 0;
	c->tx.head = c->tx.tail = 0;
	c->tx_blocked = false;
	tcp_guest_gone(c);
	flow_guest_gone(c);
	gaddr_reset(c);
	if (c->conf.one_off)
		c->quit = true;
}

/**
 * link_input() - read from the VMM and hand every complete frame on
 * @c:		execution context
 */
void link_input(struct ctx *c)
{
	struct rx *rx = &c->rx;
	size_t off = 0;
	struct pkt frame;
	ssize_t n;

	n = recv(c->link_fd, rx->buf + rx->len, rx->size - rx->len,
		 MSG_DONTWAIT);
	if (n == 0) {
		link_close(c, "VMM hung up");
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			link_close(c, strerror(errno));
		return;
	}
	rx->len += n;

	for (;;) {
		enum stream_result r = stream_next(rx->buf, rx->len, &off,
						   FRAME_MAX, &frame);

		if (r == STREAM_MORE)
			break;
		if (r == STREAM_BAD_LENGTH) {
			c->cnt.drop_link_len++;
			warn("VMM sent an impossible frame length (%u): "
			     "resetting the connection",
			     rx->len - off >= 4 ? rd32(rx->buf + off) : 0);
			link_close(c, "bad frame length");
			return;
		}
		c->cnt.frames_in++;
		c->cnt.bytes_in += frame.len;
		if (c->pcap_fd >= 0)
			pcap_frame(c, frame.data, frame.len);
		eth_input(c, &frame);
		if (c->link_fd < 0)
			return;
	}

	/* Gathered guest data points into the buffer: write it first */
	tcp_flush_writes(c);
	if (off) {
		memmove(rx->buf, rx->buf + off, rx->len - off);
		rx->len -= off;
	}
}

/**
 * link_set_blocked() - wait, or stop waiting, for room on the VMM socket
 * @c:		execution context
 * @blocked:	true to wait for EPOLLOUT
 */
static void link_set_blocked(struct ctx *c, bool blocked)
{
	struct epoll_event ev = { .data.u64 = epref(EPREF_LINK, 0) };

	if (c->tx_blocked == blocked)
		return;
	ev.events = EPOLLIN | EPOLLRDHUP | (blocked ? EPOLLOUT : 0);
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, c->link_fd, &ev);
	c->tx_blocked = blocked;
}

/**
 * link_flush() - write queued frames to the VMM
 * @c:		execution context
 *
 * Return: 0 when everything was written, 1 when some is still queued, -1 if
 * the connection failed (and was closed)
 */
int link_flush(struct ctx *c)
{
	struct tx *tx = &c->tx;

	while (tx->head < tx->tail) {
		ssize_t n = send(c->link_fd, tx->buf + tx->head,
				 tx->tail - tx->head,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				link_set_blocked(c, true);
				return 1;
			}
			link_close(c, strerror(errno));
			return -1;
		}
		tx->head += n;
	}
	tx->head = tx->tail = 0;
	link_set_blocked(c, false);
	return 0;
}

/**
 * link_output_ready() - the VMM socket has room again
 * @c:		execution context
 */
void link_output_ready(struct ctx *c)
{
	if (link_flush(c) == 0)
		tcp_tx_resume(c);
}

/**
 * tx_space() - bytes free in the output buffer, for frames laid out in a row
 * @c:		execution context
 *
 * Queued bytes are moved to the start of the buffer when that frees room.
 *
 * Return: free bytes, length fields included; 0 if there is no VMM
 */
size_t tx_space(struct ctx *c)
{
	struct tx *tx = &c->tx;

	if (c->link_fd < 0)
		return 0;
	if (tx->head && tx->size - tx->tail < STREAM_HDR_LEN + FRAME_MAX) {
		memmove(tx->buf, tx->buf + tx->head, tx->tail - tx->head);
		tx->tail -= tx->head;
		tx->head = 0;
	}
	return tx->size - tx->tail;
}

/**
 * tx_room() - largest frame that can be queued now
 * @c:		execution context
 *
 * Return: bytes available for one frame, 0 if none (or no VMM)
 */
size_t tx_room(struct ctx *c)
{
	size_t room = tx_space(c);

	if (room <= STREAM_HDR_LEN)
		return 0;
	room -= STREAM_HDR_LEN;
	return room > FRAME_MAX ? FRAME_MAX : room;
}

/**
 * tx_reserve() - room for one frame in the output buffer
 * @c:		execution context
 * @maxlen:	largest length the frame may have
 *
 * A full buffer is flushed first; if the VMM cannot take it, the caller
 * drops the frame (or, for TCP, retries when the socket has room).
 *
 * Return: where the Ethernet frame starts, or NULL if there is no room
 */
uint8_t *tx_reserve(struct ctx *c, size_t maxlen)
{
	if (maxlen > FRAME_MAX)
		return NULL;
	if (tx_room(c) < maxlen) {
		if (c->link_fd < 0 || link_flush(c) < 0 || tx_room(c) < maxlen)
			return NULL;
	}
	return c->tx.buf + c->tx.tail + STREAM_HDR_LEN;
}

/**
 * tx_commit() - queue a frame built in place by tx_reserve()'s caller
 * @c:		execution context
 * @frame:	frame start, as returned by tx_reserve()
 * @len:	frame length, at most what was reserved
 */
void tx_commit(struct ctx *c, uint8_t *frame, size_t len)
{
	wr32(frame - STREAM_HDR_LEN, (uint32_t)len);
	trace("frame to the guest: %zu bytes, ethertype 0x%04x", len,
	      rd16(frame + 12));
	c->tx.tail += STREAM_HDR_LEN + len;
	c->cnt.frames_out++;
	c->cnt.bytes_out += len;
	if (c->pcap_fd >= 0)
		pcap_frame(c, frame, len);
}
