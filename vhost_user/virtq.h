/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - vhost-user: split virtqueues in guest memory
 */
#ifndef VHOST_USER_VIRTQ_H
#define VHOST_USER_VIRTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "mem.h"

/* Virtio feature bits netshim knows (virtio 1.2, 5.1.3 and 6) */
#define VIRTIO_NET_F_CSUM		0
#define VIRTIO_NET_F_GUEST_CSUM		1
#define VIRTIO_NET_F_GUEST_TSO4		7
#define VIRTIO_NET_F_GUEST_TSO6		8
#define VIRTIO_NET_F_HOST_TSO4		11
#define VIRTIO_NET_F_HOST_TSO6		12
#define VIRTIO_NET_F_HOST_ECN		13
#define VIRTIO_NET_F_MRG_RXBUF		15
#define VIRTIO_NET_F_GUEST_ANNOUNCE	21
#define VIRTIO_NET_F_MQ			22
#define VIRTIO_RING_F_INDIRECT_DESC	28
#define VIRTIO_RING_F_EVENT_IDX		29
#define VIRTIO_F_VERSION_1		32

#define VRING_DESC_F_NEXT		1
#define VRING_DESC_F_WRITE		2
#define VRING_DESC_F_INDIRECT		4
#define VRING_USED_F_NO_NOTIFY		1
#define VRING_AVAIL_F_NO_INTERRUPT	1

#define VQ_DESC_LEN		16
#define VQ_NUM_MAX		32768	/* the largest split ring (2.7) */

/* Most buffers one element may carry: more is a broken driver */
#define VQ_SEGS_MAX		64

/* struct virtio_net_hdr_mrg_rxbuf: the header VERSION_1 devices use */
#define VNET_HDR_LEN		12
#define VNET_HDR_NUM_BUFFERS	10

/**
 * struct vq - one split virtqueue, as the front-end described it
 * @num:	ring size, a power of two up to VQ_NUM_MAX, 0 if not set
 * @desc_uva:	descriptor table, front-end address (SET_VRING_ADDR)
 * @avail_uva:	available ring, front-end address
 * @used_uva:	used ring, front-end address
 * @desc:	descriptor table in our mapping, once vq_map() found it
 * @avail:	available ring in our mapping
 * @used:	used ring in our mapping
 * @last_avail:	next available entry to take
 * @used_idx:	next used entry to fill
 * @signalled:	used index when the driver was last notified (EVENT_IDX)
 * @signalled_valid: @signalled is meaningful: the driver was notified once
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX was negotiated
 * @indirect:	VIRTIO_RING_F_INDIRECT_DESC was negotiated
 * @enabled:	SET_VRING_ENABLE (or no protocol features) said so
 * @started:	a kick eventfd came and GET_VRING_BASE did not stop it since
 * @kick_fd:	eventfd the driver signals, -1 if none
 * @call_fd:	eventfd we signal, -1 if none
 * @err_fd:	eventfd for errors, -1 if none
 * @broken:	the driver broke the ring rules: the queue is not used again
 *		until the front-end sets it up anew
 * @log:	the device's dirty log, NULL for none
 * @log_used:	SET_VRING_ADDR asked for used ring writes to be logged
 * @log_used_gpa: guest-physical address of the used ring, for the log
 */
struct vq {
	uint32_t num;
	uint64_t desc_uva, avail_uva, used_uva;
	uint8_t *desc, *avail, *used;
	uint16_t last_avail;
	uint16_t used_idx;
	uint16_t signalled;
	bool signalled_valid;
	bool event_idx;
	bool indirect;
	bool enabled;
	bool started;
	int kick_fd, call_fd, err_fd;
	bool broken;
	const struct vu_log *log;
	bool log_used;
	uint64_t log_used_gpa;
};

/**
 * struct vq_elem - the buffers of one available descriptor chain
 * @head:	index of the chain's first descriptor, for the used ring
 * @n_out:	readable buffers (driver to device), first in @iov
 * @n_in:	writable buffers (device to driver), after them
 * @out_len:	bytes in the readable buffers
 * @in_len:	bytes in the writable buffers
 * @iov:	our addresses of the buffers
 */
struct vq_elem {
	uint16_t head;
	unsigned int n_out, n_in;
	size_t out_len, in_len;
	struct iovec iov[VQ_SEGS_MAX];
};

enum vq_result {
	VQ_OK,		/* an element was taken */
	VQ_EMPTY,	/* nothing available */
	VQ_BROKEN,	/* the driver broke the rules: queue marked broken */
};

void vq_reset(struct vq *vq);
bool vq_map(struct vq *vq, const struct vu_mem *m);
bool vq_resume(struct vq *vq);
bool vq_ready(const struct vq *vq);
int vq_avail_count(struct vq *vq);
enum vq_result vq_pop(struct vq *vq, const struct vu_mem *m,
		      struct vq_elem *e);
void vq_unpop(struct vq *vq, unsigned int n);
void vq_push(struct vq *vq, uint16_t head, uint32_t len, unsigned int at);
void vq_flush(struct vq *vq, unsigned int n);
bool vq_should_notify(struct vq *vq);
bool vq_kick_me(struct vq *vq);

#endif /* VHOST_USER_VIRTQ_H */
