// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - vhost-user: split virtqueues in guest memory (virtio 1.2, 2.7)
 *
 * The rings live in memory the guest writes while we read it.  Every value
 * is loaded once into a local before it is checked and used, so the guest
 * cannot change it between the two; every index is checked against the
 * ring size and every address and length goes through the memory table's
 * translation.  A driver that breaks the rules (an index past the ring, a
 * chain that loops, a buffer outside its memory) gets VQ_BROKEN and the
 * queue is not touched again: the caller drops the front-end.
 */
#include <endian.h>
#include <string.h>

#include "virtq.h"

#define AVAIL_FLAGS	0
#define AVAIL_IDX	2
#define AVAIL_RING	4
#define USED_FLAGS	0
#define USED_IDX	2
#define USED_RING	4
#define USED_ELEM_LEN	8

/**
 * load16() - read a 16-bit little-endian ring field once
 * @p:		the field, 2-byte aligned (vq_map() checked the rings)
 *
 * Return: its value
 */
static uint16_t load16(const uint8_t *p)
{
	return le16toh(__atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED));
}

/**
 * store16() - write a 16-bit little-endian ring field
 * @p:		the field, 2-byte aligned
 * @v:		value
 */
static void store16(uint8_t *p, uint16_t v)
{
	__atomic_store_n((uint16_t *)p, htole16(v), __ATOMIC_RELAXED);
}

/**
 * vq_reset() - forget everything about a queue, closing nothing
 * @vq:		queue
 */
void vq_reset(struct vq *vq)
{
	const struct vu_log *log = vq->log;

	memset(vq, 0, sizeof(*vq));
	vq->kick_fd = vq->call_fd = vq->err_fd = -1;
	vq->log = log;
}

/**
 * log_used() - mark bytes of the used ring written, if the front-end logs
 * @vq:		queue
 * @off:	offset of the first byte in the used ring
 * @len:	bytes written
 */
static void log_used(const struct vq *vq, uint64_t off, uint64_t len)
{
	if (vq->log && vq->log_used)
		vu_log_gpa(vq->log, vq->log_used_gpa + off, len);
}

/**
 * vq_map() - find the rings of a queue in the mapped guest memory
 * @vq:		queue with its size and front-end addresses set
 * @m:		memory table
 *
 * Return: true if all three rings are mapped, whole and aligned
 */
bool vq_map(struct vq *vq, const struct vu_mem *m)
{
	uint64_t n = vq->num, ev = vq->event_idx ? 2 : 0;

	vq->desc = vq->avail = vq->used = NULL;
	if (!n || n > VQ_NUM_MAX || (n & (n - 1)))
		return false;
	if ((vq->desc_uva % 16) || (vq->avail_uva % 2) || (vq->used_uva % 4))
		return false;
	vq->desc = vu_uva(m, vq->desc_uva, n * VQ_DESC_LEN);
	vq->avail = vu_uva(m, vq->avail_uva, AVAIL_RING + n * 2 + ev);
	vq->used = vu_uva(m, vq->used_uva, USED_RING + n * USED_ELEM_LEN + ev);
	if (!vq->desc || !vq->avail || !vq->used) {
		vq->desc = vq->avail = vq->used = NULL;
		return false;
	}
	return true;
}

/**
 * vq_resume() - take up a queue where its used ring says the device left it
 * @vq:		queue, its rings mapped
 *
 * SET_VRING_BASE says which available entry to take next, but the used
 * index is the ring's own, the one the guest reads.  A front-end that
 * reconnects under a running guest may give a base that is not where the
 * device stopped: Cloud Hypervisor sends the driver's available index, and
 * a back-end that died between taking chains and using them left them
 * taken.  Both indices then start from the used ring, as DPDK's vhost
 * library and libvhost-user do for a device that uses chains in the order
 * it takes them, as netshim does: receive buffers taken and never filled
 * are filled, not lost, no used entry is written twice, and a transmitted
 * frame may at worst go out again.
 *
 * Return: true if SET_VRING_BASE's index was not the used ring's
 */
bool vq_resume(struct vq *vq)
{
	uint16_t used = load16(vq->used + USED_IDX);

	if (used == vq->used_idx && used == vq->last_avail)
		return false;
	vq->used_idx = vq->last_avail = used;
	vq->signalled_valid = false;
	return true;
}

/**
 * vq_ready() - can frames move on this queue
 * @vq:		queue
 *
 * Return: true if its rings are mapped, it is started, enabled and not
 * broken
 */
bool vq_ready(const struct vq *vq)
{
	return vq->desc && vq->started && vq->enabled && !vq->broken;
}

/**
 * vq_avail_count() - descriptor chains the driver made available
 * @vq:		queue, vq_ready()
 *
 * Return: chains not yet taken, -1 if the driver's index is impossible
 * (the queue is then broken)
 */
int vq_avail_count(struct vq *vq)
{
	uint16_t n = load16(vq->avail + AVAIL_IDX) - vq->last_avail;

	if (n > vq->num) {
		vq->broken = true;
		return -1;
	}
	return n;
}

/**
 * elem_add() - append one buffer of a descriptor to an element
 * @e:		element
 * @m:		memory table
 * @addr:	guest-physical address of the buffer
 * @len:	its length
 * @write:	writable by the device
 *
 * A buffer spanning adjacent regions takes one entry per region.
 *
 * Return: true on success, false if it is not all mapped or too many
 * entries are needed
 */
static bool elem_add(struct vq_elem *e, const struct vu_mem *m, uint64_t addr,
		     uint32_t len, bool write)
{
	while (len) {
		unsigned int i = e->n_out + e->n_in;
		size_t got;
		void *va;

		if (i >= VQ_SEGS_MAX)
			return false;
		got = vu_gpa_contig(m, addr, len, &va);
		if (!got)
			return false;
		e->iov[i].iov_base = va;
		e->iov[i].iov_len = got;
		if (write) {
			e->n_in++;
			e->in_len += got;
		} else {
			e->n_out++;
			e->out_len += got;
		}
		addr += got;
		len -= (uint32_t)got;
	}
	return true;
}

/**
 * elem_walk() - collect the buffers of the chain starting at @head
 * @vq:		queue
 * @m:		memory table
 * @head:	first descriptor, < vq->num
 * @e:		element to fill
 *
 * Return: true if the chain is valid
 */
static bool elem_walk(const struct vq *vq, const struct vu_mem *m,
		      uint16_t head, struct vq_elem *e)
{
	const uint8_t *table = vq->desc;
	uint32_t size = vq->num, i = head;
	uint32_t left = size;
	bool in_indirect = false;

	e->head = head;
	e->n_out = e->n_in = 0;
	e->out_len = e->in_len = 0;
	for (;;) {
		uint8_t d[VQ_DESC_LEN];
		uint64_t addr;
		uint32_t len;
		uint16_t flags, next;

		/* One copy: the guest may rewrite the descriptor meanwhile */
		memcpy(d, table + (size_t)i * VQ_DESC_LEN, VQ_DESC_LEN);
		memcpy(&addr, d, 8);
		memcpy(&len, d + 8, 4);
		memcpy(&flags, d + 12, 2);
		memcpy(&next, d + 14, 2);
		addr = le64toh(addr);
		len = le32toh(len);
		flags = le16toh(flags);
		next = le16toh(next);

		if (flags & VRING_DESC_F_INDIRECT) {
			/* Once per chain, from the ring, never with NEXT */
			if (!vq->indirect || in_indirect ||
			    (flags & VRING_DESC_F_NEXT) || !len ||
			    len % VQ_DESC_LEN ||
			    len / VQ_DESC_LEN > VQ_NUM_MAX)
				return false;
			table = vu_gpa(m, addr, len);
			if (!table)
				return false;
			size = left = len / VQ_DESC_LEN;
			i = 0;
			in_indirect = true;
			continue;
		}
		/* Each descriptor at most once: a longer chain is a loop */
		if (!left--)
			return false;
		if (!(flags & VRING_DESC_F_WRITE) && e->n_in)
			return false;	/* readable after writable (2.7.4.2) */
		if (!elem_add(e, m, addr, len, flags & VRING_DESC_F_WRITE))
			return false;
		if (!(flags & VRING_DESC_F_NEXT))
			return true;
		if (next >= size)
			return false;
		i = next;
	}
}

/**
 * vq_pop() - take the next available descriptor chain
 * @vq:		queue, vq_ready()
 * @m:		memory table
 * @e:		filled with the chain's buffers
 *
 * Return: VQ_OK, VQ_EMPTY, or VQ_BROKEN if the driver broke the rules
 */
enum vq_result vq_pop(struct vq *vq, const struct vu_mem *m,
		      struct vq_elem *e)
{
	uint16_t head;
	int n = vq_avail_count(vq);

	if (n < 0)
		return VQ_BROKEN;
	if (!n)
		return VQ_EMPTY;
	/* The ring entry is read after the index that made it valid */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	head = load16(vq->avail + AVAIL_RING + 2 * (vq->last_avail % vq->num));
	if (head >= vq->num || !elem_walk(vq, m, head, e)) {
		vq->broken = true;
		return VQ_BROKEN;
	}
	vq->last_avail++;
	if (vq->event_idx) {	/* kick us when it adds past this one */
		store16(vq->used + USED_RING + vq->num * USED_ELEM_LEN,
			vq->last_avail);
		log_used(vq, USED_RING + vq->num * USED_ELEM_LEN, 2);
	}
	return VQ_OK;
}

/**
 * vq_unpop() - give back chains taken but not used, most recent first
 * @vq:		queue
 * @n:		how many
 */
void vq_unpop(struct vq *vq, unsigned int n)
{
	vq->last_avail -= (uint16_t)n;
}

/**
 * vq_push() - fill a used ring entry, not yet visible to the driver
 * @vq:		queue, vq_ready()
 * @head:	head of the chain, from vq_pop()
 * @len:	bytes written into its writable buffers
 * @at:		position after the last published entry (0 for the first)
 */
void vq_push(struct vq *vq, uint16_t head, uint32_t len, unsigned int at)
{
	size_t off = USED_RING +
		     ((uint16_t)(vq->used_idx + at) % vq->num) * USED_ELEM_LEN;
	uint32_t id = htole32(head), l = htole32(len);

	memcpy(vq->used + off, &id, 4);
	memcpy(vq->used + off + 4, &l, 4);
	log_used(vq, off, USED_ELEM_LEN);
}

/**
 * vq_flush() - publish entries filled by vq_push()
 * @vq:		queue, vq_ready()
 * @n:		how many
 */
void vq_flush(struct vq *vq, unsigned int n)
{
	/* Entries first, then the index that makes them the driver's */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	vq->used_idx += (uint16_t)n;
	store16(vq->used + USED_IDX, vq->used_idx);
	log_used(vq, USED_IDX, 2);
}

/**
 * vq_should_notify() - does the driver want an interrupt for new used
 *			entries
 * @vq:		queue, vq_ready()
 *
 * Return: true if the call eventfd should be signalled now
 */
bool vq_should_notify(struct vq *vq)
{
	uint16_t old = vq->signalled, new = vq->used_idx, event;
	bool valid = vq->signalled_valid;

	/* Our used index is visible before we read what the driver wants */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!vq->event_idx)
		return !(load16(vq->avail + AVAIL_FLAGS) &
			 VRING_AVAIL_F_NO_INTERRUPT);

	event = load16(vq->avail + AVAIL_RING + 2 * vq->num);
	vq->signalled = new;
	vq->signalled_valid = true;
	/* The driver asks for an interrupt once used passes @event */
	return !valid || (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

/**
 * vq_kick_me() - ask the driver to kick when it makes more chains available
 * @vq:		queue, vq_ready()
 *
 * Needed with EVENT_IDX only when chains were given back (vq_unpop()):
 * the driver then kicks once it adds past what is available now.  The
 * driver may have added chains while this was being written, and would
 * not kick for those.
 *
 * Return: true if more chains became available meanwhile: look again
 */
bool vq_kick_me(struct vq *vq)
{
	uint16_t idx;

	if (!vq->event_idx)
		return false;
	idx = load16(vq->avail + AVAIL_IDX);
	store16(vq->used + USED_RING + vq->num * USED_ELEM_LEN, idx);
	log_used(vq, USED_RING + vq->num * USED_ELEM_LEN, 2);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return load16(vq->avail + AVAIL_IDX) != idx;
}
