/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the link to the guest: one interface, one back-end chosen at start
 *
 * A back-end (the QEMU stream socket, vhost-user, a tap device) puts the
 * frames it takes from the guest in one batch with link_frame_in(); the
 * loop hands the batch up (link_in_batch(), link_in_done()) and learns
 * from link_take_gone() that the guest went away.  Frames to the guest
 * are built in the back-end's own buffers through tx_reserve() and
 * tx_commit() (or tx_reserve_frames() and tx_commit_frame(), which may
 * place them right in the guest's receive buffers), whichever back-end it
 * is.  The link calls nothing above it: the protocol layers know nothing
 * of it but this API and the offloads it offers.
 */
#ifndef NETSHIM_LINK_H
#define NETSHIM_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "vnet.h"
#include "netshim/ctx.h"
#include "netshim/packet.h"

/* Buffers the payload of one frame built in place may span: a 64 KiB TSO
 * frame in 4 KiB receive buffers, or in a chain of pages
 */
#define LINK_FRAME_IOV		64

/* Most frames one tx_reserve_frames() call reserves */
#define LINK_RESERVE_MAX	128

/* Most frames from the guest handed up in one batch */
#define LINK_IN_MAX		64

/**
 * struct link_in_frame - a frame from the guest, and what its back-end
 *			  knows of it
 * @pkt:	the frame, valid until link_in_done()
 * @copied:	bytes of @pkt really at @pkt.data: the back-end left the rest
 *		in the guest's memory, for a TCP socket to take from there
 *		(link_iov_resolve())
 * @l4_off:	where the guest said the layer-4 header starts, if it left
 *		some of the frame in its memory
 * @csum_ok:	the guest vouched for its layer-4 checksum: it came as a
 *		partial one (VNET_F_NEEDS_CSUM), which the socket the payload
 *		goes to sums anyway, so it is not verified
 * @qp:		queue pair it came in on (0 without several): what is
 *		sent in answer is reserved on it (tx_reserve())
 */
struct link_in_frame {
	struct pkt pkt;
	size_t copied;
	uint16_t l4_off;
	bool csum_ok;
	uint8_t qp;
};

/**
 * struct link_frame - room for one frame to the guest: headers in one
 *		       piece, payload possibly scattered
 * @l2:		where the Ethernet header starts, @hlen bytes in a row
 * @hlen:	header bytes reserved at @l2
 * @iov:	room for the payload behind the headers
 * @niov:	entries of @iov
 * @room:	payload bytes @iov holds
 * @slot:	the back-end's own reference, -1 for a frame in the queue
 * @whole:	its buffers are taken whole, however short it is committed:
 *		the frames reserved after it stay usable then (else only
 *		the last frame committed may be shorter than reserved)
 * @qp:		the queue pair it was reserved on
 */
struct link_frame {
	uint8_t *l2;
	size_t hlen;
	struct iovec iov[LINK_FRAME_IOV];
	unsigned int niov;
	size_t room;
	int slot;
	bool whole;
	uint8_t qp;
};

/**
 * struct link_ops - a back-end of the link
 * @name:	what the logs call it
 * @rx_size:	bytes of its input buffer, allocated by link_init()
 * @tx_size:	bytes of the queue of frames to the guest (link/queue.c),
 *		which every back-end hands over its own way
 * @offloads:	it may negotiate offloads (struct link_caps): each queued
 *		frame keeps its virtio-net header (VNET_HDR_BASE_LEN bytes)
 *		in front of it
 * @pairs:	it may have several queue pairs: each queued frame also
 *		keeps, right in front of it, the pair it goes to (LINK_QP()),
 *		behind its virtio-net header
 * @control:	its events of index 0 are the front-end's requests, which may
 *		stop the guest's rings (vhost-user), not frames
 * @setup:	anything else to prepare before the loop runs, or NULL
 * @listen:	open the socket the VMM or front-end connects to
 * @adopt:	take a connection that is already open (a launcher's fd)
 * @accept:	the listening socket is readable
 * @event:	an epoll event of the back-end (EPREF_LINK, its own index)
 * @flush:	hand queued frames over: 0 all done, 1 some wait, -1 closed
 * @in_done:	the batch of frames from the guest was handled: release its
 *		buffers, and put the next batch in if one is there without
 *		waiting; or NULL
 * @reserve_frames: room for frames right where the guest reads them, in
 *		the receive queue of the pair given, or NULL: 0 if the guest
 *		has no room now, -1 if its buffers do not suit (the queue is
 *		used instead)
 * @commit_frame: hand a frame built in place over, with its offloads
 * @resolve:	where bytes of a guest frame really are, if the back-end
 *		left some in the guest's memory instead of copying them, or
 *		NULL: see link_iov_resolve()
 * @upgrade_save: write what the back-end has of its front-end beyond the
 *		connection, for a netshim taking over (daemon/upgrade.c),
 *		changing nothing; or NULL for nothing more
 * @upgrade_load: take that from the netshim handing over, the connection
 *		adopted already
 */
struct migio;

struct link_ops {
	const char *name;
	size_t rx_size, tx_size;
	bool offloads;
	bool pairs;
	bool control;
	int (*setup)(struct ctx *c);
	int (*listen)(struct ctx *c);
	int (*adopt)(struct ctx *c, int fd);
	void (*accept)(struct ctx *c);
	void (*event)(struct ctx *c, uint32_t idx, uint32_t events);
	int (*flush)(struct ctx *c);
	void (*in_done)(struct ctx *c);
	int (*reserve_frames)(struct ctx *c, uint8_t qp, size_t hlen,
			      size_t plen, int n, struct link_frame *f);
	void (*commit_frame)(struct ctx *c, struct link_frame *f, size_t plen,
			     const struct link_offload *o);
	size_t (*resolve)(struct ctx *c, const struct iovec *in,
			  struct iovec *out, size_t max);
	int (*upgrade_save)(struct ctx *c, struct migio *io);
	int (*upgrade_load)(struct ctx *c, struct migio *io);
};

/* The queue pair a queued frame goes to, with link_ops.pairs */
#define LINK_QP(frame)	((frame)[-1])

extern const struct link_ops link_stream_ops;
extern const struct link_ops link_tap_ops;
extern const struct link_ops link_vu_ops;

/* The loop's side */
int link_init(struct ctx *c, const struct link_ops *ops);
void link_accept(struct ctx *c);
void link_event(struct ctx *c, uint32_t idx, uint32_t events);
bool link_control_event(const struct ctx *c, uint32_t idx);
bool link_pending(const struct ctx *c);
int link_flush(struct ctx *c);
unsigned int link_in_batch(const struct ctx *c,
			   const struct link_in_frame **frames);
void link_in_done(struct ctx *c);
bool link_take_gone(struct ctx *c);
bool link_take_fresh(struct ctx *c);
int link_take_state(struct ctx *c, bool *load);
void link_state_done(struct ctx *c, bool ok);
void link_state_offer(struct ctx *c, int fd, bool load);
bool link_take_state_out(struct ctx *c);
void link_started(struct ctx *c);
bool link_take_state_back(struct ctx *c);
bool link_busy(const struct ctx *c);
int link_upgrade_save(struct ctx *c, struct migio *io);
int link_upgrade_load(struct ctx *c, struct migio *io);

/**
 * link_up() - is a VMM or front-end connected, so that frames can flow
 * @c:		execution context
 *
 * Return: true if it is
 */
static inline bool link_up(const struct ctx *c)
{
	return c->link.up;
}

/**
 * link_blocked() - is the back-end full, and will it say when it is not
 * @c:		execution context
 *
 * Return: true if frames to the guest wait for room
 */
static inline bool link_blocked(const struct ctx *c)
{
	return c->link.blocked;
}

/**
 * link_spread() - a queue pair for a flow from outside, before the guest
 *		   said where it handles it
 * @port:	the remote's port, or any number that tells flows apart
 *
 * Frames to the guest are reserved on a queue pair (tx_reserve() and the
 * others): a flow's replies go back on the pair its frames came in on
 * (link_in_frame.qp), which keeps its receive interrupts on the guest CPU
 * that sends it (virtio-net's transmit queue follows the sending CPU).
 * Flows started from outside are spread over the pairs by port, as a
 * NIC's receive hash would, until the guest's answer says where they
 * belong.  A back-end with fewer pairs in use folds any number into
 * those it has; which pair a frame takes never changes what it says.
 *
 * Return: the pair
 */
static inline uint8_t link_spread(uint16_t port)
{
	return (uint8_t)(port ^ (port >> 8));
}

/**
 * link_caps() - the offloads the guest negotiated
 * @c:		execution context
 *
 * Return: what frames to the guest may leave to it
 */
static inline const struct link_caps *link_caps(const struct ctx *c)
{
	return &c->link.caps;
}

/**
 * link_frame_queued() - is a reserved frame in the queue, not in place
 * @f:		frame of tx_reserve_frames() or tx_reserve_queued()
 *
 * Return: true if it is in the queue (its buffers are netshim's)
 */
static inline bool link_frame_queued(const struct link_frame *f)
{
	return f->slot < 0;
}

/* Client mode, --connect (link/client.c) */
int link_client_init(struct ctx *c);
bool link_client_timer(struct ctx *c);
bool link_client_gave_up(const struct ctx *c);

/* The protocol layers' side */
uint8_t *tx_reserve(struct ctx *c, uint8_t qp, size_t maxlen);
void tx_commit(struct ctx *c, uint8_t *frame, size_t len);
void tx_commit_offload(struct ctx *c, uint8_t *frame, size_t len,
		       const struct link_offload *o);
uint32_t link_tso_max(const struct ctx *c, bool v6);
int tx_reserve_frames(struct ctx *c, uint8_t qp, size_t hlen, size_t plen,
		      int n, struct link_frame *f);
bool tx_reserve_queued(struct ctx *c, uint8_t qp, size_t hlen, size_t plen,
		       struct link_frame *f);
void tx_commit_frame(struct ctx *c, struct link_frame *f, size_t plen,
		     const struct link_offload *o);

size_t link_iov_resolve(struct ctx *c, const struct iovec *in,
			struct iovec *out, size_t max);

/* The back-ends' side */
int link_listen(struct ctx *c);
int link_attach(struct ctx *c, int fd, uint32_t events);
bool link_frame_in(struct ctx *c, const struct pkt *frame, size_t copied,
		   const struct link_offload *o, uint8_t qp);
void link_caps_set(struct ctx *c, const struct link_caps *caps);
void link_gone(struct ctx *c, const char *why);

#endif /* NETSHIM_LINK_H */
