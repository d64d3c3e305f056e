// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - vhost-user: frames from the guest, off its transmit queue
 *
 * When the transmit queue's kick eventfd fires, chains are taken a batch
 * at a time and their frames copied out of guest memory before they are
 * parsed (the guest may change them meanwhile), then put in the link's
 * batch for the loop to hand up; the chains go back to the guest once the
 * batch was handled (vu_in_done()).  Of a TCP frame with a partial
 * checksum only the headers are copied: the socket takes its payload from
 * guest memory (vu_resolve()).
 */
#include <stddef.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include "netshim/iov.h"
#include "netshim/log.h"
#include "vu.h"

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
size_t vu_resolve(struct ctx *c, const struct iovec *in,
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
 * @q:		the transmit queue to take it from
 *
 * Return: chains taken, frames dropped on the way included; -1 if the
 * front-end was dropped meanwhile
 */
static int vu_tx_take(struct ctx *c, unsigned int q)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[q];
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
	v->in_q = q;
	for (i = 0; i < n; i++) {
		struct pkt frame = { c->link.rx.buf + v->fpos[i], v->flen[i] };

		if (frame.len)
			link_frame_in(c, &frame, v->fcopy[i], &v->off[i],
				      (uint8_t)(q / 2));
	}
	return n;
}

/**
 * vu_tx_give_back() - give the chains of a handled batch back to the guest,
 *		       in the queue the batch was taken from
 * @c:		execution context
 */
static void vu_tx_give_back(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[v->in_q];
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
 * @q:		the queue
 */
static void vu_tx_end(struct ctx *c, unsigned int q)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[q];

	/* One interrupt for every batch taken since the kick, not one per
	 * batch: the driver only frees the buffers, it has no hurry, and a
	 * producer as fast as we are would otherwise get one per frame.
	 */
	if (v->tx_done && vq_ready(vq))
		vu_notify(vq);
	/* Budget spent with more to come: kick ourselves, so other events
	 * get their turn first and the rest is not forgotten.
	 */
	if (v->tx_done >= VU_TX_BUDGET)
		vu_kick_self(vq);
	v->tx_done = 0;
}

/**
 * vu_tx_next() - the next batch of guest frames for the loop, if the
 *		  queue has one and its turn is not over
 * @c:		execution context
 * @q:		the transmit queue being served
 *
 * A batch whose frames were all dropped goes back at once.
 */
static void vu_tx_next(struct ctx *c, unsigned int q)
{
	struct vu_link *v = c->link.vu;
	struct vq *vq = &v->dev.vq[q];

	while (vq_ready(vq) && v->tx_done < VU_TX_BUDGET) {
		int n = vu_tx_take(c, q);

		if (n < 0)
			return;
		if (!n)
			break;
		if (c->link.in_n)
			return;
		vu_tx_give_back(c);
	}
	vu_tx_end(c, q);
}

/**
 * vu_in_done() - the loop handled the batch: its chains go back, and the
 *		  next batch of the same queue comes in
 * @c:		execution context
 */
void vu_in_done(struct ctx *c)
{
	vu_tx_give_back(c);
	vu_tx_next(c, c->link.vu->in_q);
}

/**
 * vu_tx() - the guest kicked a transmit queue: take what it sent
 * @c:		execution context
 * @q:		the queue, VU_IS_TX()
 */
void vu_tx(struct ctx *c, unsigned int q)
{
	c->link.vu->tx_done = 0;
	vu_tx_next(c, q);
}

/**
 * vu_tx_waiting() - take what waits in transmit queues that just started
 * @c:		execution context
 *
 * One queue is served now; the others are kicked by us, so that each gets
 * its turn from the loop after the frames of this one went up.
 */
void vu_tx_waiting(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	bool served = false;
	unsigned int q;

	for (q = VU_TX_Q; q < VU_QUEUES && c->link.fd >= 0; q += 2) {
		if (!vq_ready(&v->dev.vq[q]))
			continue;
		if (!served) {
			served = true;
			vu_tx(c, q);
		} else {
			vu_kick_self(&v->dev.vq[q]);
		}
	}
}
