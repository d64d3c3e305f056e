// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the link to the guest: one interface over its back-ends
 *
 * The loop and the protocol layers call the functions here, never a
 * back-end directly; back-ends report what happened through the link_*()
 * functions at the end of this file, which only keep it for the loop to
 * take: nothing here calls a layer above.
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

#include "link.h"
#include "queue.h"
#include "netshim/fdpool.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "netshim/pcap.h"
#include "netshim/unixsock.h"

/**
 * link_init_fd() - serve a VMM connection opened by the launcher (-F)
 * @c:		execution context, back-end set up
 * @fd:		connected stream socket, e.g. QEMU's -netdev passt socketpair
 *
 * There is nothing to listen on: when this connection closes, netshim
 * exits (the configuration set one_off).
 *
 * Return: 0 on success, -1 with a message on failure
 */
static int link_init_fd(struct ctx *c, int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		err("VMM connection (--fd %d): %m", fd);
		return -1;
	}
	return c->link.ops->adopt(c, fd);
}

/**
 * link_init() - size the back-end's buffers, then listen, adopt -F's
 *		 connection or get ready to connect (--connect)
 * @c:		execution context
 * @ops:	the back-end
 *
 * Return: 0 on success, -1 with a message on failure
 */
int link_init(struct ctx *c, const struct link_ops *ops)
{
	c->link.ops = ops;
	c->link.listen_fd = c->link.fd = c->link.state_fd = -1;
	c->link.up = c->link.blocked = false;
	c->link.rx.size = c->link.ops->rx_size;
	c->link.tx.size = c->link.ops->tx_size;
	c->link.tx.meta = c->link.ops->offloads ? VNET_HDR_BASE_LEN : 0;
	if (c->link.ops->pairs)
		c->link.tx.meta++;	/* LINK_QP() */
	/* Sized now, taken as used: malloc() maps these, and a page becomes
	 * resident when a frame first reaches it, so a quiet guest costs
	 * what it uses, and a busy one no more than these sizes.
	 */
	c->link.rx.buf = malloc(c->link.rx.size);
	c->link.tx.buf = malloc(c->link.tx.size);
	c->link.in = calloc(LINK_IN_MAX, sizeof(*c->link.in));
	c->link.in_n = 0;
	c->link.gone = false;
	if (!c->link.rx.buf || !c->link.tx.buf || !c->link.in) {
		err("out of memory for link buffers");
		return -1;
	}
	if (c->link.ops->setup && c->link.ops->setup(c))
		return -1;
	if (c->conf.vmm_fd >= 0)
		return link_init_fd(c, c->conf.vmm_fd);
	/* Client mode holds the directory of the VMM's socket even when
	 * taking over: it connects again once that VMM goes
	 */
	if (c->conf.vmm_connect)
		return link_client_init(c);
	/* Taking over, the connection comes from the running netshim, and
	 * the socket it listened on if it had one (not with --fd): nothing
	 * of our own to listen on or connect to
	 */
	if (c->conf.upgrade && !conf_ns_mode(&c->conf) &&
	    !fdpool_has_unix(c->conf.sock_path))
		return 0;
	return c->link.ops->listen(c);
}

/**
 * link_listen() - create the UNIX socket the VMM or front-end connects to
 * @c:		execution context
 *
 * Taking over from a running netshim (--upgrade), its socket is taken
 * instead (netshim/fdpool.c): the path never goes away.
 *
 * Return: 0 on success, -1 with a message on failure
 */
int link_listen(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN };
	const char *path = c->conf.sock_path;
	int fd;

	fd = fdpool_take_unix(path);
	if (fd < 0)
		fd = unix_listen(path);
	if (fd < 0) {
		if (errno == EADDRINUSE)
			err("%s is in use by another process", path);
		else if (errno == ENAMETOOLONG)
			err("socket path too long: %s", path);
		else
			err("cannot listen on %s: %m", path);
		return -1;
	}
	chmod(path, 0600);

	ev.data.u64 = epref(EPREF_LINK_LISTEN, 0);
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err("epoll: %m");
		close(fd);
		return -1;
	}
	c->link.listen_fd = fd;
	c->link.fd = -1;
	return 0;
}

/**
 * link_accept() - the listening socket is readable: a VMM connects
 * @c:		execution context
 */
void link_accept(struct ctx *c)
{
	c->link.ops->accept(c);
}

/**
 * link_event() - an epoll event on one of the back-end's descriptors
 * @c:		execution context
 * @idx:	the back-end's index in the event reference
 * @events:	epoll events
 */
void link_event(struct ctx *c, uint32_t idx, uint32_t events)
{
	c->link.ops->event(c, idx, events);
}

/**
 * link_control_event() - is an event of the back-end a request of the
 *			  front-end's, which may stop the guest's rings
 * @c:		execution context
 * @idx:	the back-end's index in the event reference
 *
 * Return: true if so, and the link is up
 */
bool link_control_event(const struct ctx *c, uint32_t idx)
{
	return c->link.up && c->link.ops->control && !idx;
}

/**
 * link_pending() - are frames queued for the guest
 * @c:		execution context
 *
 * Return: true if link_flush() has work
 */
bool link_pending(const struct ctx *c)
{
	return c->link.up && (lq_pending(&c->link.tx) || c->link.notify_due);
}

/**
 * link_flush() - hand queued frames to the VMM
 * @c:		execution context
 *
 * Return: 0 when everything went, 1 when some is still queued, -1 if the
 * connection failed (and was closed)
 */
int link_flush(struct ctx *c)
{
	if (!c->link.up)
		return -1;
	return c->link.ops->flush(c);
}

/**
 * tx_reserve() - room for one frame to the guest
 * @c:		execution context
 * @qp:		queue pair it goes to: the one the frame it answers came
 *		in on, its flow's, or link_spread()'s
 * @maxlen:	largest length the frame may have
 *
 * If the back-end cannot take the frame now, the caller drops it (or, for
 * TCP, retries when the link is writable again).
 *
 * Return: where the Ethernet frame starts, or NULL if there is no room
 */
uint8_t *tx_reserve(struct ctx *c, uint8_t qp, size_t maxlen)
{
	uint8_t *frame;

	if (!c->link.up || maxlen > FRAME_MAX)
		return NULL;
	/* Room for the padding tx_commit_offload() may add */
	if (maxlen < ETH_ZLEN_)
		maxlen = ETH_ZLEN_;
	frame = lq_reserve(&c->link.tx, maxlen);
	/* A full queue is handed over first, if the VMM takes it */
	if (!frame && c->link.ops->flush(c) >= 0 && c->link.up)
		frame = lq_reserve(&c->link.tx, maxlen);
	if (frame && c->link.ops->pairs)
		LINK_QP(frame) = qp;
	return frame;
}

/**
 * tx_commit() - queue a frame built in place by tx_reserve()'s caller
 * @c:		execution context
 * @frame:	frame start, as returned by tx_reserve()
 * @len:	frame length, at most what was reserved
 */
void tx_commit(struct ctx *c, uint8_t *frame, size_t len)
{
	tx_commit_offload(c, frame, len, NULL);
}

/**
 * link_reached() - note how far into a link buffer frames went
 * @c:		execution context
 * @reached:	c->link.tx_reached or rx_reached, raised to @end
 * @end:	end of a frame in that buffer
 *
 * The buffers are taken as frames reach their pages (link_init()): the
 * counter tells how much of them is resident, so that a test of the
 * daemon's memory can tell them from a leak.
 */
static void link_reached(struct ctx *c, size_t *reached, size_t end)
{
	if (end <= *reached)
		return;
	*reached = end;
	c->cnt.link_buf_reached = c->link.tx_reached + c->link.rx_reached;
}

/**
 * tx_commit_offload() - queue a frame that leaves work to the guest
 * @c:		execution context
 * @frame:	frame start, as returned by tx_reserve() (or a queued frame
 *		of tx_reserve_frames(), through tx_commit_frame())
 * @len:	frame length, at most what was reserved
 * @o:		its partial checksum or segmentation, NULL for none; only
 *		what c->link.caps allows
 */
void tx_commit_offload(struct ctx *c, uint8_t *frame, size_t len,
		       const struct link_offload *o)
{
	/* Padded as a wire would (passt does too): some guests' drivers and
	 * emulated NICs drop runts; the IP length tells the guest what is
	 * payload
	 */
	if (len < ETH_ZLEN_) {
		memset(frame + len, 0, ETH_ZLEN_ - len);
		len = ETH_ZLEN_;
	}
	if (c->link.tx.meta)
		vnet_hdr_build(lq_meta(&c->link.tx, frame), o);
	if (o && o->gso_type != VNET_GSO_NONE)
		c->cnt.tso_out++;
	trace("frame to the guest: %zu bytes, ethertype 0x%04x", len,
	      rd16(frame + 12));
	c->cnt.frames_out++;
	c->cnt.bytes_out += len;
	if (c->pcap_fd >= 0)
		pcap_frame(c, frame, len);
	lq_commit(&c->link.tx, frame, len);
	link_reached(c, &c->link.tx_reached,
		     (size_t)(frame + len - c->link.tx.buf));
}

/**
 * tx_reserve_frames() - room for frames of one layout, in the guest's own
 *			 buffers where the back-end can
 * @c:		execution context
 * @qp:		queue pair they go to (see tx_reserve())
 * @hlen:	header bytes of each frame, in one piece
 * @plen:	payload bytes of each (the last one committed may be shorter)
 * @n:		frames wanted
 * @f:		filled in, one per frame reserved
 *
 * In place where nothing is waiting in the queue, which would otherwise
 * be overtaken; never while capturing, since the capture would have to
 * read the guest's buffers back.  A guest that takes no partial checksum
 * has the payload summed where it lies (ip_frame_fill_offload()), which
 * costs less than copying it there from the queue.  Frames must be committed
 * in order; those not committed are given back by the next reservation
 * or flush.
 *
 * Return: frames reserved, 0 if the link cannot take one now
 */
int tx_reserve_frames(struct ctx *c, uint8_t qp, size_t hlen, size_t plen,
		      int n, struct link_frame *f)
{
	static uint8_t *frames[LINK_RESERVE_MAX];
	int i, got;

	if (!c->link.up || hlen + plen > FRAME_MAX || n <= 0)
		return 0;
	if (n > LINK_RESERVE_MAX)
		n = LINK_RESERVE_MAX;
	if (c->link.ops->reserve_frames && c->pcap_fd < 0) {
		if (lq_pending(&c->link.tx) && c->link.ops->flush(c) < 0)
			return 0;
		/* The guest's buffers are full: what would go in the queue
		 * now would be copied twice, from the socket and then again
		 * into the guest's buffers.  It waits in the socket instead,
		 * until the queue drained (tcp_tx_resume()).
		 */
		if (lq_pending(&c->link.tx))
			return 0;
		got = c->link.ops->reserve_frames(c, qp, hlen, plen, n, f);
		if (got >= 0) {
			for (i = 0; i < got; i++)
				f[i].qp = qp;
			return got;
		}
	}

	/* Frames are back to back: each takes room for its padding too */
	got = lq_reserve_batch(&c->link.tx, hlen + plen < ETH_ZLEN_ ?
				ETH_ZLEN_ : hlen + plen, n, frames);
	for (i = 0; i < got; i++) {
		f[i].l2 = frames[i];
		f[i].hlen = hlen;
		f[i].iov[0].iov_base = frames[i] + hlen;
		f[i].iov[0].iov_len = plen;
		f[i].niov = 1;
		f[i].room = plen;
		f[i].slot = -1;
		f[i].whole = false;
		f[i].qp = qp;
		if (c->link.ops->pairs)
			LINK_QP(frames[i]) = qp;
	}
	return got;
}

/**
 * tx_reserve_queued() - room for one frame in the queue, described as a
 *			 frame of tx_reserve_frames()
 * @c:		execution context
 * @qp:		queue pair it goes to (see tx_reserve())
 * @hlen:	header bytes, in one piece
 * @plen:	payload bytes
 * @f:		filled in
 *
 * For a frame whose payload is received straight into the frame (UDP)
 * when the guest's own buffers cannot take it.
 *
 * Return: true if reserved, false if the link cannot take it now
 */
bool tx_reserve_queued(struct ctx *c, uint8_t qp, size_t hlen, size_t plen,
		       struct link_frame *f)
{
	uint8_t *l2 = tx_reserve(c, qp, hlen + plen);

	if (!l2)
		return false;
	f->l2 = l2;
	f->hlen = hlen;
	f->iov[0].iov_base = l2 + hlen;
	f->iov[0].iov_len = plen;
	f->niov = 1;
	f->room = plen;
	f->slot = -1;
	f->whole = false;
	f->qp = qp;
	return true;
}

/**
 * tx_commit_frame() - hand over a frame of tx_reserve_frames()
 * @c:		execution context
 * @f:		the frame, headers written at @f->l2
 * @plen:	payload bytes in it, at most @f->room
 * @o:		its offloads, NULL for none
 */
void tx_commit_frame(struct ctx *c, struct link_frame *f, size_t plen,
		     const struct link_offload *o)
{
	if (f->slot < 0) {
		tx_commit_offload(c, f->l2, f->hlen + plen, o);
		return;
	}
	trace("frame to the guest in place: %zu bytes", f->hlen + plen);
	c->cnt.frames_out++;
	c->cnt.frames_in_place++;
	c->cnt.bytes_out += f->hlen + plen;
	if (o && o->gso_type != VNET_GSO_NONE)
		c->cnt.tso_out++;
	c->link.ops->commit_frame(c, f, plen, o);
}

/**
 * link_tso_max() - largest TCP payload one frame to the guest may carry
 * @c:		execution context
 * @v6:		IPv6 (else IPv4)
 *
 * With segmentation offload a frame holds what one IP packet can, within
 * FRAME_MAX; the guest cuts it at the MSS if it sends it on.
 *
 * Return: payload bytes, 0 if segments must fit the MTU
 */
uint32_t link_tso_max(const struct ctx *c, bool v6)
{
	if (!(v6 ? c->link.caps.tso6 : c->link.caps.tso4))
		return 0;
	/* IPv6 headers do not count in its payload length, but in frames */
	return FRAME_MAX - ETH_HLEN_ - 40 - 20;
}

/**
 * link_caps_set() - the back-end negotiated offloads with its guest
 * @c:		execution context
 * @caps:	what the guest takes from now on
 *
 * Segmentation is only offered with the partial checksum it needs (a
 * virtio driver that takes TSO always takes GUEST_CSUM, 5.1.3.1).
 */
void link_caps_set(struct ctx *c, const struct link_caps *caps)
{
	c->link.caps = *caps;
	if (!caps->csum)
		c->link.caps.tso4 = c->link.caps.tso6 = false;
	debug("link offloads: checksum %s, TSO IPv4 %s, IPv6 %s",
	      c->link.caps.csum ? "on" : "off",
	      c->link.caps.tso4 ? "on" : "off",
	      c->link.caps.tso6 ? "on" : "off");
}

/**
 * link_buffers_reset() - forget a connection's partial input and queued
 *			  output: they belong to the VMM that came or went
 * @c:		execution context
 */
static void link_buffers_reset(struct ctx *c)
{
	static const struct link_caps none;

	c->link.caps = none;
	c->link.notify_due = false;
	c->link.in_n = 0;
	c->link.rx.len = c->link.rx.off = 0;
	c->link.tx.head = c->link.tx.tail = 0;
}

/**
 * link_connected() - a back-end has a VMM: frames may flow
 * @c:		execution context
 */
static void link_connected(struct ctx *c)
{
	link_buffers_reset(c);
	c->link.up = true;
	c->link.blocked = false;
	c->link.fresh = true;
	c->cnt.vmm_connects++;
	info("VMM connected (%s)", c->link.ops->name);
}

/**
 * link_attach() - watch a back-end's new connection, and let frames flow
 * @c:		execution context
 * @fd:		the connection (socket or tap), non-blocking; closed on
 *		failure
 * @events:	epoll events to watch it for
 *
 * Return: 0 on success, -1 on failure (logged)
 */
int link_attach(struct ctx *c, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events,
				  .data.u64 = epref(EPREF_LINK, 0) };

	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		warn("epoll on the %s connection: %m", c->link.ops->name);
		close(fd);
		return -1;
	}
	c->link.fd = fd;
	link_connected(c);
	return 0;
}

/**
 * link_frame_in() - a frame from the guest: into the batch handed up
 * @c:		execution context
 * @frame:	the frame, valid until link_in_done()
 * @copied:	bytes of it at @frame->data, the rest left in the guest's
 *		memory: only a TCP frame's payload, behind headers at
 *		@o->csum_start (struct link_in_frame)
 * @o:		its offloads, checked by vnet_hdr_parse() against what was
 *		negotiated, or NULL for none
 * @qp:		queue pair it came in on, 0 for a back-end with one
 *
 * A partial checksum (NEEDS_CSUM) is the guest saying its payload is what
 * it meant: the frame goes no further than a socket, where the kernel
 * sums what it sends anyway, so the checksum is not verified.  A GSO
 * frame's payload goes to the socket in one write, the kernel segments.
 *
 * Return: true if the batch takes more frames, false if it is full now
 */
bool link_frame_in(struct ctx *c, const struct pkt *frame, size_t copied,
		   const struct link_offload *o, uint8_t qp)
{
	struct link_in_frame *f = &c->link.in[c->link.in_n++];
	uintptr_t start = (uintptr_t)c->link.rx.buf, at = (uintptr_t)frame->data;

	c->cnt.frames_in++;
	c->cnt.bytes_in += frame->len;
	if (o && o->gso_type != VNET_GSO_NONE)
		c->cnt.tso_in++;
	if (c->pcap_fd >= 0)
		pcap_frame(c, frame->data, frame->len);
	/* A back-end's frames are in its input buffer, a test's anywhere */
	if (at >= start && at + copied <= start + c->link.rx.size)
		link_reached(c, &c->link.rx_reached, at + copied - start);
	f->pkt = *frame;
	f->copied = copied;
	f->l4_off = o ? o->csum_start : 0;
	f->csum_ok = o && (o->flags & VNET_F_NEEDS_CSUM);
	f->qp = qp;
	return c->link.in_n < LINK_IN_MAX;
}

/**
 * link_in_batch() - the frames from the guest waiting to be handed up
 * @c:		execution context
 * @frames:	set to the first of them
 *
 * Return: how many, 0 if none (or the link is down)
 */
unsigned int link_in_batch(const struct ctx *c,
			   const struct link_in_frame **frames)
{
	*frames = c->link.in;
	return c->link.up ? c->link.in_n : 0;
}

/**
 * link_in_done() - the batch was handled: the back-end may reuse its
 *		    buffers, and put the next batch in if it has one
 * @c:		execution context
 *
 * Guest data the layers above gathered from the batch points into those
 * buffers: it must be written out before this is called.
 */
void link_in_done(struct ctx *c)
{
	c->link.in_n = 0;
	if (c->link.up && c->link.ops->in_done)
		c->link.ops->in_done(c);
}

/**
 * link_take_fresh() - did a VMM connect since the last call
 * @c:		execution context
 *
 * Return: true once after each VMM or front-end that connected
 */
bool link_take_fresh(struct ctx *c)
{
	bool fresh = c->link.fresh;

	c->link.fresh = false;
	return fresh;
}

/**
 * link_state_offer() - the front-end asks for a device state transfer
 * @c:		execution context
 * @fd:		its pipe, now the link's
 * @load:	the state comes in (destination), else it goes out (source)
 *
 * For the back-end, which answers the request; the layers above carry
 * the transfer out when the loop takes it (link_take_state()).
 */
void link_state_offer(struct ctx *c, int fd, bool load)
{
	if (c->link.state_fd >= 0)
		close(c->link.state_fd);
	c->link.state_fd = fd;
	c->link.state_load = load;
	c->link.state_ok = false;
	if (!load)
		c->link.state_saved = true;
}

/**
 * link_started() - the back-end's queues start (again): the guest runs
 * @c:		execution context
 *
 * After our state was saved for a migration, this means the migration
 * did not take the guest away: it failed or was cancelled, and the guest
 * goes on here (link_take_state_back()).
 */
void link_started(struct ctx *c)
{
	if (!c->link.state_saved)
		return;
	c->link.state_saved = false;
	c->link.state_back = true;
}

/**
 * link_take_state_back() - does the guest run here again after its state
 *			    was saved, since the last call
 * @c:		execution context
 *
 * Return: true once after each such restart
 */
bool link_take_state_back(struct ctx *c)
{
	bool back = c->link.state_back;

	c->link.state_back = false;
	return back;
}

/**
 * link_take_state() - a device state transfer to carry out, if one waits
 * @c:		execution context
 * @load:	set if the state comes in
 *
 * Return: the pipe, now the caller's, or -1 if none waits
 */
int link_take_state(struct ctx *c, bool *load)
{
	int fd = c->link.state_fd;

	c->link.state_fd = -1;
	*load = c->link.state_load;
	return fd;
}

/**
 * link_state_done() - how the transfer taken went, for the front-end to
 *		       check
 * @c:		execution context
 * @ok:		it succeeded
 */
void link_state_done(struct ctx *c, bool ok)
{
	c->link.state_ok = ok;
}

/**
 * link_take_state_out() - did the front-end confirm that our state went
 *			   to a destination, since the last call
 * @c:		execution context
 *
 * Return: true once after each such confirmation
 */
bool link_take_state_out(struct ctx *c)
{
	bool out = c->link.state_out;

	c->link.state_out = false;
	return out;
}

/**
 * link_take_gone() - did the guest go away since the last call
 * @c:		execution context
 *
 * Its connections and flows are then to be forgotten by the layers above.
 *
 * Return: true once after each time the VMM or front-end went away
 */
bool link_take_gone(struct ctx *c)
{
	bool gone = c->link.gone;

	c->link.gone = false;
	return gone;
}

/**
 * link_iov_resolve() - where guest payload bytes are, to write them out
 * @c:		execution context
 * @in:		bytes of a frame handed to link_frame_in(), as the layers
 *		above saw them
 * @out:	filled with the buffers that hold them
 * @max:	entries @out has
 *
 * A back-end may copy only the headers of a frame, which decide what
 * happens to it, and leave its payload in the guest's memory: the socket
 * then takes it from there, copied once.  Valid until link_in_done()
 * returns.
 *
 * Return: entries of @out used, 0 if @max is too few
 */
size_t link_iov_resolve(struct ctx *c, const struct iovec *in,
			struct iovec *out, size_t max)
{
	if (c->link.ops->resolve)
		return c->link.ops->resolve(c, in, out, max);
	if (!max)
		return 0;
	*out = *in;
	return 1;
}

/**
 * link_gone() - the VMM went away: so does everything of its guest, once
 *		 the loop takes the news (link_take_gone())
 * @c:		execution context
 * @why:	reason, for the log
 */
void link_gone(struct ctx *c, const char *why)
{
	link_buffers_reset(c);
	if (c->link.state_fd >= 0)
		close(c->link.state_fd);
	c->link.state_fd = -1;
	c->link.state_saved = c->link.state_back = false;
	if (!c->link.up)
		return;
	info("VMM connection closed: %s", why);
	c->link.up = false;
	c->link.blocked = false;
	c->link.gone = true;
}

/* An upgrade in place (daemon/upgrade.c) hands the link over as it is:
 * the VMM's connection (the tap of namespace mode went before, with the
 * sockets that never change), the bytes of a frame the VMM sent only
 * part of, the frames queued for the guest and not taken yet, and what
 * the back-end has beyond that (vhost-user's device: link_ops'
 * upgrade_save).  Section body, integers big endian: flags (1:
 * LINK_UP_CONN), a byte once the queue pair last steered to, written 0
 * and not read since each frame names its own pair, then with LINK_UP_CONN
 * the connection's mark; the bytes read and not cut into frames yet (4,
 * then those), the queue for the guest (4, then its bytes, as
 * link/queue.c lays them out: the same back-end's), then the back-end's
 * part.
 */
#define LINK_UP_CONN		0x01

/**
 * link_busy() - is the link in the middle of something a new netshim
 *		 could not take up: a migration's device state transfer
 * @c:		execution context
 *
 * Return: true while a transfer is asked for or our state was saved for
 * a migration that has not ended
 */
bool link_busy(const struct ctx *c)
{
	return c->link.state_fd >= 0 || c->link.state_saved;
}

/**
 * link_upgrade_save() - write the link's state for a netshim taking over
 * @c:		execution context, between two events of the loop
 * @io:		the stream, over the new netshim's UNIX socket
 *
 * What is queued for the guest goes out first, as far as it can: the
 * rest moves.  Nothing else changes, so that the loop goes on as if
 * nothing happened should the new netshim refuse.
 *
 * Return: 0 on success, -1 with @io->err set
 */
int link_upgrade_save(struct ctx *c, struct migio *io)
{
	bool conn = c->link.up && c->link.fd >= 0 && c->ns.net_fd < 0;
	struct tx *tx = &c->link.tx;
	struct rx *rx = &c->link.rx;
	uint8_t h[2] = { conn ? LINK_UP_CONN : 0, 0 };

	if (c->link.up && lq_pending(tx))
		link_flush(c);
	if (migio_put(io, h, sizeof(h)) ||
	    (conn && migio_put_fd(io, c->link.fd)) ||
	    migio_put_u32(io, (uint32_t)(rx->len - rx->off)) ||
	    migio_put(io, rx->buf + rx->off, rx->len - rx->off) ||
	    migio_put_u32(io, (uint32_t)(tx->tail - tx->head)) ||
	    migio_put(io, tx->buf + tx->head, tx->tail - tx->head))
		return -1;
	if (c->link.up && c->link.ops->upgrade_save)
		return c->link.ops->upgrade_save(c, io);
	return 0;
}

/**
 * link_queue_ok() - are bytes a queue of this back-end's frames
 * @c:		execution context
 * @len:	bytes at the start of the queue's buffer
 *
 * The stream's queue is sent as it is, from wherever its head was, and
 * may start in the middle of a frame; the others are taken frame by frame
 * (lq_peek()), each behind its length and room for its header.
 *
 * Return: true if every frame is whole and within the largest
 */
static bool link_queue_ok(const struct ctx *c, size_t len)
{
	const struct tx *tx = &c->link.tx;
	size_t off = 0;

	if (!tx->meta)
		return true;
	while (off < len) {
		uint32_t flen;

		if (len - off < LQ_HDR_LEN + tx->meta)
			return false;
		flen = rd32(tx->buf + off);
		if (!flen || flen > FRAME_MAX ||
		    flen > len - off - LQ_HDR_LEN - tx->meta)
			return false;
		off += LQ_HDR_LEN + tx->meta + flen;
	}
	return true;
}

/**
 * link_upgrade_load() - take the link's state from the netshim handing over
 * @c:		execution context, the back-end set up (listening, or the tap
 *		attached)
 * @io:		the stream, at the section's body
 *
 * The connection is adopted as a VMM's would be, without the news of a
 * new guest: its addresses and connections are still those it had.
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
int link_upgrade_load(struct ctx *c, struct migio *io)
{
	struct tx *tx = &c->link.tx;
	struct rx *rx = &c->link.rx;
	uint32_t rlen, tlen;
	uint8_t h[2];
	int fd = -1;

	if (migio_get(io, h, sizeof(h)) || (h[0] & ~LINK_UP_CONN))
		goto bad;
	if (h[0] & LINK_UP_CONN) {
		if (migio_get_fd(io, &fd))
			return -1;
		if (c->ns.net_fd >= 0 || c->link.fd >= 0)
			goto bad;
		/* Closed by the back-end if it cannot take it */
		if (c->link.ops->adopt(c, fd)) {
			io->err = EIO;
			return -1;
		}
		fd = -1;
		c->link.fresh = false;		/* the same guest */
		c->cnt.vmm_connects--;
	}
	if (migio_get_u32(io, &rlen) || rlen >= rx->size ||
	    (rlen && !c->link.up) || migio_get(io, rx->buf, rlen))
		goto bad;
	rx->len = rlen;
	rx->off = 0;
	if (migio_get_u32(io, &tlen) || tlen > tx->size ||
	    (tlen && !c->link.up) || migio_get(io, tx->buf, tlen) ||
	    !link_queue_ok(c, tlen))
		goto bad;
	tx->head = 0;
	tx->tail = tlen;
	if (c->link.up && c->link.ops->upgrade_load)
		return c->link.ops->upgrade_load(c, io);
	return 0;
bad:
	if (fd >= 0)
		close(fd);
	if (!io->err)
		io->err = EINVAL;
	return -1;
}
