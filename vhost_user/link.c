// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - link back-end: vhost-user, the guest's own virtqueues
 *
 * One front-end (QEMU -netdev vhost-user, Cloud Hypervisor, DPDK's
 * virtio_user) at a time connects to the UNIX socket and drives the device
 * of dev.c with its messages.  Frames from the guest are taken from the
 * transmit queue when its kick eventfd fires and copied out of guest
 * memory before they are parsed (the guest may change them meanwhile);
 * frames to the guest are queued as for the stream back-end and copied
 * into receive buffers, behind the virtio-net header, when the loop
 * flushes.  A front-end that breaks the protocol or its rings is dropped,
 * counted and logged, and the next one is served.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/tcp.h>

#include "link/link.h"
#include "link/queue.h"
#include "netshim/log.h"
#include "link/vnet.h"
#include "dev.h"

#define VU_RX_BUF_SIZE	(8 << 20)	/* guest frames of one batch */
#define VU_TX_BUF_SIZE	(8 << 20)	/* frames queued for the guest */
#define VU_TX_BATCH	64	/* guest frames parsed before their buffers
				 * go back: TCP writes them in one call */
#define VU_TX_BUDGET	1024	/* guest frames per kick before other events */
#define VU_RX_ELEMS	64	/* receive buffers one frame may take */
#define VU_TX_HDR_COPY	128	/* bytes of a guest TCP frame copied before
				 * it is parsed: all its headers; its payload
				 * is written to the socket from guest memory */
#define VU_IP_CHAINS	256	/* receive chains held for frames built in
				 * place by one reservation */

/* A TSO frame from the guest: one IP packet of up to 64 KiB, whose IPv6
 * header is not counted in its payload length
 */
#define VU_FRAME_IN_MAX	(ETH_HLEN_ + 40 + 65535)

/**
 * struct vu_link - the front-end and what it is in the middle of sending
 * @dev:	the device it drives
 * @in:		the message being received
 * @in_len:	bytes of it so far
 * @fds:	descriptors that came with it
 * @nfds:	how many
 * @msg:	the message being handled, and its reply
 * @kick_reg:	kick eventfd of each queue as registered with epoll, or -1
 * @elem:	chains of the transmit batch
 * @flen:	length of each frame of the batch, 0 if it is dropped
 * @off:	offloads of each frame of the batch
 * @fpos:	where each frame of the batch starts in the input buffer
 * @fcopy:	bytes of it copied there: the rest is only in guest memory
 * @nframes:	frames of the batch being handled, 0 between batches
 * @tx_done:	guest frames taken since the transmit queue's kick
 * @rx_elem:	receive buffers of the frame being copied to the guest
 * @ip_elem:	receive chains taken for frames built in place
 * @ip_popped:	how many of them the current reservation took
 * @ip_used:	how many of them went to the guest
 * @ip_first:	first chain of each frame reserved in place, and one past
 *		the last frame's
 * @ip_frames:	frames reserved in place
 * @ip_next:	the next of them to be committed
 */
struct vu_link {
	struct vu_dev dev;
	uint8_t in[VU_HDR_LEN + VU_PAYLOAD_MAX];
	size_t in_len;
	int fds[VU_FDS_MAX];
	unsigned int nfds;
	struct vu_msg msg;
	int kick_reg[VU_QUEUES];
	struct vq_elem elem[VU_TX_BATCH];
	size_t flen[VU_TX_BATCH];
	struct link_offload off[VU_TX_BATCH];
	size_t fpos[VU_TX_BATCH], fcopy[VU_TX_BATCH];
	int nframes;
	unsigned int tx_done;
	struct vq_elem rx_elem[VU_RX_ELEMS];
	struct vq_elem ip_elem[VU_IP_CHAINS];
	unsigned int ip_popped, ip_used;
	unsigned int ip_first[LINK_RESERVE_MAX + 1];
	int ip_frames, ip_next;
};

static struct vu_link vu_link;

_Static_assert(VU_TX_BATCH <= LINK_IN_MAX, "a batch is handed up whole");

static void vu_close(struct ctx *c, const char *why);

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
	vu_dev_init(&v->dev);
	for (i = 0; i < VU_QUEUES; i++)
		v->kick_reg[i] = -1;
	if (vu_mem_guard_init()) {
		err("SIGBUS handler for guest memory: %m");
		return -1;
	}
	return 0;
}

/**
 * vu_drop() - drop a front-end that broke the rules
 * @c:		execution context
 * @why:	what it did, for the log
 */
static void vu_drop(struct ctx *c, const char *why)
{
	c->cnt.vu_dropped++;
	warn("vhost-user front-end dropped: %s", why);
	vu_close(c, why);
}

/**
 * vu_fault_check() - drop a front-end that shrank guest memory under us
 * @c:		execution context
 *
 * The SIGBUS handler of mem.c has already put zero pages there, so what
 * read them went on harmlessly; the front-end broke the rules all the same.
 *
 * Return: true if it was dropped
 */
static bool vu_fault_check(struct ctx *c)
{
	if (!vu_mem_faulted())
		return false;
	vu_drop(c, "guest memory truncated under its mapping (SIGBUS)");
	return true;
}

/**
 * vu_notify() - interrupt the guest for new used entries, if it wants one
 * @vq:		queue
 */
static void vu_notify(struct vq *vq)
{
	uint64_t one = 1;

	if (vq->call_fd >= 0 && vq_should_notify(vq) &&
	    write(vq->call_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		debug("vhost-user: call eventfd: %m");
}

/**
 * vu_kick_unregister() - stop watching the kick eventfds
 * @c:		execution context
 *
 * Before every request: a request may close one, and its number come back
 * for another descriptor that epoll would then not know.
 */
static void vu_kick_unregister(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	unsigned int i;

	for (i = 0; i < VU_QUEUES; i++) {
		if (v->kick_reg[i] >= 0)
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, v->kick_reg[i], NULL);
		v->kick_reg[i] = -1;
	}
}

/**
 * vu_kick_register() - watch the kick eventfds the front-end set
 * @c:		execution context
 *
 * Return: 0 on success, -1 if epoll refused one
 */
static int vu_kick_register(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	unsigned int i;

	/* Edge-triggered, and never read: every write to an eventfd wakes
	 * epoll again, so nothing is missed, and its count is of no use to
	 * us (the rings say what there is).  One read() per kick saved.
	 */
	for (i = 0; i < VU_QUEUES; i++) {
		struct epoll_event ev = {
			.events = EPOLLIN | EPOLLET,
			.data.u64 = epref(EPREF_LINK, 1 + i),
		};
		int fd = v->dev.vq[i].kick_fd;

		if (fd < 0)
			continue;
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev))
			return -1;
		v->kick_reg[i] = fd;
	}
	return 0;
}

/**
 * vu_frame_len() - length of the frame in a transmit chain
 * @c:		execution context
 * @e:		the chain
 * @hdr:	virtio-net header length
 *
 * Return: frame length, 0 if the chain cannot hold a frame (counted)
 */
static size_t vu_frame_len(struct ctx *c, const struct vq_elem *e, size_t hdr)
{
	size_t len = e->out_len;

	if (len < hdr + ETH_HLEN_ || len - hdr > VU_FRAME_IN_MAX) {
		c->cnt.drop_vu_len++;
		return 0;
	}
	return len - hdr;
}

/**
 * vu_accepts() - the offloads the driver may use in frames it sends
 * @d:		device
 * @ok:		filled in from its features
 */
static void vu_accepts(const struct vu_dev *d, struct vnet_accept *ok)
{
	ok->csum = d->features & (1ULL << VIRTIO_NET_F_CSUM);
	ok->tso4 = d->features & (1ULL << VIRTIO_NET_F_HOST_TSO4);
	ok->tso6 = d->features & (1ULL << VIRTIO_NET_F_HOST_TSO6);
	ok->ecn = d->features & (1ULL << VIRTIO_NET_F_HOST_ECN);
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
 * vu_frame_hdr() - copy and check the virtio-net header of a guest frame
 * @c:		execution context
 * @e:		the chain
 * @flen:	length of the frame behind the header
 * @o:		filled in with its offloads
 *
 * Return: true if the frame may be used, false if dropped (counted)
 */
static bool vu_frame_hdr(struct ctx *c, const struct vq_elem *e, size_t flen,
			 struct link_offload *o)
{
	uint8_t h[VNET_HDR_BASE_LEN];
	struct pkt hp = { h, sizeof(h) };
	struct vnet_accept ok;

	vu_accepts(&c->link.vu->dev, &ok);
	if (iov_to_buf(e->iov, e->n_out, 0, h, sizeof(h)) != sizeof(h) ||
	    vnet_hdr_parse(&hp, flen, &ok, o)) {
		c->cnt.drop_vnet_hdr++;
		return false;
	}
	return true;
}

/**
 * vu_tcp_hdrs_copied() - does a frame say it is TCP, with its headers all
 *			  among the bytes copied
 * @buf:	the frame's first bytes, copied
 * @n:		how many
 * @o:		its offloads
 *
 * The virtio-net header of a partial checksum says where the layer-4
 * header starts and where in it the checksum goes: at TCP's place, the
 * TCP header's data offset says where the payload starts.  guest.c
 * checks that the packet agrees before anything reads it.
 *
 * Return: true if the payload behind @n may stay in the guest's memory
 */
static bool vu_tcp_hdrs_copied(const uint8_t *buf, size_t n,
			       const struct link_offload *o)
{
	const struct pkt p = { buf, n };
	const uint8_t *th;

	if (!(o->flags & VNET_F_NEEDS_CSUM) ||
	    o->csum_offset != offsetof(struct tcphdr, check))
		return false;
	th = pkt_get(&p, o->csum_start, sizeof(struct tcphdr));
	/* The data offset: the header's length in 32-bit words */
	return th && pkt_get(&p, 0, o->csum_start + (size_t)(th[12] >> 4) * 4);
}

/**
 * vu_tx_copy() - copy what netshim needs of a guest frame
 * @c:		execution context
 * @e:		its chain
 * @hdr:	virtio-net header length
 * @flen:	frame length
 * @o:		its offloads
 * @buf:	where the frame goes, @flen bytes of room
 *
 * The guest can rewrite its buffers while we parse, so what is parsed is
 * a copy.  Of a TCP frame with a partial checksum, which nothing reads
 * but the socket, only the headers are: the payload stays in the guest's
 * memory and goes to the socket from there (link_iov_resolve()).  Not
 * while capturing, which would write what was never copied.
 *
 * Return: bytes copied
 */
static size_t vu_tx_copy(struct ctx *c, const struct vq_elem *e, size_t hdr,
			 size_t flen, const struct link_offload *o,
			 uint8_t *buf)
{
	size_t n = flen < VU_TX_HDR_COPY ? flen : VU_TX_HDR_COPY;

	iov_to_buf(e->iov, e->n_out, hdr, buf, n);
	if (flen > n && c->pcap_fd < 0 && vu_tcp_hdrs_copied(buf, n, o)) {
		c->cnt.payload_in_place++;
		return n;
	}
	iov_to_buf(e->iov, e->n_out, hdr + n, buf + n, flen - n);
	return flen;
}

/**
 * vu_resolve() - where bytes of a frame of the batch are: the copy, or
 *		  the guest's buffers for what was not copied
 * @c:		execution context
 * @in:		bytes as the layers above saw them
 * @out:	filled in
 * @max:	entries @out has
 *
 * Return: entries used, 0 if @max is too few
 */
static size_t vu_resolve(struct ctx *c, const struct iovec *in,
			 struct iovec *out, size_t max)
{
	struct vu_link *v = c->link.vu;
	const uint8_t *p = in->iov_base, *base = c->link.rx.buf;
	size_t len = in->iov_len, rel, k = 0, skip;
	const struct vq_elem *e;
	unsigned int j;
	int i;

	for (i = 0; i < v->nframes; i++) {
		if (p >= base + v->fpos[i] &&
		    p < base + v->fpos[i] + v->flen[i])
			break;
	}
	if (i == v->nframes || v->fcopy[i] == v->flen[i] ||
	    len > v->flen[i] - (size_t)(p - base - v->fpos[i])) {
		if (!max)
			return 0;
		*out = *in;
		return 1;
	}

	rel = (size_t)(p - base) - v->fpos[i];
	if (rel < v->fcopy[i]) {
		size_t l = v->fcopy[i] - rel < len ? v->fcopy[i] - rel : len;

		if (!max)
			return 0;
		out[k].iov_base = (void *)p;
		out[k++].iov_len = l;
		rel += l;
		len -= l;
	}
	e = &v->elem[i];
	skip = vu_vnet_hdr_len(&v->dev) + rel;
	for (j = 0; j < e->n_out && len; j++) {
		size_t l = e->iov[j].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		if (k == max)
			return 0;
		l -= skip;
		if (l > len)
			l = len;
		out[k].iov_base = (uint8_t *)e->iov[j].iov_base + skip;
		out[k++].iov_len = l;
		len -= l;
		skip = 0;
	}
	return k;
}

/**
 * vu_tx_take() - take and copy one batch of guest frames, for the loop to
 *		  hand up
 * @c:		execution context
 *
 * Return: chains taken, frames dropped on the way included; -1 if the
 * front-end was dropped meanwhile
 */
static int vu_tx_take(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[VU_TX_Q];
	size_t hdr = vu_vnet_hdr_len(&v->dev), off = 0;
	int n, i;

	for (n = 0; n < VU_TX_BATCH; n++) {
		struct vq_elem *e = &v->elem[n];
		enum vq_result r = vq_pop(vq, &v->dev.mem, e);

		if (r == VQ_EMPTY)
			break;
		if (r == VQ_BROKEN) {
			vu_drop(c, "broken transmit queue");
			return -1;
		}
		v->flen[n] = vu_frame_len(c, e, hdr);
		if (v->flen[n] && !vu_frame_hdr(c, e, v->flen[n], &v->off[n]))
			v->flen[n] = 0;
		if (v->flen[n] > c->link.rx.size - off) {
			vq_unpop(vq, 1);
			break;
		}
		v->fpos[n] = off;
		v->fcopy[n] = vu_tx_copy(c, e, hdr, v->flen[n], &v->off[n],
					 c->link.rx.buf + off);
		off += v->flen[n];
	}

	v->nframes = n;
	for (i = 0; i < n; i++) {
		struct pkt frame = { c->link.rx.buf + v->fpos[i], v->flen[i] };

		if (frame.len)
			link_frame_in(c, &frame, v->fcopy[i], &v->off[i]);
	}
	return n;
}

/**
 * vu_tx_give_back() - give the chains of a handled batch back to the guest
 * @c:		execution context
 */
static void vu_tx_give_back(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[VU_TX_Q];
	int i;

	for (i = 0; i < v->nframes; i++)
		vq_push(vq, v->elem[i].head, 0, i);
	vq_flush(vq, v->nframes);
	v->tx_done += v->nframes;
	v->nframes = 0;
}

/**
 * vu_tx_end() - the transmit queue is empty or had its turn
 * @c:		execution context
 */
static void vu_tx_end(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[VU_TX_Q];

	/* One interrupt for every batch taken since the kick, not one per
	 * batch: the driver only frees the buffers, it has no hurry, and a
	 * producer as fast as we are would otherwise get one per frame.
	 */
	if (v->tx_done && vq_ready(vq))
		vu_notify(vq);
	/* Budget spent with more to come: kick ourselves, so other events
	 * get their turn first and the rest is not forgotten.
	 */
	if (v->tx_done >= VU_TX_BUDGET && vq->kick_fd >= 0) {
		uint64_t one = 1;

		if (write(vq->kick_fd, &one, sizeof(one)) < 0)
			debug("vhost-user: kick eventfd: %m");
	}
	v->tx_done = 0;
}

/**
 * vu_tx_next() - the next batch of guest frames for the loop, if the
 *		  queue has one and its turn is not over
 * @c:		execution context
 *
 * A batch whose frames were all dropped goes back at once.
 */
static void vu_tx_next(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[VU_TX_Q];

	while (vq_ready(vq) && v->tx_done < VU_TX_BUDGET) {
		int n = vu_tx_take(c);

		if (n < 0)
			return;
		if (!n)
			break;
		if (c->link.in_n)
			return;
		vu_tx_give_back(c);
	}
	vu_tx_end(c);
}

/**
 * vu_in_done() - the loop handled the batch: its chains go back, and the
 *		  next batch comes in
 * @c:		execution context
 */
static void vu_in_done(struct ctx *c)
{
	vu_tx_give_back(c);
	vu_tx_next(c);
}

/**
 * vu_tx() - the guest kicked its transmit queue: take what it sent
 * @c:		execution context
 */
static void vu_tx(struct ctx *c)
{
	c->link.vu->tx_done = 0;
	vu_tx_next(c);
}

/**
 * vu_rx_frame() - copy one queued frame into the guest's receive buffers
 * @c:		execution context
 * @vq:		receive queue, vq_ready()
 * @frame:	the frame
 * @len:	its length
 * @pushed:	used entries filled and not yet published, updated
 *
 * Return: 1 if the frame is done with (copied or dropped), 0 if the guest
 * has no room for it now, -1 if the front-end was dropped
 */
static int vu_rx_frame(struct ctx *c, struct vq *vq, const uint8_t *frame,
		       size_t len, unsigned int *pushed)
{
	struct vu_link *v = c->link.vu;
	size_t hdr = vu_vnet_hdr_len(&v->dev), got = 0, done = 0;
	bool mrg = v->dev.features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);
	uint8_t h[VNET_HDR_LEN] = { 0 };
	unsigned int k, i;

	for (k = 0; got < hdr + len; k++) {
		enum vq_result r;

		if (k == VU_RX_ELEMS || (k && !mrg)) {
			/* Without MRG_RXBUF one buffer must hold the frame */
			vq_unpop(vq, k);
			c->cnt.drop_vu_rxbuf++;
			return 1;
		}
		r = vq_pop(vq, &v->dev.mem, &v->rx_elem[k]);
		if (r == VQ_BROKEN) {
			vu_drop(c, "broken receive queue");
			return -1;
		}
		if (r == VQ_EMPTY) {
			vq_unpop(vq, k);
			return 0;
		}
		got += v->rx_elem[k].in_len;
	}

	memcpy(h, lq_meta(&c->link.tx, (uint8_t *)frame), VNET_HDR_BASE_LEN);
	/* num_buffers: how many chains the frame spans (5.1.6.4) */
	if (hdr == VNET_HDR_LEN) {
		h[VNET_HDR_NUM_BUFFERS] = k & 0xff;
		h[VNET_HDR_NUM_BUFFERS + 1] = k >> 8;
	}
	for (i = 0; i < k; i++) {
		const struct vq_elem *e = &v->rx_elem[i];
		const struct iovec *iov = e->iov + e->n_out;
		size_t w = 0;

		if (!i)
			w = iov_from_buf(iov, e->n_in, 0, h, hdr);
		w += iov_from_buf(iov, e->n_in, w, frame + done, len - done);
		done += w - (i ? 0 : hdr);
		vq_push(vq, e->head, (uint32_t)w, (*pushed)++);
	}
	return 1;
}

/**
 * vu_ip_release() - give back the receive chains reserved for frames in
 *		     place that were never committed
 * @c:		execution context
 *
 * Before anything else takes chains from the receive queue, or changes
 * it: chains are given back by rewinding, so they must be the last taken.
 */
static void vu_ip_release(struct ctx *c)
{
	struct vu_link *v = c->link.vu;

	if (v->ip_popped > v->ip_used)
		vq_unpop(&v->dev.vq[VU_RX_Q], v->ip_popped - v->ip_used);
	v->ip_popped = v->ip_used = 0;
	v->ip_frames = v->ip_next = 0;
}

/**
 * vu_ip_map() - lay one frame out over the receive chains taken for it
 * @v:		back-end state
 * @first:	its first chain in @v->ip_elem
 * @end:	one past its last chain
 * @vnet:	virtio-net header length, at the start of the first chain
 * @hlen:	header bytes, which must be in one piece
 * @plen:	payload bytes behind them
 * @f:		filled in
 *
 * Return: true if the headers are in one buffer and the payload in at
 * most LINK_FRAME_IOV
 */
static bool vu_ip_map(const struct vu_link *v, unsigned int first,
		      unsigned int end, size_t vnet, size_t hlen, size_t plen,
		      struct link_frame *f)
{
	size_t off = 0, want = plen;
	bool hdr_done = false;
	unsigned int j, i;

	if (v->ip_elem[first].in_len < vnet)
		return false;
	f->niov = 0;
	f->room = 0;
	f->hlen = hlen;
	for (j = first; j < end && want; j++) {
		const struct vq_elem *e = &v->ip_elem[j];

		for (i = 0; i < e->n_in && want; i++) {
			const struct iovec *b = &e->iov[e->n_out + i];
			uint8_t *p = b->iov_base;
			size_t l = b->iov_len, skip = 0;

			if (off + l <= vnet) {
				off += l;
				continue;
			}
			if (off < vnet)
				skip = vnet - off;
			off += l;
			if (!hdr_done) {
				if (l - skip < hlen)
					return false;
				f->l2 = p + skip;
				skip += hlen;
				hdr_done = true;
			}
			if (skip == l)
				continue;
			if (f->niov == LINK_FRAME_IOV)
				return false;
			f->iov[f->niov].iov_base = p + skip;
			f->iov[f->niov].iov_len = l - skip < want ? l - skip :
						  want;
			want -= f->iov[f->niov++].iov_len;
		}
	}
	f->room = plen - want;
	return hdr_done && !want;
}

/**
 * vu_reserve_frames() - take receive chains for frames built in place
 * @c:		execution context
 * @hlen:	header bytes of each frame
 * @plen:	payload bytes of each
 * @n:		frames wanted, at most LINK_RESERVE_MAX
 * @f:		filled in
 *
 * Each frame takes the chains its virtio-net header, headers and payload
 * need (one without MRG_RXBUF); the guest's buffers are only ever written
 * here, never read, so what it does with them meanwhile is its business.
 *
 * Return: frames reserved, 0 if the guest has no buffer now (a kick
 * resumes), -1 if its buffers cannot hold this layout
 */
static int vu_reserve_frames(struct ctx *c, size_t hlen, size_t plen, int n,
			     struct link_frame *f)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[VU_RX_Q];
	bool mrg = v->dev.features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);
	size_t vnet = vu_vnet_hdr_len(&v->dev), need = vnet + hlen + plen;
	unsigned int first;
	int k, tries = 0;

	vu_ip_release(c);
	if (!vq_ready(vq))
		return -1;
	for (k = 0; k < n; k++) {
		size_t got = 0;

		first = v->ip_popped;
		while (got < need) {
			enum vq_result r = VQ_EMPTY;

			if (v->ip_popped == VU_IP_CHAINS ||
			    (!mrg && v->ip_popped > first))
				break;
			r = vq_pop(vq, &v->dev.mem, &v->ip_elem[v->ip_popped]);
			if (r == VQ_BROKEN) {
				v->ip_popped = v->ip_used = 0;
				vu_drop(c, "broken receive queue");
				return 0;
			}
			if (r == VQ_EMPTY) {
				if (!k && v->ip_popped == first &&
				    vq_kick_me(vq) && ++tries < 3)
					continue;
				break;
			}
			got += v->ip_elem[v->ip_popped++].in_len;
		}
		if (got < need || !vu_ip_map(v, first, v->ip_popped, vnet,
					     hlen, plen, &f[k])) {
			vq_unpop(vq, v->ip_popped - first);
			v->ip_popped = first;
			break;
		}
		v->ip_first[k] = first;
		f[k].slot = k;
		/* One chain: committed short, it still takes just that one */
		f[k].whole = v->ip_popped - first == 1;
	}
	v->ip_first[k] = v->ip_popped;
	v->ip_frames = k;
	if (k)
		return k;
	/* No chain at all: wait for the guest's kick; chains that were
	 * there but too small for the layout: the queue copies instead
	 */
	if (vq_avail_count(vq) > 0)
		return -1;
	c->link.blocked = true;
	return 0;
}

/**
 * vu_commit_frame() - hand a frame built in place to the guest
 * @c:		execution context
 * @f:		the frame, from vu_reserve_frames()
 * @plen:	payload bytes in it
 * @o:		its offloads, NULL for none
 *
 * The used entries are published now and the guest told at the end of
 * the loop iteration (link_flush()).  A frame shorter than reserved keeps
 * the chains it does not need, and every later reservation of the batch,
 * for vu_ip_release().
 */
static void vu_commit_frame(struct ctx *c, struct link_frame *f, size_t plen,
			    const struct link_offload *o)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[VU_RX_Q];
	size_t vnet = vu_vnet_hdr_len(&v->dev), left = vnet + f->hlen + plen;
	uint8_t h[VNET_HDR_LEN] = { 0 };
	unsigned int j, m = 0, first;

	if (f->slot != v->ip_next || f->slot >= v->ip_frames ||
	    v->ip_used != v->ip_first[f->slot]) {
		/* Out of order, or behind a short frame: cannot be */
		c->cnt.drop_tx_full++;
		return;
	}
	first = v->ip_first[f->slot];
	for (j = first; j < v->ip_first[f->slot + 1] && left; j++, m++) {
		size_t l = v->ip_elem[j].in_len < left ?
			   v->ip_elem[j].in_len : left;

		vq_push(vq, v->ip_elem[j].head, (uint32_t)l, m);
		left -= l;
	}
	vnet_hdr_build(h, o);
	if (vnet == VNET_HDR_LEN) {
		h[VNET_HDR_NUM_BUFFERS] = m & 0xff;
		h[VNET_HDR_NUM_BUFFERS + 1] = m >> 8;
	}
	iov_from_buf(v->ip_elem[first].iov + v->ip_elem[first].n_out,
		     v->ip_elem[first].n_in, 0, h, vnet);
	vq_flush(vq, m);
	v->ip_used = first + m;
	v->ip_next = f->slot + 1;
	c->link.notify_due = true;
}

/**
 * vu_flush() - copy queued frames into the guest's receive buffers
 * @c:		execution context
 *
 * Return: 0 when everything went, 1 when some wait for buffers, -1 if the
 * front-end was dropped
 */
static int vu_flush(struct ctx *c)
{
	struct vq *vq = &c->link.vu->dev.vq[VU_RX_Q];
	unsigned int pushed = 0;
	int r = 1, tries = 0;
	uint8_t *frame;
	size_t len;

	vu_ip_release(c);
	if (c->link.notify_due && vq_ready(vq))
		vu_notify(vq);
	c->link.notify_due = false;
	if (!vq_ready(vq)) {
		c->link.blocked = lq_pending(&c->link.tx);
		return c->link.blocked ? 1 : 0;
	}
	while (lq_peek(&c->link.tx, &frame, &len)) {
		r = vu_rx_frame(c, vq, frame, len, &pushed);
		if (r < 0)
			return -1;
		if (r == 0) {
			/* Full: wait for the driver's kick, unless it
			 * added buffers while we asked for one
			 */
			if (vq_kick_me(vq) && ++tries < 3)
				continue;
			break;
		}
		lq_drop_head(&c->link.tx);
	}
	if (pushed) {
		vq_flush(vq, pushed);
		vu_notify(vq);
	}
	if (vu_fault_check(c))
		return -1;
	c->link.blocked = lq_pending(&c->link.tx);
	return c->link.blocked ? 1 : 0;
}

/**
 * vu_rx_kick() - the guest added receive buffers
 * @c:		execution context
 */
static void vu_rx_kick(struct ctx *c)
{
	vu_flush(c);
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
	struct cmsghdr *cm;
	bool extra = false;
	ssize_t n;

	n = recvmsg(c->link.fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t i, nfd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			if (v->nfds < VU_FDS_MAX) {
				v->fds[v->nfds++] = fd;
			} else {
				close(fd);
				extra = true;
			}
		}
	}
	if (extra || (mh.msg_flags & MSG_CTRUNC)) {
		errno = EPROTO;
		return -1;
	}
	v->in_len += (size_t)n;
	return n;
}

/**
 * vu_forget_fds() - close descriptors received with no message to take them
 * @v:		back-end state
 */
static void vu_forget_fds(struct vu_link *v)
{
	unsigned int i;

	for (i = 0; i < v->nfds; i++)
		close(v->fds[i]);
	v->nfds = 0;
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
	r = vu_handle(&v->dev, m);
	if (r == VU_DROP) {
		vu_drop(c, vu_request_name(m->request));
		return -1;
	}
	vu_caps_update(c);
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
	if (vu_kick_register(c)) {
		vu_drop(c, "kick eventfd refused by epoll");
		return -1;
	}
	if (lq_pending(&c->link.tx))
		vu_rx_kick(c);
	/* A queue may have just started with buffers already waiting */
	if (c->link.fd >= 0 && vq_ready(&v->dev.vq[VU_TX_Q]))
		vu_tx(c);
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
		 * next request may change the memory they are in
		 */
		if (v->in_len == (size_t)need) {
			if (vu_request(c) || c->link.in_n)
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
	if (idx - 1 == VU_TX_Q)
		vu_tx(c);
	else
		vu_rx_kick(c);
	vu_fault_check(c);
}

/**
 * vu_close() - forget the front-end: its memory, eventfds, guest and flows
 * @c:		execution context
 * @why:	reason, for the log
 */
static void vu_close(struct ctx *c, const char *why)
{
	struct vu_link *v = c->link.vu;

	if (c->link.fd < 0)
		return;
	vu_kick_unregister(c);
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->link.fd, NULL);
	close(c->link.fd);
	c->link.fd = -1;
	vu_forget_fds(v);
	v->in_len = 0;
	v->ip_popped = v->ip_used = 0;
	v->ip_frames = v->ip_next = 0;
	v->nframes = 0;
	v->tx_done = 0;
	vu_dev_reset(&v->dev);
	link_gone(c, why);
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
	.setup		= vu_setup,
	.listen		= link_listen,
	.adopt		= vu_adopt,
	.accept		= vu_accept,
	.event		= vu_event,
	.flush		= vu_flush,
	.in_done	= vu_in_done,
	.close		= vu_close,
	.reserve_frames	= vu_reserve_frames,
	.commit_frame	= vu_commit_frame,
	.resolve	= vu_resolve,
};
