// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: vq_pop(), the split virtqueue walker
 *
 * The input is a guest: one control byte (bit 0 EVENT_IDX, bit 1 indirect
 * descriptors, bits 2-4 the ring size as a power of two), then the bytes
 * of its memory, rings at fixed places and buffers anywhere.  The memory
 * is a heap block of exactly the input's size, so ASan sees any access
 * past it; every buffer vq_pop() returns must lie inside it, and the
 * walker must stop within the ring's bounds whatever the guest wrote.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "vhost_user/virtq.h"

#define GPA		0x40000000ULL
#define UVA		0x7f0000000000ULL
#define DESC_OFF	0
#define AVAIL_OFF	2048		/* after 128 descriptors */
#define USED_OFF	2560		/* after 128 entries and used_event */
#define RING_END	(USED_OFF + 4 + 128 * 8 + 2)

/**
 * LLVMFuzzerInitialize() - nothing to set up
 * @argc:	libFuzzer's arguments, unused
 * @argv:	libFuzzer's arguments, unused
 *
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/**
 * check_elem() - every buffer of an element lies in guest memory
 * @e:		element
 * @mem:	guest memory
 * @len:	its length
 */
static void check_elem(const struct vq_elem *e, const uint8_t *mem,
		       size_t len)
{
	size_t out = 0, in = 0;
	unsigned int i;

	FUZZ_CHECK(e->n_out + e->n_in <= VQ_SEGS_MAX);
	for (i = 0; i < e->n_out + e->n_in; i++) {
		const uint8_t *b = e->iov[i].iov_base;

		FUZZ_CHECK(b >= mem && e->iov[i].iov_len <= len &&
			   b + e->iov[i].iov_len <= mem + len);
		if (i < e->n_out)
			out += e->iov[i].iov_len;
		else
			in += e->iov[i].iov_len;
	}
	FUZZ_CHECK(out == e->out_len && in == e->in_len);
}

/**
 * LLVMFuzzerTestOneInput() - walk every chain the guest made available
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vq_elem e;
	struct vu_mem m = { 0 };
	unsigned int pops;
	struct vq q;
	uint8_t *mem;
	size_t len;

	if (size < 1 + RING_END)
		return 0;
	len = size - 1;
	mem = malloc(len);
	FUZZ_CHECK(mem);
	memcpy(mem, data + 1, len);

	m.n = 1;
	m.r[0].gpa = GPA;
	m.r[0].size = len;
	m.r[0].uva = UVA;
	m.r[0].map = mem;
	m.r[0].map_len = len;

	vq_reset(&q);
	q.event_idx = data[0] & 1;
	q.indirect = data[0] & 2;
	q.num = 1U << ((data[0] >> 2) & 7);
	q.desc_uva = UVA + DESC_OFF;
	q.avail_uva = UVA + AVAIL_OFF;
	q.used_uva = UVA + USED_OFF;
	q.enabled = q.started = true;
	FUZZ_CHECK(vq_map(&q, &m));

	/* A ring never yields more than its size without new entries */
	for (pops = 0; vq_ready(&q); pops++) {
		enum vq_result r = vq_pop(&q, &m, &e);

		FUZZ_CHECK(pops <= q.num);
		if (r != VQ_OK)
			break;
		FUZZ_CHECK(e.head < q.num);
		check_elem(&e, mem, len);
		vq_push(&q, e.head, (uint32_t)e.in_len, 0);
		vq_flush(&q, 1);
	}
	vq_should_notify(&q);
	free(mem);
	return 0;
}
