// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - vhost-user: the device handed to a new netshim as it runs
 *
 * An upgrade in place (daemon/upgrade.c) keeps the front-end's
 * connection, so the front-end never negotiates again: the new netshim
 * adopts what it set up with the old one, the features acknowledged,
 * the memory table (each region's file, mapped again here), the dirty
 * log if one is given, and every queue as it stands: its size and ring
 * addresses, the available entry to take next and the used index as the
 * old netshim last wrote it, its kick, call and error eventfds.  The
 * guest's rings go on from there; a kick the old netshim never took
 * wakes the new one, whose epoll finds the eventfd readable.  Nothing the
 * front-end sent but half a message is lost either: its bytes and
 * descriptors move too.
 *
 * Section part, integers little endian as vhost-user's own, every count
 * checked on the way in: the features offered, acknowledged and the
 * protocol's (8 each), flags (1: features set, log on, a log given),
 * regions (1), each region's guest-physical address, size, front-end
 * address and file offset (8 each) and file; with a log its size and
 * offset (8 each) and file; then per queue (VU_QUEUES): size (4), the
 * three ring addresses and the used ring's for the log (8 each), next
 * available, used index, last signalled (2 each), flags (2: VU_UP_Q_*),
 * then the eventfds its flags announce; the message being received (4,
 * then its bytes), its descriptors (1, then each one).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "vu.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define VU_UP_SET		0x01	/* SET_FEATURES came */
#define VU_UP_LOG		0x02	/* a dirty log is mapped */

#define VU_UP_Q_VALID		0x0001	/* @signalled is meaningful */
#define VU_UP_Q_EVENT_IDX	0x0002
#define VU_UP_Q_INDIRECT	0x0004
#define VU_UP_Q_ENABLED		0x0008
#define VU_UP_Q_STARTED		0x0010
#define VU_UP_Q_BROKEN		0x0020
#define VU_UP_Q_LOG_USED	0x0040
#define VU_UP_Q_KICK		0x0100	/* an eventfd follows */
#define VU_UP_Q_CALL		0x0200
#define VU_UP_Q_ERR		0x0400
#define VU_UP_Q_ALL		0x077f

/**
 * vu_up_u64() - write a 64-bit value, host order as vhost-user's
 * @io:		the stream
 * @v:		value
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int vu_up_u64(struct migio *io, uint64_t v)
{
	return migio_put(io, &v, sizeof(v));
}

/**
 * vu_up_queue_save() - write one queue
 * @io:		the stream
 * @vq:		the queue
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int vu_up_queue_save(struct migio *io, const struct vq *vq)
{
	uint16_t f = (vq->signalled_valid ? VU_UP_Q_VALID : 0) |
		     (vq->event_idx ? VU_UP_Q_EVENT_IDX : 0) |
		     (vq->indirect ? VU_UP_Q_INDIRECT : 0) |
		     (vq->enabled ? VU_UP_Q_ENABLED : 0) |
		     (vq->started ? VU_UP_Q_STARTED : 0) |
		     (vq->broken ? VU_UP_Q_BROKEN : 0) |
		     (vq->log_used ? VU_UP_Q_LOG_USED : 0) |
		     (vq->kick_fd >= 0 ? VU_UP_Q_KICK : 0) |
		     (vq->call_fd >= 0 ? VU_UP_Q_CALL : 0) |
		     (vq->err_fd >= 0 ? VU_UP_Q_ERR : 0);

	return migio_put(io, &vq->num, 4) || vu_up_u64(io, vq->desc_uva) ||
	       vu_up_u64(io, vq->avail_uva) || vu_up_u64(io, vq->used_uva) ||
	       vu_up_u64(io, vq->log_used_gpa) ||
	       migio_put(io, &vq->last_avail, 2) ||
	       migio_put(io, &vq->used_idx, 2) ||
	       migio_put(io, &vq->signalled, 2) || migio_put(io, &f, 2) ||
	       (vq->kick_fd >= 0 && migio_put_fd(io, vq->kick_fd)) ||
	       (vq->call_fd >= 0 && migio_put_fd(io, vq->call_fd)) ||
	       (vq->err_fd >= 0 && migio_put_fd(io, vq->err_fd)) ? -1 : 0;
}

/**
 * vu_upgrade_save() - write the device for a netshim taking over
 * @c:		execution context, between two events: no chain is held
 * @io:		the stream, after the link's part
 *
 * Return: 0 on success, -1 with @io->err set
 */
int vu_upgrade_save(struct ctx *c, struct migio *io)
{
	struct vu_link *v = c->link.vu;
	struct vu_dev *d = &v->dev;
	uint8_t f = (d->features_set ? VU_UP_SET : 0) |
		    (d->log.map ? VU_UP_LOG : 0);
	uint8_t nr = (uint8_t)d->mem.n, nfds = (uint8_t)v->nfds;
	unsigned int i;

	/* Chains taken for frames built in place go back to the ring */
	vu_ip_release(c);
	if (vu_up_u64(io, d->offer) || vu_up_u64(io, d->features) ||
	    vu_up_u64(io, d->protocol) || migio_put(io, &f, 1) ||
	    migio_put(io, &nr, 1))
		return -1;
	for (i = 0; i < d->mem.n; i++) {
		const struct vu_region *r = &d->mem.r[i];

		if (r->fd < 0) {
			io->err = EBADF;
			return -1;
		}
		if (vu_up_u64(io, r->gpa) || vu_up_u64(io, r->size) ||
		    vu_up_u64(io, r->uva) || vu_up_u64(io, r->mmap_off) ||
		    migio_put_fd(io, r->fd))
			return -1;
	}
	if (d->log.map && (d->log.fd < 0 || vu_up_u64(io, d->log.len) ||
			   vu_up_u64(io, d->log.off) ||
			   migio_put_fd(io, d->log.fd))) {
		io->err = io->err ? io->err : EBADF;
		return -1;
	}
	for (i = 0; i < VU_QUEUES; i++)
		if (vu_up_queue_save(io, &d->vq[i]))
			return -1;
	if (migio_put_u32(io, (uint32_t)v->in_len) ||
	    migio_put(io, v->in, v->in_len) || migio_put(io, &nfds, 1))
		return -1;
	for (i = 0; i < v->nfds; i++)
		if (migio_put_fd(io, v->fds[i]))
			return -1;
	return 0;
}

/**
 * vu_up_get64() - read a 64-bit value, host order
 * @io:		the stream
 * @v:		set
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int vu_up_get64(struct migio *io, uint64_t *v)
{
	return migio_get(io, v, sizeof(*v));
}

/**
 * vu_up_fd() - read an eventfd a queue's flags announce
 * @io:		the stream
 * @f:		the queue's flags
 * @bit:	the eventfd's
 * @fd:		set to it, -1 if not announced
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int vu_up_fd(struct migio *io, uint16_t f, uint16_t bit, int *fd)
{
	*fd = -1;
	return (f & bit) ? migio_get_fd(io, fd) : 0;
}

/**
 * vu_up_queue_load() - take one queue
 * @d:		device, its memory mapped
 * @io:		the stream
 * @vq:		the queue, reset
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int vu_up_queue_load(struct vu_dev *d, struct migio *io,
			    struct vq *vq)
{
	uint16_t f;

	if (migio_get(io, &vq->num, 4) || vu_up_get64(io, &vq->desc_uva) ||
	    vu_up_get64(io, &vq->avail_uva) ||
	    vu_up_get64(io, &vq->used_uva) ||
	    vu_up_get64(io, &vq->log_used_gpa) ||
	    migio_get(io, &vq->last_avail, 2) ||
	    migio_get(io, &vq->used_idx, 2) ||
	    migio_get(io, &vq->signalled, 2) || migio_get(io, &f, 2) ||
	    vu_up_fd(io, f, VU_UP_Q_KICK, &vq->kick_fd) ||
	    vu_up_fd(io, f, VU_UP_Q_CALL, &vq->call_fd) ||
	    vu_up_fd(io, f, VU_UP_Q_ERR, &vq->err_fd))
		return -1;
	vq->signalled_valid = f & VU_UP_Q_VALID;
	vq->event_idx = f & VU_UP_Q_EVENT_IDX;
	vq->indirect = f & VU_UP_Q_INDIRECT;
	vq->enabled = f & VU_UP_Q_ENABLED;
	vq->started = f & VU_UP_Q_STARTED;
	vq->broken = f & VU_UP_Q_BROKEN;
	vq->log_used = f & VU_UP_Q_LOG_USED;
	if ((f & ~VU_UP_Q_ALL) ||
	    (vq->num && (vq->num > VQ_NUM_MAX || (vq->num & (vq->num - 1)))) ||
	    (vq->started && vq->kick_fd < 0)) {
		io->err = EINVAL;
		return -1;
	}
	/* Rings not all in the table yet stay unmapped, as they were */
	if (vq->num && vq->desc_uva && d->mem.n)
		vq_map(vq, &d->mem);
	return 0;
}

/**
 * vu_up_regions() - map the regions of the memory table again
 * @d:		device, its table empty
 * @io:		the stream, at the number of regions
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int vu_up_regions(struct vu_dev *d, struct migio *io)
{
	uint8_t n, i;

	if (migio_get(io, &n, 1))
		return -1;
	if (n > VU_MEM_SLOTS) {
		io->err = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct vu_region r = { 0 };
		int fd, ret;

		if (vu_up_get64(io, &r.gpa) || vu_up_get64(io, &r.size) ||
		    vu_up_get64(io, &r.uva) || vu_up_get64(io, &r.mmap_off) ||
		    migio_get_fd(io, &fd))
			return -1;
		ret = vu_mem_add(&d->mem, &r, fd);
		if (ret) {
			close(fd);
			io->err = ret == -EINVAL || ret == -ENOSPC ? EINVAL :
								    -ret;
			return -1;
		}
		d->mem.r[d->mem.n - 1].fd = fd;
	}
	return 0;
}

/**
 * vu_up_caps() - the offloads the guest took, for the layers above
 * @c:		execution context
 */
static void vu_up_caps(struct ctx *c)
{
	uint64_t f = c->link.vu->dev.features;
	struct link_caps caps = {
		.csum = f & (1ULL << VIRTIO_NET_F_GUEST_CSUM),
		.tso4 = f & (1ULL << VIRTIO_NET_F_GUEST_TSO4),
		.tso6 = f & (1ULL << VIRTIO_NET_F_GUEST_TSO6),
	};

	link_caps_set(c, &caps);
}

/**
 * vu_upgrade_load() - take the device from the netshim handing over
 * @c:		execution context, the front-end's connection adopted
 * @io:		the stream, after the link's part
 *
 * The features acknowledged must be ones this netshim knows: a device it
 * cannot drive is refused, not served wrong.
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
int vu_upgrade_load(struct ctx *c, struct migio *io)
{
	struct vu_link *v = c->link.vu;
	struct vu_dev *d = &v->dev;
	uint32_t in_len;
	uint8_t f, nfds;
	unsigned int i;

	if (vu_up_get64(io, &d->offer) || vu_up_get64(io, &d->features) ||
	    vu_up_get64(io, &d->protocol) || migio_get(io, &f, 1))
		return -1;
	if ((f & ~(VU_UP_SET | VU_UP_LOG)) ||
	    (d->features & ~vu_features_offered(true)) ||
	    (d->offer & ~vu_features_offered(true)) ||
	    (d->protocol & ~vu_protocol_offered())) {
		err("upgrade: the front-end's device has features this "
		    "netshim does not know");
		io->err = EINVAL;
		return -1;
	}
	d->features_set = f & VU_UP_SET;
	d->log.on = d->features & (1ULL << VU_F_LOG_ALL);
	if (vu_up_regions(d, io))
		return -1;
	if (f & VU_UP_LOG) {
		uint64_t size, off;
		int fd;

		if (vu_up_get64(io, &size) || vu_up_get64(io, &off) ||
		    migio_get_fd(io, &fd))
			return -1;
		if (vu_log_set(&d->log, fd, size, off)) {
			close(fd);
			io->err = EINVAL;
			return -1;
		}
		d->log.fd = fd;
	}
	for (i = 0; i < VU_QUEUES; i++)
		if (vu_up_queue_load(d, io, &d->vq[i]))
			return -1;
	if (migio_get_u32(io, &in_len) || in_len > sizeof(v->in) ||
	    migio_get(io, v->in, in_len) || migio_get(io, &nfds, 1) ||
	    nfds > VU_FDS_MAX) {
		io->err = io->err ? io->err : EINVAL;
		return -1;
	}
	v->in_len = in_len;
	for (i = 0; i < nfds; i++) {
		if (migio_get_fd(io, &v->fds[i]))
			return -1;
		v->nfds = i + 1;
	}
	vu_up_caps(c);
	if (vu_kick_register(c)) {
		io->err = errno;
		return -1;
	}
	return 0;
}
