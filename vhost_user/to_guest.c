// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - vhost-user: frames to the guest, into its receive queue
 *
 * Frames queued for the guest (link/queue.c) are copied into its receive
 * buffers behind the virtio-net header when the loop flushes; frames of
 * one layout may instead be built right in those buffers
 * (vu_reserve_frames(), vu_commit_frame()), one interrupt per batch.
 * Each frame goes to the receive queue of the pair it was reserved on
 * (tx_reserve(), LINK_QP()), among the pairs the guest has in use.
 */
#include <string.h>

#include "link/queue.h"
#include "netshim/iov.h"
#include "netshim/log.h"
#include "vu.h"

/**
 * vu_log_elem() - mark the receive buffers of a chain written, while the
 *		   front-end migrates the guest and logs what netshim writes
 * @v:		back-end state
 * @e:		the chain
 * @len:	bytes written to it, from its start
 */
static void vu_log_elem(const struct vu_link *v, const struct vq_elem *e,
			size_t len)
{
	const struct iovec *iov = e->iov + e->n_out;
	unsigned int i;

	if (!v->dev.log.on)
		return;
	for (i = 0; i < e->n_in && len; i++) {
		size_t l = iov[i].iov_len < len ? iov[i].iov_len : len;

		vu_log_va(&v->dev.log, &v->dev.mem, iov[i].iov_base, l);
		len -= l;
	}
}

/**
 * vu_rx_pairs() - queue pairs in use: the guest takes pairs from the first
 *		   on (virtio 5.1.6.5.5), and their receive queues are ready
 * @v:		back-end state
 *
 * Return: how many, 0 if not even the first one's
 */
static unsigned int vu_rx_pairs(const struct vu_link *v)
{
	unsigned int n = 0;

	while (n < VU_PAIRS && vq_ready(&v->dev.vq[2 * n]))
		n++;
	return n;
}

/**
 * vu_rxq() - the receive queue of the pair a frame was reserved on
 * @pairs:	pairs in use, vu_rx_pairs(), at least 1
 * @qp:		the pair (tx_reserve()), folded into those in use
 *
 * Return: the queue's index
 */
static unsigned int vu_rxq(unsigned int pairs, uint8_t qp)
{
	return 2 * (qp % pairs);
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
		vu_log_elem(v, e, w);
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
void vu_ip_release(struct ctx *c)
{
	struct vu_link *v = c->link.vu;

	if (v->ip_popped > v->ip_used)
		vq_unpop(&v->dev.vq[v->ip_q], v->ip_popped - v->ip_used);
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
 * @qp:		queue pair they go to: chains of its receive queue
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
int vu_reserve_frames(struct ctx *c, uint8_t qp, size_t hlen, size_t plen,
		      int n, struct link_frame *f)
{
	struct vu_link *v = c->link.vu;
	bool mrg = v->dev.features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);
	size_t vnet = vu_vnet_hdr_len(&v->dev), need = vnet + hlen + plen;
	unsigned int first, pairs;
	struct vq *vq;

	/* Room for the padding vu_commit_frame() may add */
	if (hlen + plen < ETH_ZLEN_)
		need = vnet + ETH_ZLEN_;
	int k, tries = 0;

	vu_ip_release(c);
	pairs = vu_rx_pairs(v);
	if (!pairs)
		return -1;
	v->ip_q = vu_rxq(pairs, qp);
	vq = &v->dev.vq[v->ip_q];
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
void vu_commit_frame(struct ctx *c, struct link_frame *f, size_t plen,
		     const struct link_offload *o)
{
	static const uint8_t zeros[ETH_ZLEN_];
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[v->ip_q];
	size_t vnet = vu_vnet_hdr_len(&v->dev), len = f->hlen + plen, left;
	uint8_t h[VNET_HDR_LEN] = { 0 };
	unsigned int j, m = 0, first;

	if (f->slot != v->ip_next || f->slot >= v->ip_frames ||
	    v->ip_used != v->ip_first[f->slot]) {
		/* Out of order, or behind a short frame: cannot be */
		c->cnt.drop_tx_full++;
		return;
	}
	first = v->ip_first[f->slot];
	/* Padded as tx_commit_offload() pads, in the first chain, which
	 * vu_reserve_frames() made hold it whenever it holds the frame
	 */
	if (len < ETH_ZLEN_ &&
	    iov_from_buf(v->ip_elem[first].iov + v->ip_elem[first].n_out,
			 v->ip_elem[first].n_in, vnet + len, zeros,
			 ETH_ZLEN_ - len) == ETH_ZLEN_ - len)
		len = ETH_ZLEN_;
	left = vnet + len;
	for (j = first; j < v->ip_first[f->slot + 1] && left; j++, m++) {
		size_t l = v->ip_elem[j].in_len < left ?
			   v->ip_elem[j].in_len : left;

		vu_log_elem(v, &v->ip_elem[j], l);
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
	v->rx_due |= 1U << (v->ip_q / 2);
	c->link.notify_due = true;
}

/**
 * vu_flush() - copy queued frames into the guest's receive buffers
 * @c:		execution context
 *
 * Frames go in their order, each to its pair's receive queue: one whose
 * queue is full waits, and the frames behind it with it, for that queue's
 * kick.
 *
 * Return: 0 when everything went, 1 when some wait for buffers, -1 if the
 * front-end was dropped
 */
int vu_flush(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	unsigned int pushed[VU_PAIRS] = { 0 }, pairs, p;
	int r = 1, tries = 0;
	uint8_t *frame;
	size_t len;

	vu_ip_release(c);
	pairs = vu_rx_pairs(v);
	for (p = 0; c->link.notify_due && p < pairs; p++)
		if (v->rx_due & (1U << p))
			vu_notify(&v->dev.vq[2 * p]);
	c->link.notify_due = false;
	v->rx_due = 0;
	if (!pairs) {
		c->link.blocked = lq_pending(&c->link.tx);
		return c->link.blocked ? 1 : 0;
	}
	while (lq_peek(&c->link.tx, &frame, &len)) {
		unsigned int q = vu_rxq(pairs, LINK_QP(frame));
		struct vq *vq = &v->dev.vq[q];

		r = vu_rx_frame(c, vq, frame, len, &pushed[q / 2]);
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
	for (p = 0; p < pairs; p++) {
		if (!pushed[p])
			continue;
		vq_flush(&v->dev.vq[2 * p], pushed[p]);
		vu_notify(&v->dev.vq[2 * p]);
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
void vu_rx_kick(struct ctx *c)
{
	vu_flush(c);
}
