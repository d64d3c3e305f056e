// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - link back-end: vhost-user, the guest's own virtqueues
 *
 * One front-end (QEMU -netdev vhost-user, Cloud Hypervisor, DPDK's
 * virtio_user) at a time connects to the UNIX socket and drives the device
 * of dev.c with its messages, handled here; this is also the back-end's
 * face to the link (link_vu_ops).  Frames from the guest are taken from
 * the transmit queue by from_guest.c, frames to the guest go into the
 * receive queue through to_guest.c, and frontend.c drops a front-end that
 * breaks the protocol or its rings, counted and logged, so that the next
 * one is served.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "link/queue.h"
#include "netshim/log.h"
#include "netshim/unixsock.h"
#include "vu.h"

/* The storage of c->link.vu, through which alone it is reached: one
 * front-end at a time, its state sized once (vu.h)
 */
static struct vu_link vu_link;

_Static_assert(VU_TX_BATCH <= LINK_IN_MAX, "a batch is handed up whole");

/**
 * vu_setup() - start with no front-end
 * @c:		execution context
 *
 * Return: 0 on success, -1 with a message on failure
 */
static int vu_setup(struct ctx *c)
{
	struct vu_link *v = &vu_link;
	unsigned int i;

	c->link.vu = v;
	vu_dev_init(&v->dev, vu_features_offered(c->conf.virtio_features ==
						 CONF_VIRTIO_ALL));
	v->in_q = VU_TX_Q;
	for (i = 0; i < VU_QUEUES; i++)
		v->kick_reg[i] = -1;
	if (vu_mem_guard_init()) {
		err("SIGBUS handler for guest memory: %m");
		return -1;
	}
	return 0;
}

/**
 * vu_caps_update() - tell the layers above which offloads the driver took
 * @c:		execution context
 *
 * After every request: SET_FEATURES sets them, a device reset clears them.
 */
static void vu_caps_update(struct ctx *c)
{
	uint64_t f = c->link.vu->dev.features;
	struct link_caps caps = {
		.csum = f & (1ULL << VIRTIO_NET_F_GUEST_CSUM),
		.tso4 = f & (1ULL << VIRTIO_NET_F_GUEST_TSO4),
		.tso6 = f & (1ULL << VIRTIO_NET_F_GUEST_TSO6),
	};

	if (memcmp(&caps, &c->link.caps, sizeof(caps)))
		link_caps_set(c, &caps);
}

/**
 * vu_recv() - read more of the message being received, and its descriptors
 * @c:		execution context
 * @want:	bytes missing
 *
 * Return: bytes read, 0 if the front-end hung up, -1 with errno on error
 * (EPROTO: descriptors it should not have sent)
 */
static ssize_t vu_recv(struct ctx *c, size_t want)
{
	struct vu_link *v = c->link.vu;
	union {
		char buf[CMSG_SPACE(sizeof(int) * VU_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { v->in + v->in_len, want };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	ssize_t n;

	n = recvmsg(c->link.fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n;
	if (unix_fds_take(&mh, v->fds, &v->nfds, VU_FDS_MAX))
		return -1;
	v->in_len += (size_t)n;
	return n;
}

/**
 * vu_request() - handle the message received, answer it if it asks
 * @c:		execution context
 *
 * Return: 0 on success, -1 if the front-end was dropped
 */
static int vu_request(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	struct vu_msg *m = &v->msg;
	uint8_t out[VU_HDR_LEN + VU_PAYLOAD_MAX];
	enum vu_result r;
	unsigned int i;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (!vu_msg_parse(v->in, v->in_len, m)) {
		vu_drop(c, "message of an unknown protocol version");
		return -1;
	}
	v->in_len = 0;
	memcpy(m->fds, v->fds, sizeof(v->fds));
	m->nfds = v->nfds;
	v->nfds = 0;
	debug("vhost-user: %s (%u), %u bytes, %u fds",
	      vu_request_name(m->request), m->request, m->size, m->nfds);

	vu_kick_unregister(c);
	vu_ip_release(c);
	v->dev.state_result = c->link.state_ok ? 0 : 1;
	r = vu_handle(&v->dev, m);
	if (r == VU_DROP) {
		vu_drop(c, vu_request_name(m->request));
		return -1;
	}
	vu_caps_update(c);
	if (m->request == VU_SET_VRING_CALL) {
		/* QEMU sends a queue's call descriptor after its kick one:
		 * entries used in between were signalled to the old one, or
		 * to none, and with EVENT_IDX no later entry would be
		 * signalled either, the driver never having seen those (a
		 * guest's receive queue stalled so after a back-end restart).
		 * One interrupt on the new descriptor: a spurious one costs
		 * the driver a look at its ring.
		 */
		for (i = 0; i < VU_QUEUES; i++)
			if (v->dev.vq[i].started && v->dev.vq[i].used)
				vu_notify(&v->dev.vq[i]);
	}
	if (v->dev.resumed) {
		info("vhost-user: a queue started where its used ring says, "
		     "not at the front-end's base");
		c->cnt.vu_resumed += v->dev.resumed;
		v->dev.resumed = 0;
	}
	if (r == VU_DONE || !m->payload.u64) {
		if (m->request == VU_ADD_MEM_REG)
			c->cnt.vu_mem_added++;
		else if (m->request == VU_REM_MEM_REG)
			c->cnt.vu_mem_removed++;
	}
	if (r == VU_REPLY) {
		n = vu_msg_encode(m, out, sizeof(out));
		if (!n || send(c->link.fd, out, n, MSG_DONTWAIT |
			       MSG_NOSIGNAL) != (ssize_t)n) {
			vu_drop(c, "reply not accepted");
			return -1;
		}
	}
	/* A state transfer starts once its request is answered: the
	 * front-end reads or writes the pipe only then
	 */
	if (v->dev.state_fd >= 0) {
		link_state_offer(c, v->dev.state_fd, v->dev.state_load);
		v->dev.state_fd = -1;
	}
	if (m->request == VU_CHECK_DEVICE_STATE && c->link.state_ok &&
	    !c->link.state_load)
		c->link.state_out = true;
	if (m->request == VU_SET_VRING_KICK && v->dev.vq[VU_RX_Q].started)
		link_started(c);
	if (vu_kick_register(c)) {
		vu_drop(c, "kick eventfd refused by epoll");
		return -1;
	}
	if (lq_pending(&c->link.tx))
		vu_rx_kick(c);
	/* A queue may have just started with buffers already waiting */
	if (c->link.fd >= 0)
		vu_tx_waiting(c);
	return c->link.fd >= 0 ? 0 : -1;
}

/**
 * vu_control() - messages from the front-end
 * @c:		execution context
 */
static void vu_control(struct ctx *c)
{
	struct vu_link *v = c->link.vu;

	for (;;) {
		long need = vu_msg_need(v->in, v->in_len);
		ssize_t n;

		if (need < 0) {
			vu_drop(c, "message too long");
			return;
		}
		/* Frames taken by a request are handed up before the
		 * next request may change the memory they are in; a state
		 * transfer asked for is carried out before the next request,
		 * CHECK_DEVICE_STATE, is read (the socket is level-triggered)
		 */
		if (v->in_len == (size_t)need) {
			if (vu_request(c) || c->link.in_n ||
			    c->link.state_fd >= 0)
				return;
			continue;
		}
		/* Exactly the rest of this message: descriptors travel
		 * with the first byte of theirs, never mixed up.
		 */
		n = vu_recv(c, (size_t)need - v->in_len);
		if (n == 0) {
			vu_close(c, v->in_len ? "front-end hung up "
				 "mid-message" : "front-end hung up");
			return;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			vu_drop(c, errno == EPROTO ? "too many descriptors" :
				strerror(errno));
			return;
		}
	}
}

/**
 * vu_event() - the front-end's socket or a kick eventfd
 * @c:		execution context
 * @idx:	0 for the socket, 1 + queue for a kick
 * @events:	epoll events
 */
static void vu_event(struct ctx *c, uint32_t idx, uint32_t events)
{
	struct vu_link *v = c->link.vu;

	if (c->link.fd < 0)
		return;
	if (!idx) {
		if (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
			vu_control(c);
		return;
	}
	/* The kick's count is not read: see vu_kick_register() */
	if (idx > VU_QUEUES || v->kick_reg[idx - 1] < 0)
		return;
	if (VU_IS_TX(idx - 1))
		vu_tx(c, idx - 1);
	else
		vu_rx_kick(c);
	vu_fault_check(c);
}

/**
 * vu_adopt() - take a connected front-end
 * @c:		execution context
 * @fd:		its socket, non-blocking; closed on failure
 *
 * A new front-end replaces the one there is: QEMU reconnecting after a
 * restart may come before the old connection is seen to close.
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int vu_adopt(struct ctx *c, int fd)
{
	if (c->link.fd >= 0)
		vu_close(c, "replaced by a new front-end");
	return link_attach(c, fd, EPOLLIN | EPOLLRDHUP);
}

/**
 * vu_accept() - a front-end connects
 * @c:		execution context
 */
static void vu_accept(struct ctx *c)
{
	int fd = accept4(c->link.listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd >= 0)
		vu_adopt(c, fd);
}

const struct link_ops link_vu_ops = {
	.name		= "vhost-user",
	.rx_size	= VU_RX_BUF_SIZE,
	.tx_size	= VU_TX_BUF_SIZE,
	.offloads	= true,
	.pairs		= true,
	.control	= true,
	.setup		= vu_setup,
	.listen		= link_listen,
	.adopt		= vu_adopt,
	.accept		= vu_accept,
	.event		= vu_event,
	.flush		= vu_flush,
	.in_done	= vu_in_done,
	.reserve_frames	= vu_reserve_frames,
	.commit_frame	= vu_commit_frame,
	.resolve	= vu_resolve,
	.upgrade_save	= vu_upgrade_save,
	.upgrade_load	= vu_upgrade_load,
};
