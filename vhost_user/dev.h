/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - vhost-user: the device a front-end drives through messages
 */
#ifndef VHOST_USER_DEV_H
#define VHOST_USER_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "proto.h"
#include "virtq.h"

/* Queue pairs: a receive queue (even index) and a transmit queue (odd)
 * each.  Every transmit queue is served; a frame to the guest goes to the
 * receive queue of the pair its flow came in on (tx_reserve()).
 */
#define VU_PAIRS		8
#define VU_QUEUES		(2 * VU_PAIRS)
#define VU_RX_Q			0	/* to the guest */
#define VU_TX_Q			1	/* from the guest, the first pair's */
#define VU_IS_TX(idx)		((idx) & 1)

/**
 * struct vu_msg - one message, received or to send
 * @request:	enum vu_request
 * @flags:	version and reply flags
 * @size:	payload bytes
 * @payload:	the payload, 8-byte aligned
 * @fds:	descriptors that came with it; -1 once taken or closed
 * @nfds:	how many came
 */
struct vu_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	union {
		uint64_t u64;
		uint8_t b[VU_PAYLOAD_MAX];
	} payload;
	int fds[VU_FDS_MAX];
	unsigned int nfds;
};

/**
 * struct vu_dev - what the front-end set up
 * @offer:		virtio features we offer (vu_features_offered())
 * @features:		virtio features it acknowledged
 * @protocol:		protocol features it acknowledged
 * @features_set:	SET_FEATURES came
 * @mem:		guest memory
 * @vq:			the queues
 * @resumed:		queues started from their used ring's index, not
 *			SET_VRING_BASE's (vq_resume()), for the caller to
 *			count and reset
 * @log:		the dirty log, while the front-end migrates the guest
 * @state_fd:		pipe of a device state transfer the front-end asked
 *			for (SET_DEVICE_STATE_FD), for the caller to take;
 *			-1 for none
 * @state_load:		@state_fd brings state in (the migration's
 *			destination), else it takes ours out
 * @state_result:	what CHECK_DEVICE_STATE answers: 0 once a transfer
 *			succeeded, set by the caller
 */
struct vu_dev {
	uint64_t offer;
	uint64_t features;
	uint64_t protocol;
	bool features_set;
	struct vu_mem mem;
	struct vq vq[VU_QUEUES];
	unsigned int resumed;
	struct vu_log log;
	int state_fd;
	bool state_load;
	uint64_t state_result;
};

/* What a request did, for the caller */
enum vu_result {
	VU_DONE,	/* handled, no reply */
	VU_REPLY,	/* handled, the reply is in the message */
	VU_DROP,	/* the front-end broke the protocol: drop it */
};

uint64_t vu_features_offered(bool all);
uint64_t vu_protocol_offered(void);
void vu_dev_init(struct vu_dev *d, uint64_t offer);
void vu_dev_reset(struct vu_dev *d);
size_t vu_vnet_hdr_len(const struct vu_dev *d);
long vu_msg_need(const uint8_t *buf, size_t len);
bool vu_msg_parse(const uint8_t *buf, size_t len, struct vu_msg *m);
size_t vu_msg_encode(const struct vu_msg *m, uint8_t *buf, size_t size);
enum vu_result vu_handle(struct vu_dev *d, struct vu_msg *m);
const char *vu_request_name(uint32_t request);

#endif /* VHOST_USER_DEV_H */
