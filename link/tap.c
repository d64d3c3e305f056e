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
 * interface went down, say), as a NIC would.  Every frame has a
 * virtio-net header in front (IFF_VNET_HDR, 10 bytes), as on vhost-user:
 * the namespace's kernel takes TSO frames and partial checksums whatever
 * its MTU, and gives us its own (TUNSETOFFLOAD, netns.c).  The queue
 * keeps each frame's header right in front of it, so each frame is still
 * one write().
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "link.h"
#include "queue.h"
#include "netshim/log.h"
#include "vnet.h"

/* The largest read: a header, then a TSO frame of one IP packet of up to
 * 64 KiB, whose IPv6 header is not counted in its payload length
 */
#define TAP_READ_MAX		(VNET_HDR_BASE_LEN + ETH_HLEN_ + 40 + 65535)
/* Input: a batch of up to TAP_RX_BATCH frames of the largest size */
#define TAP_RX_BATCH		64
#define TAP_RX_BUF_SIZE		(TAP_RX_BATCH * (TAP_READ_MAX + 1))
/* Output: as the stream's, a burst of 64 KiB frames */
#define TAP_TX_BUF_SIZE		(8 << 20)

/* What the tap takes from us, and what TUNSETOFFLOAD lets it give us */
static const struct link_caps tap_caps = { .csum = true, .tso4 = true,
					   .tso6 = true };
static const struct vnet_accept tap_accept_offloads = {
	.csum = true, .tso4 = true, .tso6 = true,
};

/**
 * tap_adopt() - take the tap device: the namespace is connected
 * @c:		execution context
 * @fd:		the tap, non-blocking; closed on failure
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int tap_adopt(struct ctx *c, int fd)
{
	if (link_attach(c, fd, EPOLLIN))
		return -1;
	link_caps_set(c, &tap_caps);
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
		struct link_offload o;
		struct pkt h;

		/* One byte more than any frame we take: a longer one shows */
		if (rx->size - off < TAP_READ_MAX + 1)
			break;
		n = read(c->link.fd, rx->buf + off, TAP_READ_MAX + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				warn("reading the tap device: %m");
			break;
		}
		if (n <= VNET_HDR_BASE_LEN || n > TAP_READ_MAX) {
			c->cnt.drop_eth++;
			continue;
		}
		h.data = rx->buf + off;
		h.len = VNET_HDR_BASE_LEN;
		if (vnet_hdr_parse(&h, (size_t)n - VNET_HDR_BASE_LEN,
				   &tap_accept_offloads, &o)) {
			c->cnt.drop_vnet_hdr++;
			continue;
		}
		frame.data = rx->buf + off + VNET_HDR_BASE_LEN;
		frame.len = (size_t)n - VNET_HDR_BASE_LEN;
		off += (size_t)n;
		if (!link_frame_in(c, &frame, frame.len, &o, 0))
			break;
	}
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
 * tap_flush() - write queued frames to the tap, one write() each
 * @c:		execution context
 *
 * Return: 0 when everything was written, 1 when some is still queued
 */
static int tap_flush(struct ctx *c)
{
	uint8_t *frame;
	size_t len;

	while (lq_peek(&c->link.tx, &frame, &len)) {
		/* Its virtio-net header is right in front of it */
		ssize_t n = write(c->link.fd, lq_meta(&c->link.tx, frame),
				  VNET_HDR_BASE_LEN + len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			tap_set_blocked(c, true);
			return 1;
		}
		if (n < 0)
			c->cnt.drop_tx_full++;
		lq_drop_head(&c->link.tx);
	}
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
	if (events & EPOLLOUT)
		tap_flush(c);
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		tap_input(c);
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
	.rx_size	= TAP_RX_BUF_SIZE,
	.tx_size	= TAP_TX_BUF_SIZE,
	.offloads	= true,
	.listen		= tap_listen,
	.adopt		= tap_adopt_unused,
	.accept		= tap_accept,
	.event		= tap_event,
	.flush		= tap_flush,
};
