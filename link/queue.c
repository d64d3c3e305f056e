// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - frames queued for the guest in one buffer, each behind its length
 *
 * The output queue of the back-ends that cannot build frames where the
 * guest reads them yet: the stream socket writes it as it is, vhost-user
 * copies each frame into the guest's receive buffers.  Frames are built in
 * place behind room for their length (and, for a back-end that offloads,
 * room for their virtio-net header, q->meta bytes) and only become
 * queued on commit.
 */
#include <string.h>

#include "queue.h"
#include "netshim/packet.h"

/**
 * lq_pending() - are frames queued
 * @q:		queue
 *
 * Return: true if some bytes wait
 */
bool lq_pending(const struct tx *q)
{
	return q->tail > q->head;
}

/**
 * lq_space() - bytes free at the end, for frames laid out in a row
 * @q:		queue
 *
 * Queued bytes are moved to the start of the buffer when that frees room.
 *
 * Return: free bytes, length fields included
 */
static size_t lq_space(struct tx *q)
{
	if (q->head && q->size - q->tail < LQ_HDR_LEN + q->meta + FRAME_MAX) {
		memmove(q->buf, q->buf + q->head, q->tail - q->head);
		q->tail -= q->head;
		q->head = 0;
	}
	return q->size - q->tail;
}

/**
 * lq_room() - largest frame that can be queued now
 * @q:		queue
 *
 * Return: bytes available for one frame, 0 if none
 */
size_t lq_room(struct tx *q)
{
	size_t room = lq_space(q);

	if (room <= LQ_HDR_LEN + q->meta)
		return 0;
	room -= LQ_HDR_LEN + q->meta;
	return room > FRAME_MAX ? FRAME_MAX : room;
}

/**
 * lq_reserve() - room for one frame
 * @q:		queue
 * @maxlen:	largest length the frame may have
 *
 * Return: where the frame starts, or NULL if the queue is too full
 */
uint8_t *lq_reserve(struct tx *q, size_t maxlen)
{
	if (lq_room(q) < maxlen)
		return NULL;
	return q->buf + q->tail + LQ_HDR_LEN + q->meta;
}

/**
 * lq_reserve_batch() - room for frames of one size, back to back
 * @q:		queue
 * @len:	length of each frame, at most FRAME_MAX
 * @n:		frames wanted
 * @frames:	filled with where each frame starts
 *
 * Return: number of frames reserved
 */
int lq_reserve_batch(struct tx *q, size_t len, int n, uint8_t **frames)
{
	size_t slot = LQ_HDR_LEN + q->meta + len, space = lq_space(q);
	uint8_t *base = q->buf + q->tail + LQ_HDR_LEN + q->meta;
	int i;

	if ((size_t)n * slot > space)
		n = (int)(space / slot);
	for (i = 0; i < n; i++)
		frames[i] = base + i * slot;
	return n;
}

/**
 * lq_commit() - queue a frame built in reserved room
 * @q:		queue
 * @frame:	frame start, the next reserved one
 * @len:	frame length, at most what was reserved
 */
void lq_commit(struct tx *q, uint8_t *frame, size_t len)
{
	wr32(frame - q->meta - LQ_HDR_LEN, (uint32_t)len);
	q->tail += LQ_HDR_LEN + q->meta + len;
}

/**
 * lq_meta() - the room kept in front of a frame for its offloads
 * @q:		queue, with q->meta bytes of it
 * @frame:	frame start, reserved or queued
 *
 * Return: where its metadata goes (the virtio-net header, link/vnet.h)
 */
uint8_t *lq_meta(const struct tx *q, uint8_t *frame)
{
	return frame - q->meta;
}

/**
 * lq_peek() - the oldest queued frame
 * @q:		queue
 * @frame:	set to its start
 * @len:	set to its length
 *
 * Return: false if the queue is empty
 */
bool lq_peek(const struct tx *q, uint8_t **frame, size_t *len)
{
	if (q->tail - q->head < LQ_HDR_LEN)
		return false;
	*len = rd32(q->buf + q->head);
	*frame = q->buf + q->head + LQ_HDR_LEN + q->meta;
	return true;
}

/**
 * lq_drop_head() - the oldest queued frame was handed over
 * @q:		queue, not empty
 */
void lq_drop_head(struct tx *q)
{
	q->head += LQ_HDR_LEN + q->meta + rd32(q->buf + q->head);
	if (q->head >= q->tail)
		q->head = q->tail = 0;
}
