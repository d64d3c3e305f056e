// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - link back-end: a tap device in the namespace we serve
 *
 * Namespace mode (netns.c): the "guest" is a network namespace, its
 * interface a tap device whose descriptor netshim holds.  A read() returns
 * one frame and a write() sends one, so input is read frame by frame into
 * one buffer until it would block (or a batch is full) and handed up
 * before the buffer is reused; output frames are built in place in one
 * buffer, each behind its length as on the stream link, and written one
 * write() each when the loop flushes.
 *
 * The tap is there from start to end: it is connected once, when the loop
 * is set up, and a failed write drops that frame only (the namespace's
 * interface went down, say), as a NIC would.  No vnet header and no
 * offloads yet: frames are at most the MTU, which the pod's often makes
 * 65520 bytes anyway.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "link.h"
#include "log.h"
#include "stream.h"

/* Input: a batch of up to TAP_RX_BATCH frames of the largest size */
#define TAP_RX_BATCH		64
#define TAP_RX_BUF_SIZE		(TAP_RX_BATCH * (FRAME_MAX + 1))
/* Output: as the stream's, a burst of 64 KiB frames */
#define TAP_TX_BUF_SIZE		(8 << 20)

/**
 * tap_setup() - size the input and output buffers
 * @c:		execution context
 *
 * Return: 0 on success, -1 with a message on failure
 */
static int tap_setup(struct ctx *c)
{
	c->link.rx.size = TAP_RX_BUF_SIZE;
	c->link.tx.size = TAP_TX_BUF_SIZE;
	c->link.rx.buf = malloc(c->link.rx.size);
	c->link.tx.buf = malloc(c->link.tx.size);
	if (!c->link.rx.buf || !c->link.tx.buf) {
		err("out of memory for link buffers");
		return -1;
	}
	return 0;
}

/**
 * tap_adopt() - take the tap device: the namespace is connected
 * @c:		execution context
 * @fd:		the tap, non-blocking; closed on failure
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int tap_adopt(struct ctx *c, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(EPREF_LINK, 0) };

	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err("epoll on the tap device: %m");
		close(fd);
		return -1;
	}
	c->link.fd = fd;
	c->link.rx.len = 0;
	c->link.tx.head = c->link.tx.tail = 0;
	link_connected(c);
	return 0;
}

/**
 * tap_listen() - nothing connects: the tap made by netns_tap() is the link
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int tap_listen(struct ctx *c)
{
	c->link.listen_fd = -1;
	return tap_adopt(c, c->ns.tap_fd);
}

/**
 * tap_accept() - no listening socket: never called
 * @c:		execution context
 */
static void tap_accept(struct ctx *c)
{
	(void)c;
}

/**
 * tap_close() - stop serving the namespace: its connections and flows go
 * @c:		execution context
 * @why:	reason, for the log
 */
static void tap_close(struct ctx *c, const char *why)
{
	c->link.tx.head = c->link.tx.tail = 0;
	link_gone(c, why);
}

/**
 * tap_input() - read frames until the tap is empty or a batch is full
 * @c:		execution context
 */
static void tap_input(struct ctx *c)
{
	struct rx *rx = &c->link.rx;
	struct pkt frame;
	size_t off = 0;
	ssize_t n;
	int i;

	for (i = 0; i < TAP_RX_BATCH; i++) {
		/* One byte more than any frame we take: a longer one shows */
		if (rx->size - off < FRAME_MAX + 1)
			break;
		n = read(c->link.fd, rx->buf + off, FRAME_MAX + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				warn("reading the tap device: %m");
			break;
		}
		if (n == 0 || n > FRAME_MAX) {
			c->cnt.drop_eth++;
			continue;
		}
		frame.data = rx->buf + off;
		frame.len = (size_t)n;
		off += (size_t)n;
		link_frame_in(c, &frame);
		if (!c->link.up)
			return;
	}
	if (off)
		link_frames_done(c);
}

/**
 * tap_set_blocked() - wait, or stop waiting, for room on the tap
 * @c:		execution context
 * @blocked:	true to wait for EPOLLOUT
 */
static void tap_set_blocked(struct ctx *c, bool blocked)
{
	struct epoll_event ev = { .data.u64 = epref(EPREF_LINK, 0) };

	if (c->link.blocked == blocked)
		return;
	ev.events = EPOLLIN | (blocked ? EPOLLOUT : 0);
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, c->link.fd, &ev);
	c->link.blocked = blocked;
}

/**
 * tap_pending() - are frames queued for the namespace
 * @c:		execution context
 *
 * Return: true if some wait in the output buffer
 */
static bool tap_pending(const struct ctx *c)
{
	return c->link.tx.tail > c->link.tx.head;
}

/**
 * tap_flush() - write queued frames to the tap, one write() each
 * @c:		execution context
 *
 * Return: 0 when everything was written, 1 when some is still queued
 */
static int tap_flush(struct ctx *c)
{
	struct tx *tx = &c->link.tx;

	while (tx->head < tx->tail) {
		uint32_t len = rd32(tx->buf + tx->head);
		ssize_t n = write(c->link.fd,
				  tx->buf + tx->head + STREAM_HDR_LEN, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			tap_set_blocked(c, true);
			return 1;
		}
		if (n < 0)
			c->cnt.drop_tx_full++;
		tx->head += STREAM_HDR_LEN + len;
	}
	tx->head = tx->tail = 0;
	tap_set_blocked(c, false);
	return 0;
}

/**
 * tap_event() - the tap is readable or writable
 * @c:		execution context
 * @idx:	unused: one device
 * @events:	epoll events
 */
static void tap_event(struct ctx *c, uint32_t idx, uint32_t events)
{
	(void)idx;
	if (events & EPOLLOUT && tap_flush(c) == 0)
		link_writable(c);
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		tap_input(c);
}

/**
 * tap_space() - bytes free in the output buffer, for frames in a row
 * @c:		execution context
 *
 * Return: free bytes, length fields included
 */
static size_t tap_space(struct ctx *c)
{
	struct tx *tx = &c->link.tx;

	if (tx->head && tx->size - tx->tail < STREAM_HDR_LEN + FRAME_MAX) {
		memmove(tx->buf, tx->buf + tx->head, tx->tail - tx->head);
		tx->tail -= tx->head;
		tx->head = 0;
	}
	return tx->size - tx->tail;
}

/**
 * tap_reserve() - room for one frame in the output buffer
 * @c:		execution context
 * @maxlen:	largest length the frame may have, at most FRAME_MAX
 *
 * A full buffer is flushed first.
 *
 * Return: where the Ethernet frame starts, or NULL if there is no room
 */
static uint8_t *tap_reserve(struct ctx *c, size_t maxlen)
{
	if (tap_space(c) < STREAM_HDR_LEN + maxlen) {
		tap_flush(c);
		if (tap_space(c) < STREAM_HDR_LEN + maxlen)
			return NULL;
	}
	return c->link.tx.buf + c->link.tx.tail + STREAM_HDR_LEN;
}

/**
 * tap_reserve_batch() - room for frames laid out back to back
 * @c:		execution context
 * @len:	length of each frame, at most FRAME_MAX
 * @n:		frames wanted
 * @frames:	filled with where each frame starts
 *
 * Return: number of frames reserved
 */
static int tap_reserve_batch(struct ctx *c, size_t len, int n,
			     uint8_t **frames)
{
	size_t slot = STREAM_HDR_LEN + len, space = tap_space(c);
	uint8_t *base = c->link.tx.buf + c->link.tx.tail + STREAM_HDR_LEN;
	int i;

	if ((size_t)n * slot > space)
		n = (int)(space / slot);
	for (i = 0; i < n; i++)
		frames[i] = base + i * slot;
	return n;
}

/**
 * tap_commit() - queue a frame built in reserved room
 * @c:		execution context
 * @frame:	frame start, the next reserved one
 * @len:	frame length, at most what was reserved
 */
static void tap_commit(struct ctx *c, uint8_t *frame, size_t len)
{
	wr32(frame - STREAM_HDR_LEN, (uint32_t)len);
	c->link.tx.tail += STREAM_HDR_LEN + len;
}

/**
 * tap_adopt_unused() - a launcher's descriptor has no meaning here
 * @c:		execution context
 * @fd:		descriptor, closed
 *
 * Return: -1
 */
static int tap_adopt_unused(struct ctx *c, int fd)
{
	(void)c;
	close(fd);
	err("namespace mode takes no VMM connection");
	return -1;
}

const struct link_ops link_tap_ops = {
	.name		= "tap",
	.setup		= tap_setup,
	.listen		= tap_listen,
	.adopt		= tap_adopt_unused,
	.accept		= tap_accept,
	.event		= tap_event,
	.pending	= tap_pending,
	.flush		= tap_flush,
	.reserve	= tap_reserve,
	.reserve_batch	= tap_reserve_batch,
	.commit		= tap_commit,
	.close		= tap_close,
};
