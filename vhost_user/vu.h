/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the vhost-user back-end's state, shared by its rooms
 *
 * backend.c is the back-end's face (struct link_ops) and handles the
 * front-end's messages; from_guest.c takes frames from the transmit
 * queue, to_guest.c fills the receive queue; frontend.c holds what all three
 * use of the connection: its eventfds, interrupts, and dropping it.
 */
#ifndef NETSHIM_VHOST_USER_VU_H
#define NETSHIM_VHOST_USER_VU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "link/link.h"
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
 * @in_q:	the transmit queue that batch was taken from, where its
 *		chains go back once the loop handled it (vu_in_done())
 * @tx_done:	guest frames taken since the served queue's kick
 * @rx_elem:	receive buffers of the frame being copied to the guest
 * @ip_elem:	receive chains taken for frames built in place
 * @ip_q:	the receive queue they were taken from
 * @ip_popped:	how many of them the current reservation took
 * @ip_used:	how many of them went to the guest
 * @ip_first:	first chain of each frame reserved in place, and one past
 *		the last frame's
 * @ip_frames:	frames reserved in place
 * @ip_next:	the next of them to be committed
 * @rx_due:	pairs whose receive queue took frames built in place,
 *		one bit each, not yet notified
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
	unsigned int in_q;
	unsigned int tx_done;
	struct vq_elem rx_elem[VU_RX_ELEMS];
	struct vq_elem ip_elem[VU_IP_CHAINS];
	unsigned int ip_q;
	unsigned int ip_popped, ip_used;
	unsigned int ip_first[LINK_RESERVE_MAX + 1];
	int ip_frames, ip_next;
	uint32_t rx_due;
};

/* frontend.c */
void vu_drop(struct ctx *c, const char *why);
bool vu_fault_check(struct ctx *c);
void vu_notify(struct vq *vq);
void vu_kick_self(struct vq *vq);
void vu_kick_unregister(struct ctx *c);
int vu_kick_register(struct ctx *c);
void vu_close(struct ctx *c, const char *why);

/* from_guest.c */
size_t vu_resolve(struct ctx *c, const struct iovec *in,
		  struct iovec *out, size_t max);
void vu_in_done(struct ctx *c);
void vu_tx(struct ctx *c, unsigned int q);
void vu_tx_waiting(struct ctx *c);

/* to_guest.c */
void vu_ip_release(struct ctx *c);
int vu_reserve_frames(struct ctx *c, uint8_t qp, size_t hlen, size_t plen,
		      int n, struct link_frame *f);
void vu_commit_frame(struct ctx *c, struct link_frame *f, size_t plen,
		     const struct link_offload *o);
int vu_flush(struct ctx *c);
void vu_rx_kick(struct ctx *c);

/* upgrade.c */
struct migio;
int vu_upgrade_save(struct ctx *c, struct migio *io);
int vu_upgrade_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_VHOST_USER_VU_H */
