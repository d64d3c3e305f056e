// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - vhost-user: the device a front-end drives through messages
 *
 * Requests are handled as pure steps on struct vu_dev, apart from mapping
 * the memory table and closing descriptors: the socket, epoll and the
 * frames are the back-end's business (backend.c, from_guest.c,
 * to_guest.c).  Every payload is checked for the size its request needs
 * before it is read; a request that carries a reply gets one, and any
 * other gets one exactly when its NEED_REPLY flag asks: a front-end
 * waiting for a reply that never comes freezes its VM, one that gets an
 * unexpected reply loses track.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"

/**
 * vu_features_offered() - virtio features netshim's device offers
 * @all:	netshim's own as well: offloads both ways, indirect
 *		descriptors, event index, the guest's announcement
 *
 * A guest keeps the features its driver accepted at boot across a live
 * migration, and QEMU refuses to migrate it to a back-end that does not
 * offer every one of them.  So that a VM started on netshim can move to
 * passt (a cluster rolling back), only those every passt with migration
 * offers (2025-05 on: VERSION_1, MRG_RXBUF) are offered unless @all.
 * MQ stays: only a VMM configured for several queue pairs takes it, and
 * passt cannot serve such a VMM at all.
 *
 * Return: feature bits for GET_FEATURES
 */
uint64_t vu_features_offered(bool all)
{
	uint64_t f = 1ULL << VIRTIO_F_VERSION_1 |
		     1ULL << VIRTIO_NET_F_MRG_RXBUF |
		     1ULL << VIRTIO_NET_F_MQ |
		     1ULL << VU_F_LOG_ALL |
		     1ULL << VU_F_PROTOCOL_FEATURES;

	/* MQ and GUEST_ANNOUNCE need a control queue: QEMU and Cloud
	 * Hypervisor handle it themselves, so the guest may have both
	 * once a back-end says it can (QEMU masks them otherwise)
	 */
	if (all)
		f |= 1ULL << VIRTIO_NET_F_CSUM |
		     1ULL << VIRTIO_NET_F_GUEST_CSUM |
		     1ULL << VIRTIO_NET_F_GUEST_TSO4 |
		     1ULL << VIRTIO_NET_F_GUEST_TSO6 |
		     1ULL << VIRTIO_NET_F_HOST_TSO4 |
		     1ULL << VIRTIO_NET_F_HOST_TSO6 |
		     1ULL << VIRTIO_NET_F_HOST_ECN |
		     1ULL << VIRTIO_NET_F_GUEST_ANNOUNCE |
		     1ULL << VIRTIO_RING_F_INDIRECT_DESC |
		     1ULL << VIRTIO_RING_F_EVENT_IDX;
	return f;
}

/**
 * vu_protocol_offered() - vhost-user protocol features netshim has
 *
 * Return: feature bits for GET_PROTOCOL_FEATURES
 */
uint64_t vu_protocol_offered(void)
{
	return 1ULL << VU_PROTOCOL_F_MQ |
	       1ULL << VU_PROTOCOL_F_LOG_SHMFD |
	       1ULL << VU_PROTOCOL_F_RARP |
	       1ULL << VU_PROTOCOL_F_REPLY_ACK |
	       1ULL << VU_PROTOCOL_F_CONFIGURE_MEM_SLOTS |
	       1ULL << VU_PROTOCOL_F_DEVICE_STATE;
}

/**
 * vq_close_fds() - close the eventfds of a queue
 * @vq:		queue
 */
static void vq_close_fds(struct vq *vq)
{
	if (vq->kick_fd >= 0)
		close(vq->kick_fd);
	if (vq->call_fd >= 0)
		close(vq->call_fd);
	if (vq->err_fd >= 0)
		close(vq->err_fd);
	vq->kick_fd = vq->call_fd = vq->err_fd = -1;
}

/**
 * vu_dev_init() - a device no front-end has touched
 * @d:		device
 * @offer:	the virtio features it offers (vu_features_offered())
 */
void vu_dev_init(struct vu_dev *d, uint64_t offer)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->offer = offer;
	for (i = 0; i < VU_QUEUES; i++) {
		vq_reset(&d->vq[i]);
		d->vq[i].log = &d->log;
	}
	d->state_fd = -1;
	d->state_result = 1;
	d->log.fd = -1;
}

/**
 * vu_dev_reset() - forget a front-end: close its eventfds, unmap its memory
 * @d:		device
 */
void vu_dev_reset(struct vu_dev *d)
{
	unsigned int i;

	for (i = 0; i < VU_QUEUES; i++)
		vq_close_fds(&d->vq[i]);
	vu_mem_unmap(&d->mem);
	vu_log_unmap(&d->log);
	if (d->state_fd >= 0)
		close(d->state_fd);
	vu_dev_init(d, d->offer);
}

/**
 * vu_vnet_hdr_len() - length of the virtio-net header in front of frames
 * @d:		device
 *
 * Return: 12 bytes for VERSION_1 or MRG_RXBUF, else the legacy 10
 */
size_t vu_vnet_hdr_len(const struct vu_dev *d)
{
	if (d->features & (1ULL << VIRTIO_F_VERSION_1 |
			   1ULL << VIRTIO_NET_F_MRG_RXBUF))
		return VNET_HDR_LEN;
	return VNET_HDR_LEN - 2;
}

/**
 * vu_msg_need() - how long the message at the start of a buffer is
 * @buf:	bytes received so far
 * @len:	how many
 *
 * Return: bytes the whole message takes (the header's length while it is
 * incomplete), -1 if its payload is longer than any netshim reads
 */
long vu_msg_need(const uint8_t *buf, size_t len)
{
	uint32_t size;

	if (len < VU_HDR_LEN)
		return VU_HDR_LEN;
	memcpy(&size, buf + 8, 4);
	if (size > VU_PAYLOAD_MAX)
		return -1;
	return VU_HDR_LEN + (long)size;
}

/**
 * vu_msg_parse() - take a complete message from a buffer
 * @buf:	the message, vu_msg_need() bytes
 * @len:	its length
 * @m:		filled with it; descriptors are the caller's to add
 *
 * Return: true if @len is exactly one message of a version we speak
 */
bool vu_msg_parse(const uint8_t *buf, size_t len, struct vu_msg *m)
{
	long need = vu_msg_need(buf, len);

	if (need < 0 || len < VU_HDR_LEN || (size_t)need != len)
		return false;
	memcpy(&m->request, buf, 4);
	memcpy(&m->flags, buf + 4, 4);
	memcpy(&m->size, buf + 8, 4);
	if ((m->flags & VU_FLAG_VERSION_MASK) != VU_VERSION)
		return false;
	memset(&m->payload, 0, sizeof(m->payload));
	memcpy(m->payload.b, buf + VU_HDR_LEN, m->size);
	return true;
}

/**
 * vu_msg_encode() - lay out a reply for the socket
 * @m:		reply
 * @buf:	where
 * @size:	room there
 *
 * Return: bytes to send, 0 if they do not fit
 */
size_t vu_msg_encode(const struct vu_msg *m, uint8_t *buf, size_t size)
{
	if (m->size > VU_PAYLOAD_MAX || size < VU_HDR_LEN + m->size)
		return 0;
	memcpy(buf, &m->request, 4);
	memcpy(buf + 4, &m->flags, 4);
	memcpy(buf + 8, &m->size, 4);
	memcpy(buf + VU_HDR_LEN, m->payload.b, m->size);
	return VU_HDR_LEN + m->size;
}

/**
 * take_fd() - take one descriptor a message carried
 * @m:		message
 * @i:		which
 *
 * Return: the descriptor, now the caller's, or -1
 */
static int take_fd(struct vu_msg *m, unsigned int i)
{
	int fd;

	if (i >= m->nfds)
		return -1;
	fd = m->fds[i];
	m->fds[i] = -1;
	return fd;
}

/**
 * close_fds() - close every descriptor a message carried and nobody took
 * @m:		message
 */
static void close_fds(struct vu_msg *m)
{
	unsigned int i;

	for (i = 0; i < m->nfds; i++) {
		if (m->fds[i] >= 0)
			close(m->fds[i]);
		m->fds[i] = -1;
	}
	m->nfds = 0;
}

/**
 * reply_u64() - turn the message into its reply, a 64-bit value
 * @m:		message
 * @v:		value
 *
 * Return: VU_REPLY
 */
static enum vu_result reply_u64(struct vu_msg *m, uint64_t v)
{
	m->flags = VU_VERSION | VU_FLAG_REPLY;
	m->size = 8;
	memset(&m->payload, 0, sizeof(m->payload));
	m->payload.u64 = v;
	return VU_REPLY;
}

/**
 * ack() - the end of a request that carries no data back
 * @m:		message
 * @ok:		whether it succeeded
 *
 * Return: VU_REPLY with 0 or 1 if the front-end asked for an answer (the
 * REPLY_ACK convention), else VU_DONE
 */
static enum vu_result ack(struct vu_msg *m, bool ok)
{
	if (!(m->flags & VU_FLAG_NEED_REPLY))
		return VU_DONE;
	return reply_u64(m, ok ? 0 : 1);
}

/**
 * payload_u32() - a 32-bit field of the payload
 * @m:		message
 * @off:	offset, with 4 bytes there (the size was checked)
 *
 * Return: the value
 */
static uint32_t payload_u32(const struct vu_msg *m, size_t off)
{
	uint32_t v;

	memcpy(&v, m->payload.b + off, 4);
	return v;
}

/**
 * payload_u64() - a 64-bit field of the payload
 * @m:		message
 * @off:	offset, with 8 bytes there (the size was checked)
 *
 * Return: the value
 */
static uint64_t payload_u64(const struct vu_msg *m, size_t off)
{
	uint64_t v;

	memcpy(&v, m->payload.b + off, 8);
	return v;
}

/**
 * vq_remap() - find a queue's rings again, after its addresses or the
 *		memory table changed
 * @d:		device
 * @vq:		queue
 *
 * Return: true if its rings are mapped, or not all set up yet
 */
static bool vq_remap(struct vu_dev *d, struct vq *vq)
{
	if (!vq->num || !vq->desc_uva || !d->mem.n) {
		vq->desc = vq->avail = vq->used = NULL;
		return true;
	}
	return vq_map(vq, &d->mem);
}

/**
 * set_features() - the virtio features the driver accepted
 * @d:		device
 * @m:		SET_FEATURES
 *
 * Return: VU_DROP if the front-end claims a feature we did not offer
 */
static enum vu_result set_features(struct vu_dev *d, struct vu_msg *m)
{
	uint64_t f = m->payload.u64;
	unsigned int i;

	if (f & ~d->offer)
		return VU_DROP;
	d->features = f;
	d->features_set = true;
	d->log.on = f & (1ULL << VU_F_LOG_ALL);
	for (i = 0; i < VU_QUEUES; i++) {
		struct vq *vq = &d->vq[i];

		vq->event_idx = f & (1ULL << VIRTIO_RING_F_EVENT_IDX);
		vq->indirect = f & (1ULL << VIRTIO_RING_F_INDIRECT_DESC);
		/* Without protocol features, rings start enabled */
		if (!(f & (1ULL << VU_F_PROTOCOL_FEATURES)))
			vq->enabled = true;
		if (!vq_remap(d, vq))
			return ack(m, false);
	}
	return ack(m, true);
}

/**
 * set_mem_table() - map the guest's memory as the front-end describes it
 * @d:		device
 * @m:		SET_MEM_TABLE, one descriptor per region
 *
 * Return: VU_DROP if the table is malformed, else the acknowledgement
 */
static enum vu_result set_mem_table(struct vu_dev *d, struct vu_msg *m)
{
	struct vu_region r[VU_MEM_REGIONS_MAX];
	int fds[VU_MEM_REGIONS_MAX];
	uint32_t n, i;
	bool ok = true;

	if (m->size < VU_MEM_HDR_LEN)
		return VU_DROP;
	n = payload_u32(m, 0);
	if (!n || n > VU_MEM_REGIONS_MAX || n != m->nfds ||
	    m->size < VU_MEM_HDR_LEN + n * VU_MEM_REGION_LEN)
		return VU_DROP;
	memset(r, 0, sizeof(r));
	for (i = 0; i < n; i++) {
		size_t off = VU_MEM_HDR_LEN + i * VU_MEM_REGION_LEN;

		r[i].gpa = payload_u64(m, off);
		r[i].size = payload_u64(m, off + 8);
		r[i].uva = payload_u64(m, off + 16);
		r[i].mmap_off = payload_u64(m, off + 24);
		fds[i] = m->fds[i];
	}
	if (!vu_mem_regions_valid(r, n))
		return VU_DROP;
	if (vu_mem_map(&d->mem, r, n, fds))
		ok = false;
	/* The mappings hold the memory; the table keeps the descriptors,
	 * for a netshim that takes over (daemon/upgrade.c)
	 */
	for (i = 0; i < d->mem.n; i++)
		d->mem.r[i].fd = take_fd(m, i);
	close_fds(m);
	for (i = 0; i < VU_QUEUES; i++)
		if (!vq_remap(d, &d->vq[i]))
			ok = false;
	return ack(m, ok);
}

/**
 * vq_remap_all() - find every queue's rings again after the table changed
 * @d:		device
 *
 * A queue whose rings are no longer (or not yet) all in mapped memory
 * stops until they are: QEMU removes a region and adds it back, changed,
 * while the device runs, and re-adds come one message at a time.
 */
static void vq_remap_all(struct vu_dev *d)
{
	unsigned int i;

	for (i = 0; i < VU_QUEUES; i++)
		vq_remap(d, &d->vq[i]);
}

/**
 * mem_reg() - the region an ADD_MEM_REG or REM_MEM_REG carries
 * @d:		device
 * @m:		the message
 * @r:		filled with the region
 *
 * Return: false if the payload is short, or the front-end did not
 * negotiate CONFIGURE_MEM_SLOTS, without which these requests are invalid
 */
static bool mem_reg(const struct vu_dev *d, const struct vu_msg *m,
		    struct vu_region *r)
{
	if (!(d->protocol & 1ULL << VU_PROTOCOL_F_CONFIGURE_MEM_SLOTS) ||
	    m->size < VU_MEM_REG_LEN)
		return false;
	memset(r, 0, sizeof(*r));
	/* 8 bytes of padding, then struct vhost_user_memory_region */
	r->gpa = payload_u64(m, 8);
	r->size = payload_u64(m, 16);
	r->uva = payload_u64(m, 24);
	r->mmap_off = payload_u64(m, 32);
	return true;
}

/**
 * add_mem_reg() - map one more region of guest memory
 * @d:		device
 * @m:		ADD_MEM_REG, with the region's file descriptor
 *
 * The same checks as a whole SET_MEM_TABLE, against the regions there
 * are.  A region that overlaps one, lies past its file or does not fit
 * the slots advertised is a broken front-end, dropped: answering a
 * failure would leave its table and ours different (QEMU only logs a
 * failed update), and guest buffers in that memory would fail one by one.
 *
 * Return: VU_DROP for a malformed request, else the acknowledgement
 */
static enum vu_result add_mem_reg(struct vu_dev *d, struct vu_msg *m)
{
	struct vu_region r;
	int ret;

	if (!mem_reg(d, m, &r) || m->nfds != 1)
		return VU_DROP;
	ret = vu_mem_add(&d->mem, &r, m->fds[0]);
	if (ret == -EINVAL || ret == -ENOSPC)
		return VU_DROP;
	/* The table keeps the descriptor of a region mapped, as for
	 * SET_MEM_TABLE; vu_handle() closes it otherwise
	 */
	if (!ret)
		d->mem.r[d->mem.n - 1].fd = take_fd(m, 0);
	vq_remap_all(d);
	return ack(m, !ret);
}

/**
 * rem_mem_reg() - unmap one region of guest memory
 * @d:		device
 * @m:		REM_MEM_REG; a descriptor some front-ends send with it is
 *		closed unused, as the spec allows
 *
 * Rings that were in the region stop until a region holding them comes
 * back; netshim keeps no other pointer into guest memory between
 * messages.
 *
 * Return: VU_DROP if the request is malformed or names no region we have,
 * else the acknowledgement
 */
static enum vu_result rem_mem_reg(struct vu_dev *d, struct vu_msg *m)
{
	struct vu_region r;

	if (!mem_reg(d, m, &r) || m->nfds > 1)
		return VU_DROP;
	if (vu_mem_remove(&d->mem, &r))
		return VU_DROP;
	vq_remap_all(d);
	return ack(m, true);
}

/**
 * vring_state() - the queue a SET/GET_VRING_* state payload names
 * @d:		device
 * @m:		message
 *
 * Return: the queue, or NULL if the payload is short or the index wrong
 */
static struct vq *vring_state(struct vu_dev *d, const struct vu_msg *m)
{
	uint32_t idx;

	if (m->size < VU_STATE_LEN)
		return NULL;
	idx = payload_u32(m, 0);
	return idx < VU_QUEUES ? &d->vq[idx] : NULL;
}

/**
 * set_vring_addr() - where the rings of a queue are
 * @d:		device
 * @m:		SET_VRING_ADDR
 *
 * Return: VU_DROP for a bad index, else the acknowledgement
 */
static enum vu_result set_vring_addr(struct vu_dev *d, struct vu_msg *m)
{
	struct vq *vq;
	uint32_t idx;

	if (m->size < VU_ADDR_LEN)
		return VU_DROP;
	idx = payload_u32(m, 0);
	if (idx >= VU_QUEUES)
		return VU_DROP;
	vq = &d->vq[idx];
	vq->desc_uva = payload_u64(m, 8);
	vq->used_uva = payload_u64(m, 16);
	vq->avail_uva = payload_u64(m, 24);
	vq->log_used = payload_u32(m, 4) & VU_VRING_F_LOG;
	vq->log_used_gpa = payload_u64(m, 32);
	vq->broken = false;
	return ack(m, vq_remap(d, vq));
}

/**
 * set_vring_fd() - the kick, call or error eventfd of a queue
 * @d:		device
 * @m:		SET_VRING_KICK, _CALL or _ERR
 *
 * Return: VU_DROP if the index is wrong or the descriptor missing
 */
static enum vu_result set_vring_fd(struct vu_dev *d, struct vu_msg *m)
{
	uint64_t v = m->payload.u64;
	uint32_t idx = v & VU_VRING_IDX_MASK;
	int fd = -1, *slot;
	struct vq *vq;

	if (m->size < 8 || idx >= VU_QUEUES || (v & ~(uint64_t)0x1ff))
		return VU_DROP;
	if (!(v & VU_VRING_NOFD)) {
		if (m->nfds != 1)
			return VU_DROP;
		fd = take_fd(m, 0);
	}
	vq = &d->vq[idx];
	slot = m->request == VU_SET_VRING_KICK ? &vq->kick_fd :
	       m->request == VU_SET_VRING_CALL ? &vq->call_fd : &vq->err_fd;
	if (*slot >= 0)
		close(*slot);
	*slot = fd;
	/* The ring starts with its kick descriptor (vhost-user.rst, "Starting
	 * and stopping rings"); polling without one is not supported.
	 */
	if (m->request == VU_SET_VRING_KICK) {
		vq->started = fd >= 0;
		vq->broken = false;
		if (vq->started && vq->used)
			d->resumed += vq_resume(vq);
	}
	/* A new call descriptor: what was signalled before went to another
	 * one, or to none, so EVENT_IDX's bookkeeping starts over (the
	 * caller interrupts the driver once on it: vu_request())
	 */
	if (m->request == VU_SET_VRING_CALL)
		vq->signalled_valid = false;
	return ack(m, true);
}

/**
 * get_vring_base() - stop a queue and say where it stopped
 * @d:		device
 * @m:		GET_VRING_BASE, becomes the reply
 *
 * Return: VU_REPLY, or VU_DROP for a bad index
 */
static enum vu_result get_vring_base(struct vu_dev *d, struct vu_msg *m)
{
	struct vq *vq = vring_state(d, m);
	uint32_t idx, last;

	if (!vq)
		return VU_DROP;
	idx = payload_u32(m, 0);
	last = vq->last_avail;
	vq->started = false;
	if (vq->kick_fd >= 0)
		close(vq->kick_fd);
	vq->kick_fd = -1;

	m->flags = VU_VERSION | VU_FLAG_REPLY;
	m->size = VU_STATE_LEN;
	memset(&m->payload, 0, sizeof(m->payload));
	memcpy(m->payload.b, &idx, 4);
	memcpy(m->payload.b + 4, &last, 4);
	return VU_REPLY;
}

/**
 * set_vring_state() - SET_VRING_NUM, SET_VRING_BASE or SET_VRING_ENABLE
 * @d:		device
 * @m:		the request: a queue index and a value
 *
 * Return: VU_DROP for a bad index or ring size, else the acknowledgement
 */
static enum vu_result set_vring_state(struct vu_dev *d, struct vu_msg *m)
{
	struct vq *vq = vring_state(d, m);
	uint32_t v;

	if (!vq)
		return VU_DROP;
	v = payload_u32(m, 4);
	switch (m->request) {
	case VU_SET_VRING_NUM:
		if (!v || v > VQ_NUM_MAX || (v & (v - 1))) {
			vq->num = 0;
			return VU_DROP;
		}
		vq->num = v;
		return ack(m, vq_remap(d, vq));
	case VU_SET_VRING_BASE:
		vq->last_avail = vq->used_idx = (uint16_t)v;
		vq->signalled_valid = false;
		return ack(m, true);
	default:	/* VU_SET_VRING_ENABLE */
		vq->enabled = v;
		return ack(m, true);
	}
}

/**
 * set_log_base() - the dirty log to mark guest memory writes in
 * @d:		device
 * @m:		SET_LOG_BASE: its size and offset, and its descriptor
 *
 * QEMU waits for a reply (with LOG_SHMFD) whatever the flags say.  A log
 * that cannot be mapped is a front-end to drop: the migration it is for
 * would copy guest memory without the pages netshim writes.
 *
 * Return: VU_REPLY, or VU_DROP
 */
static enum vu_result set_log_base(struct vu_dev *d, struct vu_msg *m)
{
	if (!(d->protocol & 1ULL << VU_PROTOCOL_F_LOG_SHMFD) ||
	    m->size < VU_LOG_LEN || m->nfds != 1)
		return VU_DROP;
	if (vu_log_set(&d->log, m->fds[0], payload_u64(m, 0),
		       payload_u64(m, 8)))
		return VU_DROP;
	d->log.fd = take_fd(m, 0);
	return reply_u64(m, 0);
}

/**
 * set_device_state_fd() - the front-end asks for a device state transfer
 * @d:		device
 * @m:		SET_DEVICE_STATE_FD: direction, phase, and the pipe
 *
 * The transfer itself is the caller's: it takes @d->state_fd after the
 * reply went.  netshim uses the front-end's pipe and sends none back.
 *
 * Return: VU_REPLY (non-zero for a direction or phase not known), or
 * VU_DROP for a malformed request
 */
static enum vu_result set_device_state_fd(struct vu_dev *d, struct vu_msg *m)
{
	uint32_t dir, phase;

	if (!(d->protocol & 1ULL << VU_PROTOCOL_F_DEVICE_STATE) ||
	    m->size < VU_TRANSFER_LEN || m->nfds != 1)
		return VU_DROP;
	dir = payload_u32(m, 0);
	phase = payload_u32(m, 4);
	if (phase != VU_TRANSFER_STOPPED ||
	    (dir != VU_TRANSFER_SAVE && dir != VU_TRANSFER_LOAD))
		return reply_u64(m, VU_TRANSFER_NOFD | 1);
	if (d->state_fd >= 0)
		close(d->state_fd);
	d->state_fd = take_fd(m, 0);
	d->state_load = dir == VU_TRANSFER_LOAD;
	return reply_u64(m, VU_TRANSFER_NOFD);
}

/**
 * vu_handle() - carry out one request of the front-end
 * @d:		device
 * @m:		the request; becomes the reply if VU_REPLY is returned.  Its
 *		descriptors are taken or closed.
 *
 * Return: VU_DONE, VU_REPLY, or VU_DROP if the front-end must be dropped
 */
enum vu_result vu_handle(struct vu_dev *d, struct vu_msg *m)
{
	enum vu_result r;

	switch (m->request) {
	case VU_GET_FEATURES:
		r = reply_u64(m, d->offer);
		break;
	case VU_SET_FEATURES:
		r = m->size < 8 ? VU_DROP : set_features(d, m);
		break;
	case VU_GET_PROTOCOL_FEATURES:
		r = reply_u64(m, vu_protocol_offered());
		break;
	case VU_SET_PROTOCOL_FEATURES:
		if (m->size < 8 || m->payload.u64 & ~vu_protocol_offered()) {
			r = VU_DROP;
			break;
		}
		d->protocol = m->payload.u64;
		r = ack(m, true);
		break;
	case VU_GET_QUEUE_NUM:
		/* QEMU reads queue pairs here (netdev queues=), Cloud
		 * Hypervisor queues (num_queues=): pairs fit both readings
		 */
		r = reply_u64(m, VU_PAIRS);
		break;
	case VU_SET_OWNER:
		r = ack(m, true);
		break;
	case VU_RESET_OWNER:
	case VU_RESET_DEVICE:
		vu_dev_reset(d);
		r = ack(m, true);
		break;
	case VU_SET_MEM_TABLE:
		r = set_mem_table(d, m);
		break;
	case VU_GET_MAX_MEM_SLOTS:
		r = reply_u64(m, VU_MEM_SLOTS);
		break;
	case VU_ADD_MEM_REG:
		r = add_mem_reg(d, m);
		break;
	case VU_REM_MEM_REG:
		r = rem_mem_reg(d, m);
		break;
	case VU_SET_VRING_NUM:
	case VU_SET_VRING_BASE:
	case VU_SET_VRING_ENABLE:
		r = set_vring_state(d, m);
		break;
	case VU_SET_VRING_ADDR:
		r = set_vring_addr(d, m);
		break;
	case VU_GET_VRING_BASE:
		r = get_vring_base(d, m);
		break;
	case VU_SET_VRING_KICK:
	case VU_SET_VRING_CALL:
	case VU_SET_VRING_ERR:
		r = set_vring_fd(d, m);
		break;
	case VU_SET_LOG_BASE:
		r = set_log_base(d, m);
		break;
	case VU_SET_LOG_FD:
		/* An eventfd to signal log updates on: QEMU reads the log
		 * when it copies, and netshim does not signal it
		 */
		r = ack(m, true);
		break;
	case VU_SET_DEVICE_STATE_FD:
		r = set_device_state_fd(d, m);
		break;
	case VU_CHECK_DEVICE_STATE:
		r = reply_u64(m, d->state_result);
		break;
	case VU_SEND_RARP:
		/* A migrated guest's announcement: the guest's own frames
		 * teach netshim its MAC address soon enough.
		 */
		r = ack(m, true);
		break;
	case VU_GET_CONFIG:
	case VU_GET_INFLIGHT_FD:
	case VU_GET_STATUS:
		/* Not offered, but the front-end waits for the answer: a
		 * reply without a payload says no (it checks the size).
		 */
		m->flags = VU_VERSION | VU_FLAG_REPLY;
		m->size = 0;
		r = VU_REPLY;
		break;
	default:
		/* SET_CONFIG, MTU, back-end channel and whatever
		 * else was not offered: a failure if an answer is awaited.
		 */
		r = ack(m, false);
		break;
	}
	close_fds(m);
	return r;
}

/**
 * vu_request_name() - a request's name, for the log
 * @request:	request number
 *
 * Return: its name, or "unknown"
 */
const char *vu_request_name(uint32_t request)
{
	static const char *const names[] = {
		[VU_GET_FEATURES] = "GET_FEATURES",
		[VU_SET_FEATURES] = "SET_FEATURES",
		[VU_SET_OWNER] = "SET_OWNER",
		[VU_RESET_OWNER] = "RESET_OWNER",
		[VU_SET_MEM_TABLE] = "SET_MEM_TABLE",
		[VU_SET_LOG_BASE] = "SET_LOG_BASE",
		[VU_SET_LOG_FD] = "SET_LOG_FD",
		[VU_SET_VRING_NUM] = "SET_VRING_NUM",
		[VU_SET_VRING_ADDR] = "SET_VRING_ADDR",
		[VU_SET_VRING_BASE] = "SET_VRING_BASE",
		[VU_GET_VRING_BASE] = "GET_VRING_BASE",
		[VU_SET_VRING_KICK] = "SET_VRING_KICK",
		[VU_SET_VRING_CALL] = "SET_VRING_CALL",
		[VU_SET_VRING_ERR] = "SET_VRING_ERR",
		[VU_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
		[VU_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
		[VU_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
		[VU_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
		[VU_SEND_RARP] = "SEND_RARP",
		[VU_NET_SET_MTU] = "NET_SET_MTU",
		[VU_SET_BACKEND_REQ_FD] = "SET_BACKEND_REQ_FD",
		[VU_GET_CONFIG] = "GET_CONFIG",
		[VU_SET_CONFIG] = "SET_CONFIG",
		[VU_GET_INFLIGHT_FD] = "GET_INFLIGHT_FD",
		[VU_RESET_DEVICE] = "RESET_DEVICE",
		[VU_GET_MAX_MEM_SLOTS] = "GET_MAX_MEM_SLOTS",
		[VU_ADD_MEM_REG] = "ADD_MEM_REG",
		[VU_REM_MEM_REG] = "REM_MEM_REG",
		[VU_SET_STATUS] = "SET_STATUS",
		[VU_GET_STATUS] = "GET_STATUS",
		[VU_SET_DEVICE_STATE_FD] = "SET_DEVICE_STATE_FD",
		[VU_CHECK_DEVICE_STATE] = "CHECK_DEVICE_STATE",
	};

	if (request < sizeof(names) / sizeof(names[0]) && names[request])
		return names[request];
	return "unknown";
}
