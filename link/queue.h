/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - frames queued for the guest in one buffer, each behind its length
 */
#ifndef NETSHIM_LINK_QUEUE_H
#define NETSHIM_LINK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netshim/ctx.h"

/* Each frame is preceded by its length, 32-bit big-endian: QEMU's stream
 * framing, so the stream back-end sends the queue as it is.
 */
#define LQ_HDR_LEN	4

bool lq_pending(const struct tx *q);
size_t lq_room(struct tx *q);
uint8_t *lq_reserve(struct tx *q, size_t maxlen);
int lq_reserve_batch(struct tx *q, size_t len, int n, uint8_t **frames);
void lq_commit(struct tx *q, uint8_t *frame, size_t len);
uint8_t *lq_meta(const struct tx *q, uint8_t *frame);
bool lq_peek(const struct tx *q, uint8_t **frame, size_t *len);
void lq_drop_head(struct tx *q);

#endif /* NETSHIM_LINK_QUEUE_H */
