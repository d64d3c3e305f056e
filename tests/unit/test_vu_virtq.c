// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the vhost-user memory table and split virtqueues
 *
 * A heap buffer stands for the guest's memory, described by a memory table
 * as a front-end would; rings and descriptors are written into it as a
 * virtio driver lays them out (virtio 1.2, 2.7).  Expectations come from
 * the specification: which chains a device must refuse, what it writes to
 * the used ring, when the driver wants an interrupt.
 */
#include <stdlib.h>

#include "unit.h"
#include "netshim/iov.h"
#include "vhost_user/mem.h"
#include "vhost_user/virtq.h"

#define GPA		0x100000ULL	/* guest-physical base of the memory */
#define UVA		0x7f0000000000ULL /* the front-end's address of it */
#define MEM_LEN		(64 << 10)
#define NUM		16
#define DESC_OFF	0x0000
#define AVAIL_OFF	0x1000
#define USED_OFF	0x2000
#define IND_OFF		0x3000		/* indirect tables */
#define BUF_OFF		0x8000		/* buffers */

static uint8_t *mem;
static struct vu_mem table;
static struct vq q;

/**
 * setup() - fresh guest memory, one region, one queue of NUM entries
 * @state:	unused
 *
 * Return: 0
 */
static int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(4096, MEM_LEN);
	assert_non_null(mem);
	memset(mem, 0, MEM_LEN);
	memset(&table, 0, sizeof(table));
	table.n = 1;
	table.r[0] = (struct vu_region){ .gpa = GPA, .size = MEM_LEN,
					 .uva = UVA, .map = mem,
					 .map_len = MEM_LEN };
	vq_reset(&q);
	q.num = NUM;
	q.desc_uva = UVA + DESC_OFF;
	q.avail_uva = UVA + AVAIL_OFF;
	q.used_uva = UVA + USED_OFF;
	q.enabled = q.started = true;
	q.indirect = true;
	assert_true(vq_map(&q, &table));
	assert_true(vq_ready(&q));
	return 0;
}

/**
 * teardown() - free the guest memory
 * @state:	unused
 *
 * Return: 0
 */
static int teardown(void **state)
{
	(void)state;
	free(mem);
	return 0;
}

/**
 * again() - start over with fresh memory and queue, inside one test
 */
static void again(void)
{
	teardown(NULL);
	setup(NULL);
}

/**
 * put_desc() - write a descriptor into a table, little-endian
 * @tbl_off:	offset of the table in guest memory
 * @i:		index in the table
 * @addr:	guest-physical address of the buffer
 * @len:	its length
 * @flags:	VRING_DESC_F_*
 * @next:	next descriptor of the chain
 */
static void put_desc(size_t tbl_off, unsigned int i, uint64_t addr,
		     uint32_t len, uint16_t flags, uint16_t next)
{
	uint8_t *d = mem + tbl_off + i * VQ_DESC_LEN;
	int k;

	for (k = 0; k < 8; k++)
		d[k] = (uint8_t)(addr >> (8 * k));
	for (k = 0; k < 4; k++)
		d[8 + k] = (uint8_t)(len >> (8 * k));
	d[12] = flags & 0xff;
	d[13] = flags >> 8;
	d[14] = next & 0xff;
	d[15] = next >> 8;
}

/**
 * le16_at() - read a little-endian 16-bit field of guest memory
 * @off:	its offset
 *
 * Return: the value
 */
static uint16_t le16_at(size_t off)
{
	return (uint16_t)(mem[off] | mem[off + 1] << 8);
}

/**
 * le16_put() - write a little-endian 16-bit field of guest memory
 * @off:	its offset
 * @v:		value
 */
static void le16_put(size_t off, uint16_t v)
{
	mem[off] = v & 0xff;
	mem[off + 1] = v >> 8;
}

/**
 * make_avail() - publish a chain head in the available ring
 * @head:	its first descriptor
 */
static void make_avail(uint16_t head)
{
	uint16_t idx = le16_at(AVAIL_OFF + 2);

	le16_put(AVAIL_OFF + 4 + 2 * (idx % NUM), head);
	le16_put(AVAIL_OFF + 2, idx + 1);
}

/**
 * pop_expect() - vq_pop() must give this result
 * @want:	expected result
 * @e:		element to fill
 */
static void pop_expect(enum vq_result want, struct vq_elem *e)
{
	assert_int_equal(vq_pop(&q, &table, e), want);
	if (want == VQ_BROKEN)
		assert_false(vq_ready(&q));
}

static void test_empty(void **state)
{
	struct vq_elem e;

	(void)state;
	pop_expect(VQ_EMPTY, &e);
	assert_true(vq_ready(&q));
}

/* A transmit chain: header and frame in two readable buffers */
static void test_tx_chain(void **state)
{
	struct vq_elem e;

	(void)state;
	memset(mem + BUF_OFF, 0xaa, 12);
	memset(mem + BUF_OFF + 0x100, 0xbb, 60);
	put_desc(DESC_OFF, 3, GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 7);
	put_desc(DESC_OFF, 7, GPA + BUF_OFF + 0x100, 60, 0, 0);
	make_avail(3);

	pop_expect(VQ_OK, &e);
	assert_int_equal(e.head, 3);
	assert_int_equal(e.n_out, 2);
	assert_int_equal(e.n_in, 0);
	assert_int_equal(e.out_len, 72);
	assert_ptr_equal(e.iov[0].iov_base, mem + BUF_OFF);
	assert_ptr_equal(e.iov[1].iov_base, mem + BUF_OFF + 0x100);
	pop_expect(VQ_EMPTY, &e);
}

/* A receive buffer: writable, and what the device reports back */
static void test_rx_push(void **state)
{
	struct vq_elem e;
	uint8_t frame[100], out[100];

	(void)state;
	put_desc(DESC_OFF, 0, GPA + BUF_OFF, 40, VRING_DESC_F_WRITE |
		 VRING_DESC_F_NEXT, 1);
	put_desc(DESC_OFF, 1, GPA + BUF_OFF + 0x1000, 1514,
		 VRING_DESC_F_WRITE, 0);
	make_avail(0);
	pop_expect(VQ_OK, &e);
	assert_int_equal(e.n_out, 0);
	assert_int_equal(e.n_in, 2);
	assert_int_equal(e.in_len, 1554);

	memset(frame, 0x5c, sizeof(frame));
	assert_int_equal(iov_from_buf(e.iov, 2, 0, frame, sizeof(frame)),
			 sizeof(frame));
	assert_int_equal(iov_to_buf(e.iov, 2, 0, out, sizeof(out)),
			 sizeof(out));
	assert_memory_equal(frame, out, sizeof(out));
	assert_int_equal(mem[BUF_OFF + 39], 0x5c);
	assert_int_equal(mem[BUF_OFF + 0x1000 + 59], 0x5c);
	assert_int_equal(mem[BUF_OFF + 0x1000 + 60], 0);

	vq_push(&q, e.head, 100, 0);
	/* Nothing is the driver's before the index moves */
	assert_int_equal(le16_at(USED_OFF + 2), 0);
	vq_flush(&q, 1);
	assert_int_equal(le16_at(USED_OFF + 2), 1);
	assert_int_equal(le16_at(USED_OFF + 4), 0);		/* id */
	assert_int_equal(mem[USED_OFF + 8], 100);		/* len */
}

/* bit() - is a page's bit set in a dirty log */
static bool bit(const uint8_t *log, uint64_t page)
{
	return log[page / 8] & (1U << (page % 8));
}

/* The dirty log of a migration (vhost-user.rst, "Migration"): one bit per
 * 4 KiB page of guest-physical memory, for every write of the device
 * while the front-end logs, the used ring's at the address SET_VRING_ADDR
 * gave; nothing before VHOST_F_LOG_ALL, nothing past the log's end
 */
static void test_dirty_log(void **state)
{
	uint8_t log[64] = { 0 }, zero[64] = { 0 };
	struct vu_log l = { .map = log, .len = sizeof(log) };
	uint64_t used_page = (GPA + USED_OFF) / VU_LOG_PAGE;
	struct vq_elem e;
	unsigned int i;

	(void)state;
	q.log = &l;
	q.log_used = true;
	q.log_used_gpa = GPA + USED_OFF;
	put_desc(DESC_OFF, 0, GPA + BUF_OFF, 1514, VRING_DESC_F_WRITE, 0);
	make_avail(0);
	pop_expect(VQ_OK, &e);
	vq_push(&q, e.head, 100, 0);
	vq_flush(&q, 1);
	vu_log_va(&l, &table, mem + BUF_OFF, 100);
	assert_memory_equal(log, zero, sizeof(log));	/* not logging yet */

	l.on = true;
	vq_push(&q, e.head, 100, 0);
	assert_true(bit(log, used_page));
	log[used_page / 8] = 0;
	vq_flush(&q, 1);
	assert_true(bit(log, used_page));
	log[used_page / 8] = 0;
	assert_memory_equal(log, zero, sizeof(log));

	/* A frame across a page boundary marks both pages, only them */
	vu_log_va(&l, &table, mem + BUF_OFF + 0x1000 - 10, 20);
	for (i = 0; i < sizeof(log) * 8; i++)
		assert_int_equal(bit(log, i),
				 i == (GPA + BUF_OFF) / VU_LOG_PAGE ||
				 i == (GPA + BUF_OFF + 0x1000) / VU_LOG_PAGE);

	/* Outside the memory table: nothing to log; past the log: nothing */
	memset(log, 0, sizeof(log));
	vu_log_va(&l, &table, zero, sizeof(zero));
	l.len = 1;
	vu_log_gpa(&l, GPA, 4096);
	assert_memory_equal(log, zero, sizeof(log));
	l.len = sizeof(log);
	vu_log_gpa(&l, 0x3000, 1);
	assert_true(bit(log, 3));
}

/* A front-end that comes back under a running guest with a base that is
 * not where the device stopped (Cloud Hypervisor sends the driver's
 * available index): the device takes up from the used ring, so the
 * chains the guest made available after the last used one are taken
 * again, and the next used entry is the one after the guest's last
 */
static void test_resume(void **state)
{
	struct vq_elem e;
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		put_desc(DESC_OFF, i, GPA + BUF_OFF + i * 0x800, 1514,
			 VRING_DESC_F_WRITE, 0);
		make_avail((uint16_t)i);
	}
	/* Two were used before the old back-end went, three taken only */
	for (i = 0; i < 5; i++)
		pop_expect(VQ_OK, &e);
	le16_put(USED_OFF + 2, 2);

	/* The new one is told 5 (the available index) */
	q.last_avail = q.used_idx = 5;
	assert_true(vq_resume(&q));
	assert_int_equal(q.last_avail, 2);
	assert_int_equal(q.used_idx, 2);
	assert_int_equal(vq_avail_count(&q), 3);
	pop_expect(VQ_OK, &e);
	assert_int_equal(e.head, 2);
	vq_push(&q, e.head, 60, 0);
	vq_flush(&q, 1);
	assert_int_equal(le16_at(USED_OFF + 2), 3);
	assert_int_equal(le16_at(USED_OFF + 4 + 2 * 8), 2);	/* id */

	/* Told where the ring is (QEMU): nothing changes */
	assert_false(vq_resume(&q));
}

static void test_loop(void **state)
{
	struct vq_elem e;

	(void)state;
	put_desc(DESC_OFF, 0, GPA + BUF_OFF, 10, VRING_DESC_F_NEXT, 1);
	put_desc(DESC_OFF, 1, GPA + BUF_OFF, 10, VRING_DESC_F_NEXT, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);
}

static void test_self_loop(void **state)
{
	struct vq_elem e;

	(void)state;
	put_desc(DESC_OFF, 5, GPA + BUF_OFF, 10, VRING_DESC_F_NEXT, 5);
	make_avail(5);
	pop_expect(VQ_BROKEN, &e);
}

static void test_outside_memory(void **state)
{
	struct vq_elem e;

	(void)state;
	/* Last bytes in, one past the end, before the start, wrapping */
	put_desc(DESC_OFF, 0, GPA + MEM_LEN - 10, 10, 0, 0);
	make_avail(0);
	pop_expect(VQ_OK, &e);

	put_desc(DESC_OFF, 1, GPA + MEM_LEN - 10, 11, 0, 0);
	make_avail(1);
	pop_expect(VQ_BROKEN, &e);

	again();
	put_desc(DESC_OFF, 1, GPA - 1, 2, 0, 0);
	make_avail(1);
	pop_expect(VQ_BROKEN, &e);

	again();
	put_desc(DESC_OFF, 1, UINT64_MAX - 3, 8, 0, 0);
	make_avail(1);
	pop_expect(VQ_BROKEN, &e);
}

static void test_bad_indices(void **state)
{
	struct vq_elem e;

	(void)state;
	/* Head past the ring */
	make_avail(NUM);
	pop_expect(VQ_BROKEN, &e);

	/* Next past the ring */
	again();
	put_desc(DESC_OFF, 0, GPA + BUF_OFF, 10, VRING_DESC_F_NEXT, NUM);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);

	/* More available than the ring holds */
	again();
	le16_put(AVAIL_OFF + 2, NUM + 1);
	pop_expect(VQ_BROKEN, &e);
	assert_int_equal(vq_avail_count(&q), -1);

	/* Exactly a full ring is fine, also across the 16-bit wrap */
	again();
	q.last_avail = q.used_idx = 65530;
	le16_put(AVAIL_OFF + 2, (uint16_t)(65530 + NUM));
	assert_int_equal(vq_avail_count(&q), NUM);
}

static void test_write_then_read(void **state)
{
	struct vq_elem e;

	(void)state;
	put_desc(DESC_OFF, 0, GPA + BUF_OFF, 10,
		 VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 1);
	put_desc(DESC_OFF, 1, GPA + BUF_OFF + 16, 10, 0, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);
}

static void test_indirect(void **state)
{
	struct vq_elem e;

	(void)state;
	put_desc(IND_OFF, 0, GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 2);
	put_desc(IND_OFF, 2, GPA + BUF_OFF + 64, 100, VRING_DESC_F_NEXT, 1);
	put_desc(IND_OFF, 1, GPA + BUF_OFF + 256, 200, VRING_DESC_F_WRITE, 0);
	put_desc(DESC_OFF, 4, GPA + IND_OFF, 3 * VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT, 0);
	make_avail(4);
	pop_expect(VQ_OK, &e);
	assert_int_equal(e.head, 4);
	assert_int_equal(e.n_out, 2);
	assert_int_equal(e.n_in, 1);
	assert_int_equal(e.out_len, 112);
	assert_int_equal(e.in_len, 200);
	assert_ptr_equal(e.iov[2].iov_base, mem + BUF_OFF + 256);
}

static void test_indirect_bad(void **state)
{
	struct vq_elem e;

	(void)state;
	/* Not negotiated */
	q.indirect = false;
	put_desc(IND_OFF, 0, GPA + BUF_OFF, 12, 0, 0);
	put_desc(DESC_OFF, 0, GPA + IND_OFF, VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);

	/* Table length not a whole number of descriptors */
	again();
	put_desc(DESC_OFF, 0, GPA + IND_OFF, VQ_DESC_LEN + 1,
		 VRING_DESC_F_INDIRECT, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);

	/* An indirect descriptor inside the indirect table */
	again();
	put_desc(IND_OFF, 0, GPA + IND_OFF, VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT, 0);
	put_desc(DESC_OFF, 0, GPA + IND_OFF, VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);

	/* INDIRECT with NEXT */
	again();
	put_desc(IND_OFF, 0, GPA + BUF_OFF, 12, 0, 0);
	put_desc(DESC_OFF, 0, GPA + IND_OFF, VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT | VRING_DESC_F_NEXT, 1);
	put_desc(DESC_OFF, 1, GPA + BUF_OFF, 12, 0, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);

	/* A loop inside the table */
	again();
	put_desc(IND_OFF, 0, GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 1);
	put_desc(IND_OFF, 1, GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 0);
	put_desc(DESC_OFF, 0, GPA + IND_OFF, 2 * VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);

	/* Table outside guest memory */
	again();
	put_desc(DESC_OFF, 0, GPA + MEM_LEN - VQ_DESC_LEN, 2 * VQ_DESC_LEN,
		 VRING_DESC_F_INDIRECT, 0);
	make_avail(0);
	pop_expect(VQ_BROKEN, &e);
}

/* A buffer across two adjacent regions takes two entries */
static void test_two_regions(void **state)
{
	struct vq_elem e;

	(void)state;
	table.n = 2;
	table.r[0].size = MEM_LEN / 2;
	table.r[1] = (struct vu_region){ .gpa = GPA + MEM_LEN / 2,
					 .size = MEM_LEN / 2,
					 .uva = UVA + MEM_LEN,
					 .mmap_off = MEM_LEN / 2,
					 .map = mem, .map_len = MEM_LEN };
	assert_true(vu_mem_regions_valid(table.r, 2));
	put_desc(DESC_OFF, 0, GPA + MEM_LEN / 2 - 10, 30, 0, 0);
	make_avail(0);
	pop_expect(VQ_OK, &e);
	assert_int_equal(e.n_out, 2);
	assert_int_equal(e.iov[0].iov_len, 10);
	assert_int_equal(e.iov[1].iov_len, 20);
	assert_ptr_equal(e.iov[1].iov_base, mem + MEM_LEN / 2);
}

static void test_map(void **state)
{
	(void)state;
	q.num = 12;				/* not a power of two */
	assert_false(vq_map(&q, &table));
	q.num = NUM;
	q.used_uva = UVA + USED_OFF + 2;	/* used ring 4-byte aligned */
	assert_false(vq_map(&q, &table));
	q.used_uva = UVA + MEM_LEN - 8;		/* past the region */
	assert_false(vq_map(&q, &table));
	q.used_uva = UVA + USED_OFF;
	q.desc_uva = GPA + DESC_OFF;		/* a guest address, not ours */
	assert_false(vq_map(&q, &table));
	assert_false(vq_ready(&q));
}

static void test_notify(void **state)
{
	(void)state;
	/* Without EVENT_IDX the driver's flag decides */
	q.used_idx = 1;
	assert_true(vq_should_notify(&q));
	le16_put(AVAIL_OFF, VRING_AVAIL_F_NO_INTERRUPT);
	assert_false(vq_should_notify(&q));

	/* With it: interrupt when used passes used_event (2.7.7.2) */
	again();
	q.event_idx = true;
	assert_true(vq_map(&q, &table));
	le16_put(AVAIL_OFF + 4 + 2 * NUM, 0);	/* used_event: after entry 0 */
	vq_flush(&q, 1);
	assert_true(vq_should_notify(&q));	/* first time, and 0 passed */
	vq_flush(&q, 1);
	assert_false(vq_should_notify(&q));	/* driver wants 0 only */
	le16_put(AVAIL_OFF + 4 + 2 * NUM, 4);
	vq_flush(&q, 2);			/* used 2 -> 4: not past 4 */
	assert_false(vq_should_notify(&q));
	vq_flush(&q, 3);			/* 4 -> 7: entry 4 passed */
	assert_true(vq_should_notify(&q));
}

/* With EVENT_IDX, the device says where the driver should kick next */
static void test_avail_event(void **state)
{
	struct vq_elem e;

	(void)state;
	q.event_idx = true;
	assert_true(vq_map(&q, &table));
	put_desc(DESC_OFF, 0, GPA + BUF_OFF, 10, 0, 0);
	make_avail(0);
	make_avail(0);
	pop_expect(VQ_OK, &e);
	assert_int_equal(le16_at(USED_OFF + 4 + 8 * NUM), 1);
	vq_unpop(&q, 1);
	pop_expect(VQ_OK, &e);
	pop_expect(VQ_OK, &e);
	assert_int_equal(le16_at(USED_OFF + 4 + 8 * NUM), 2);
}

static void test_regions_valid(void **state)
{
	struct vu_region r[2] = {
		{ .gpa = 0, .size = 0x1000, .uva = 0x10000 },
		{ .gpa = 0x1000, .size = 0x1000, .uva = 0x20000 },
	};

	(void)state;
	assert_true(vu_mem_regions_valid(r, 2));
	r[1].gpa = 0xfff;			/* overlap in guest space */
	assert_false(vu_mem_regions_valid(r, 2));
	r[1].gpa = 0x1000;
	r[1].uva = 0x10fff;			/* overlap in front-end space */
	assert_false(vu_mem_regions_valid(r, 2));
	r[1].uva = 0x20000;
	r[1].size = 0;
	assert_false(vu_mem_regions_valid(r, 2));
	r[1].size = 0x1000;
	r[1].gpa = UINT64_MAX - 0x800;		/* wraps */
	assert_false(vu_mem_regions_valid(r, 2));
	assert_false(vu_mem_regions_valid(r, VU_MEM_SLOTS + 1));
}

static void test_gpa(void **state)
{
	(void)state;
	assert_ptr_equal(vu_gpa(&table, GPA, MEM_LEN), mem);
	assert_ptr_equal(vu_gpa(&table, GPA + MEM_LEN - 1, 1),
			 mem + MEM_LEN - 1);
	assert_null(vu_gpa(&table, GPA + MEM_LEN, 1));
	assert_null(vu_gpa(&table, GPA, MEM_LEN + 1));
	assert_null(vu_gpa(&table, GPA, 0));
	assert_null(vu_gpa(&table, GPA + 1, UINT64_MAX));
	assert_null(vu_uva(&table, UVA + 8, UINT64_MAX - 4));
	assert_ptr_equal(vu_uva(&table, UVA + 8, 8), mem + 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tx_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_push, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dirty_log, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_self_loop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_outside_memory, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_indices, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write_then_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_indirect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_indirect_bad, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_regions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_avail_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_regions_valid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gpa, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
