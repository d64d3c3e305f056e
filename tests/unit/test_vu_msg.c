// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the vhost-user requests
 *
 * Messages are built as QEMU's and Cloud Hypervisor's front-ends send them
 * (docs/interop/vhost-user.rst): what must get a reply, what must not,
 * what a broken front-end is dropped for, and that every descriptor a
 * message carries is either kept or closed.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "unit.h"
#include "vhost_user/dev.h"

static struct vu_dev dev;

/**
 * setup() - a device no front-end touched
 * @state:	unused
 *
 * Return: 0
 */
static int setup(void **state)
{
	(void)state;
	vu_dev_init(&dev, vu_features_offered(true));
	return 0;
}

/**
 * teardown() - drop the front-end: close and unmap what it left
 * @state:	unused
 *
 * Return: 0
 */
static int teardown(void **state)
{
	(void)state;
	vu_dev_reset(&dev);
	return 0;
}

/**
 * msg() - a request with flags for version 1
 * @m:		filled
 * @req:	request
 * @flags:	extra flags (VU_FLAG_NEED_REPLY)
 * @size:	payload size
 */
static void msg(struct vu_msg *m, uint32_t req, uint32_t flags, uint32_t size)
{
	memset(m, 0, sizeof(*m));
	m->request = req;
	m->flags = VU_VERSION | flags;
	m->size = size;
}

/**
 * msg_u64() - a request with a 64-bit payload
 * @m:		filled
 * @req:	request
 * @flags:	extra flags
 * @v:		payload
 */
static void msg_u64(struct vu_msg *m, uint32_t req, uint32_t flags,
		    uint64_t v)
{
	msg(m, req, flags, 8);
	m->payload.u64 = v;
}

/**
 * msg_state() - a request with a vring state payload
 * @m:		filled
 * @req:	request
 * @flags:	extra flags
 * @idx:	queue index
 * @num:	value
 */
static void msg_state(struct vu_msg *m, uint32_t req, uint32_t flags,
		      uint32_t idx, uint32_t num)
{
	msg(m, req, flags, VU_STATE_LEN);
	memcpy(m->payload.b, &idx, 4);
	memcpy(m->payload.b + 4, &num, 4);
}

/**
 * fd_open() - is a descriptor still open
 * @fd:		descriptor
 *
 * Return: true if it is
 */
static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/**
 * assert_ack() - the request got a REPLY_ACK answer
 * @m:		the message after vu_handle()
 * @r:		what vu_handle() returned
 * @ok:		success (0) expected, else failure (not 0)
 */
static void assert_ack(const struct vu_msg *m, enum vu_result r, bool ok)
{
	assert_int_equal(r, VU_REPLY);
	assert_int_equal(m->flags, VU_VERSION | VU_FLAG_REPLY);
	assert_int_equal(m->size, 8);
	if (ok)
		assert_int_equal(m->payload.u64, 0);
	else
		assert_int_not_equal(m->payload.u64, 0);
}

static void test_framing(void **state)
{
	uint8_t buf[VU_HDR_LEN + VU_PAYLOAD_MAX + 8] = { 0 };
	uint32_t v;
	struct vu_msg m;

	(void)state;
	assert_int_equal(vu_msg_need(buf, 0), VU_HDR_LEN);
	assert_int_equal(vu_msg_need(buf, 11), VU_HDR_LEN);
	v = 8;
	memcpy(buf + 8, &v, 4);
	assert_int_equal(vu_msg_need(buf, 12), 20);
	v = VU_PAYLOAD_MAX + 1;
	memcpy(buf + 8, &v, 4);
	assert_int_equal(vu_msg_need(buf, 12), -1);
	v = 0xffffffff;
	memcpy(buf + 8, &v, 4);
	assert_int_equal(vu_msg_need(buf, 12), -1);

	/* GET_FEATURES, version 1 */
	v = VU_GET_FEATURES;
	memcpy(buf, &v, 4);
	v = VU_VERSION;
	memcpy(buf + 4, &v, 4);
	v = 0;
	memcpy(buf + 8, &v, 4);
	assert_true(vu_msg_parse(buf, 12, &m));
	assert_int_equal(m.request, VU_GET_FEATURES);
	assert_false(vu_msg_parse(buf, 11, &m));
	assert_false(vu_msg_parse(buf, 13, &m));	/* not one message */
	v = 2;						/* another version */
	memcpy(buf + 4, &v, 4);
	assert_false(vu_msg_parse(buf, 12, &m));
}

static void test_encode(void **state)
{
	uint8_t buf[64];
	struct vu_msg m;

	(void)state;
	msg(&m, VU_GET_FEATURES, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_int_equal(vu_msg_encode(&m, buf, sizeof(buf)), 20);
	assert_int_equal(buf[0], VU_GET_FEATURES);
	assert_int_equal(buf[4], VU_VERSION | VU_FLAG_REPLY);
	assert_int_equal(buf[8], 8);
	assert_int_equal(vu_msg_encode(&m, buf, 19), 0);
}

static void test_features(void **state)
{
	struct vu_msg m;
	uint64_t f;

	(void)state;
	msg(&m, VU_GET_FEATURES, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_int_equal(m.flags, VU_VERSION | VU_FLAG_REPLY);
	assert_int_equal(m.size, 8);
	f = m.payload.u64;
	assert_true(f & 1ULL << VIRTIO_F_VERSION_1);
	assert_true(f & 1ULL << VU_F_PROTOCOL_FEATURES);

	msg_u64(&m, VU_SET_FEATURES, 0, f);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_int_equal(dev.features, f);
	assert_int_equal(vu_vnet_hdr_len(&dev), 12);
	/* With protocol features, rings wait for SET_VRING_ENABLE */
	assert_false(dev.vq[0].enabled);

	msg_u64(&m, VU_SET_FEATURES, 0, 1ULL << 63);	/* never offered */
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	msg(&m, VU_SET_FEATURES, 0, 4);			/* short */
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
}

/* By default, only what every passt with migration offers (passt's
 * vhost_user.c of 2025-05: VERSION_1, MRG_RXBUF, LOG_ALL,
 * PROTOCOL_FEATURES), and MQ, which only a VMM with several queue pairs
 * takes: a guest started here can move to passt
 */
static void test_features_passt(void **state)
{
	const uint64_t passt = 1ULL << VIRTIO_F_VERSION_1 |
			       1ULL << VIRTIO_NET_F_MRG_RXBUF |
			       1ULL << VU_F_LOG_ALL |
			       1ULL << VU_F_PROTOCOL_FEATURES;
	uint64_t f = vu_features_offered(false);

	(void)state;
	assert_true((f & ~(1ULL << VIRTIO_NET_F_MQ)) == passt);
	assert_true(vu_features_offered(true) & 1ULL << VIRTIO_NET_F_HOST_TSO4);
	assert_true(vu_features_offered(true) & 1ULL << VIRTIO_RING_F_EVENT_IDX);
}

static void test_no_protocol_features(void **state)
{
	struct vu_msg m;

	(void)state;
	msg_u64(&m, VU_SET_FEATURES, 0, 1ULL << VIRTIO_F_VERSION_1);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_true(dev.vq[0].enabled && dev.vq[1].enabled);
}

static void test_protocol_features(void **state)
{
	struct vu_msg m;
	uint64_t f;

	(void)state;
	msg(&m, VU_GET_PROTOCOL_FEATURES, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	f = m.payload.u64;
	assert_true(f & 1ULL << VU_PROTOCOL_F_REPLY_ACK);
	msg_u64(&m, VU_SET_PROTOCOL_FEATURES, 0, f);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_int_equal(dev.protocol, f);
	msg(&m, VU_GET_QUEUE_NUM, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_int_equal(m.payload.u64, VU_PAIRS);
}

/* REPLY_ACK: an answer exactly when NEED_REPLY asks */
static void test_reply_ack(void **state)
{
	struct vu_msg m;

	(void)state;
	msg(&m, VU_SET_OWNER, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	msg(&m, VU_SET_OWNER, VU_FLAG_NEED_REPLY, 0);
	assert_ack(&m, vu_handle(&dev, &m), true);

	msg_state(&m, VU_SET_VRING_ENABLE, VU_FLAG_NEED_REPLY, 1, 1);
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_true(dev.vq[1].enabled);

	msg_u64(&m, VU_SEND_RARP, VU_FLAG_NEED_REPLY, 0x0102030405ULL);
	assert_ack(&m, vu_handle(&dev, &m), true);
	msg_u64(&m, VU_SEND_RARP, 0, 0x0102030405ULL);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
}

static void test_unknown(void **state)
{
	struct vu_msg m;
	int fd;

	(void)state;
	msg(&m, 99, 0, 16);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);

	fd = eventfd(0, EFD_CLOEXEC);
	msg(&m, 99, VU_FLAG_NEED_REPLY, 16);
	m.fds[0] = fd;
	m.nfds = 1;
	assert_ack(&m, vu_handle(&dev, &m), false);
	assert_false(fd_open(fd));

	/* Not offered: a failure when asked, and never the MTU applied */
	msg_u64(&m, VU_NET_SET_MTU, VU_FLAG_NEED_REPLY, 9000);
	assert_ack(&m, vu_handle(&dev, &m), false);
	msg(&m, VU_SET_CONFIG, VU_FLAG_NEED_REPLY, 20);
	assert_ack(&m, vu_handle(&dev, &m), false);

	/* A query not offered gets a reply of the wrong size, not silence */
	msg(&m, VU_GET_CONFIG, 0, 12 + 6);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_int_equal(m.flags, VU_VERSION | VU_FLAG_REPLY);
	assert_int_equal(m.size, 0);
	msg(&m, VU_GET_STATUS, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
}

static void test_vring_fds(void **state)
{
	int kick = eventfd(0, EFD_CLOEXEC), call = eventfd(0, EFD_CLOEXEC);
	int kick2 = eventfd(0, EFD_CLOEXEC);
	struct vu_msg m;

	(void)state;
	msg_u64(&m, VU_SET_VRING_KICK, 0, 1);
	m.fds[0] = kick;
	m.nfds = 1;
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_int_equal(dev.vq[1].kick_fd, kick);
	assert_true(dev.vq[1].started);
	assert_true(fd_open(kick));

	msg_u64(&m, VU_SET_VRING_CALL, 0, 1);
	m.fds[0] = call;
	m.nfds = 1;
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_int_equal(dev.vq[1].call_fd, call);

	/* A new kick descriptor replaces, and closes, the old one */
	msg_u64(&m, VU_SET_VRING_KICK, 0, 1);
	m.fds[0] = kick2;
	m.nfds = 1;
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_false(fd_open(kick));
	assert_int_equal(dev.vq[1].kick_fd, kick2);

	/* No descriptor: the flag says so */
	msg_u64(&m, VU_SET_VRING_CALL, 0, 1 | VU_VRING_NOFD);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_false(fd_open(call));
	assert_int_equal(dev.vq[1].call_fd, -1);

	/* Missing descriptor, bad index */
	msg_u64(&m, VU_SET_VRING_CALL, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	msg_u64(&m, VU_SET_VRING_KICK, 0, VU_QUEUES | VU_VRING_NOFD);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);

	/* GET_VRING_BASE stops the ring and closes its kick descriptor */
	msg_state(&m, VU_SET_VRING_BASE, 0, 1, 4242);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	msg_state(&m, VU_GET_VRING_BASE, 0, 1, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_int_equal(m.size, VU_STATE_LEN);
	assert_int_equal(m.payload.b[0], 1);
	assert_int_equal(m.payload.b[4] | m.payload.b[5] << 8, 4242);
	assert_false(dev.vq[1].started);
	assert_false(fd_open(kick2));
}

static void test_vring_num(void **state)
{
	struct vu_msg m;

	(void)state;
	msg_state(&m, VU_SET_VRING_NUM, 0, 0, 256);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_int_equal(dev.vq[0].num, 256);
	msg_state(&m, VU_SET_VRING_NUM, 0, 0, 100);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	msg_state(&m, VU_SET_VRING_NUM, 0, 0, 65536);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	msg_state(&m, VU_SET_VRING_NUM, 0, VU_QUEUES, 256);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	msg(&m, VU_SET_VRING_NUM, 0, 4);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
}

/**
 * mem_table() - a SET_MEM_TABLE request for regions of one memfd
 * @m:		filled
 * @fd:		the memfd, sent once per region
 * @n:		regions
 * @gpa:	guest-physical address of each
 * @size:	size of each
 * @uva:	front-end address of each
 * @off:	offset of each in the memfd
 */
static void mem_table(struct vu_msg *m, int fd, uint32_t n,
		      const uint64_t *gpa, const uint64_t *size,
		      const uint64_t *uva, const uint64_t *off)
{
	uint32_t i;

	msg(m, VU_SET_MEM_TABLE, VU_FLAG_NEED_REPLY,
	    VU_MEM_HDR_LEN + n * VU_MEM_REGION_LEN);
	memcpy(m->payload.b, &n, 4);
	for (i = 0; i < n; i++) {
		uint8_t *r = m->payload.b + VU_MEM_HDR_LEN +
			     i * VU_MEM_REGION_LEN;

		memcpy(r, &gpa[i], 8);
		memcpy(r + 8, &size[i], 8);
		memcpy(r + 16, &uva[i], 8);
		memcpy(r + 24, &off[i], 8);
		m->fds[i] = dup(fd);
	}
	m->nfds = n;
}

/* The whole set-up of a queue as QEMU does it, on a real memfd */
static void test_mem_and_ring(void **state)
{
	uint64_t gpa[2] = { 0, 0x100000 }, size[2] = { 0x10000, 0x10000 };
	uint64_t uva[2] = { 0x7f0000000000, 0x7f0000100000 };
	uint64_t off[2] = { 0, 0x10000 };
	int fd = memfd_create("guest", MFD_CLOEXEC), kick;
	uint8_t *ours, *guest;
	struct vu_msg m;
	int sent;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 0x20000), 0);
	guest = mmap(NULL, 0x20000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(guest != MAP_FAILED);

	mem_table(&m, fd, 2, gpa, size, uva, off);
	sent = m.fds[1];
	assert_ack(&m, vu_handle(&dev, &m), true);
	/* Kept by the table, for a netshim that takes over */
	assert_int_equal(dev.mem.r[1].fd, sent);
	assert_true(fd_open(sent));
	assert_int_equal(dev.mem.n, 2);

	/* Both are the same memory: a write by the guest is seen */
	guest[0x10000 + 5] = 0x77;
	ours = vu_gpa(&dev.mem, 0x100005, 1);
	assert_non_null(ours);
	assert_int_equal(*ours, 0x77);
	assert_null(vu_gpa(&dev.mem, 0x10000, 1));	/* the hole */

	msg_state(&m, VU_SET_VRING_NUM, 0, 0, 256);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	msg_state(&m, VU_SET_VRING_BASE, 0, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	msg(&m, VU_SET_VRING_ADDR, VU_FLAG_NEED_REPLY, VU_ADDR_LEN);
	memcpy(m.payload.b + 8, &(uint64_t){ 0x7f0000000000 }, 8);  /* desc */
	memcpy(m.payload.b + 16, &(uint64_t){ 0x7f0000002000 }, 8); /* used */
	memcpy(m.payload.b + 24, &(uint64_t){ 0x7f0000001000 }, 8); /* avail */
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_ptr_equal(dev.vq[0].desc, vu_gpa(&dev.mem, 0, 1));

	kick = eventfd(0, EFD_CLOEXEC);
	msg_u64(&m, VU_SET_VRING_KICK, 0, 0);
	m.fds[0] = kick;
	m.nfds = 1;
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_false(vq_ready(&dev.vq[0]));		/* not enabled yet */
	msg_state(&m, VU_SET_VRING_ENABLE, 0, 0, 1);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_true(vq_ready(&dev.vq[0]));

	/* A new table unmaps the old one, and closes its descriptors; the
	 * rings are found again
	 */
	mem_table(&m, fd, 1, gpa, size, uva, off);
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_int_equal(dev.mem.n, 1);
	assert_false(fd_open(sent));
	assert_true(vq_ready(&dev.vq[0]));

	/* A ring outside guest memory is refused, and the queue unusable */
	msg(&m, VU_SET_VRING_ADDR, VU_FLAG_NEED_REPLY, VU_ADDR_LEN);
	memcpy(m.payload.b + 8, &(uint64_t){ 0x7f000000f800 }, 8);
	memcpy(m.payload.b + 16, &(uint64_t){ 0x7f0000002000 }, 8);
	memcpy(m.payload.b + 24, &(uint64_t){ 0x7f0000001000 }, 8);
	assert_ack(&m, vu_handle(&dev, &m), false);
	assert_false(vq_ready(&dev.vq[0]));

	munmap(guest, 0x20000);
	close(fd);
}

static void test_mem_bad(void **state)
{
	uint64_t gpa[2] = { 0, 0x8000 }, size[2] = { 0x10000, 0x10000 };
	uint64_t uva[2] = { 0x7f0000000000, 0x7f0000100000 };
	uint64_t off[2] = { 0, 0x10000 };
	int fd = memfd_create("guest", MFD_CLOEXEC), sent[2];
	struct vu_msg m;

	(void)state;
	assert_int_equal(ftruncate(fd, 0x20000), 0);

	/* Overlapping guest-physical ranges */
	mem_table(&m, fd, 2, gpa, size, uva, off);
	sent[0] = m.fds[0];
	sent[1] = m.fds[1];
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_false(fd_open(sent[0]) || fd_open(sent[1]));
	assert_int_equal(dev.mem.n, 0);

	/* One descriptor short */
	gpa[1] = 0x100000;
	mem_table(&m, fd, 2, gpa, size, uva, off);
	close(m.fds[1]);
	m.nfds = 1;
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);

	/* Payload shorter than the regions it claims */
	mem_table(&m, fd, 2, gpa, size, uva, off);
	m.size = VU_MEM_HDR_LEN + VU_MEM_REGION_LEN;
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);

	/* A size that wraps */
	size[0] = UINT64_MAX;
	mem_table(&m, fd, 1, gpa, size, uva, off);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);

	/* A region past the end of its file: mmap() would take it, and
	 * the first access would be SIGBUS; refused instead
	 */
	size[0] = 0x10000;
	off[0] = 0x20000 - 0x8000;
	mem_table(&m, fd, 1, gpa, size, uva, off);
	assert_ack(&m, vu_handle(&dev, &m), false);
	assert_int_equal(dev.mem.n, 0);
	close(fd);
}

/**
 * mem_reg() - an ADD_MEM_REG or REM_MEM_REG as QEMU sends it
 * @m:		filled
 * @req:	VU_ADD_MEM_REG or VU_REM_MEM_REG
 * @fd:		descriptor sent with it, duplicated, or -1 for none
 * @gpa:	guest-physical address of the region
 * @size:	its size
 * @uva:	the front-end's address of it
 * @off:	its offset in the file
 */
static void mem_reg(struct vu_msg *m, uint32_t req, int fd, uint64_t gpa,
		    uint64_t size, uint64_t uva, uint64_t off)
{
	msg(m, req, VU_FLAG_NEED_REPLY, VU_MEM_REG_LEN);
	memcpy(m->payload.b + 8, &gpa, 8);
	memcpy(m->payload.b + 16, &size, 8);
	memcpy(m->payload.b + 24, &uva, 8);
	memcpy(m->payload.b + 32, &off, 8);
	if (fd >= 0) {
		m->fds[0] = dup(fd);
		m->nfds = 1;
	}
}

/**
 * slots_negotiated() - a front-end that took CONFIGURE_MEM_SLOTS
 */
static void slots_negotiated(void)
{
	struct vu_msg m;

	msg_u64(&m, VU_GET_PROTOCOL_FEATURES, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_true(m.payload.u64 & 1ULL << VU_PROTOCOL_F_CONFIGURE_MEM_SLOTS);
	msg_u64(&m, VU_SET_PROTOCOL_FEATURES, 0,
		1ULL << VU_PROTOCOL_F_REPLY_ACK |
		1ULL << VU_PROTOCOL_F_CONFIGURE_MEM_SLOTS);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
}

/* QEMU's way with CONFIGURE_MEM_SLOTS: GET_MAX_MEM_SLOTS, then one
 * region at a time, a changed region removed and added back while the
 * rings run (hw/virtio/vhost-user.c, vhost_user_add_remove_regions())
 */
static void test_mem_slots(void **state)
{
	int fd = memfd_create("guest", MFD_CLOEXEC), kick, sent;
	uint64_t max;
	struct vu_msg m;
	uint8_t *guest;

	(void)state;
	assert_int_equal(ftruncate(fd, 0x20000), 0);
	guest = mmap(NULL, 0x20000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(guest != MAP_FAILED);
	slots_negotiated();

	msg(&m, VU_GET_MAX_MEM_SLOTS, 0, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_REPLY);
	assert_int_equal(m.size, 8);
	max = m.payload.u64;
	assert_true(max >= 8);		/* at least what SET_MEM_TABLE takes */

	mem_reg(&m, VU_ADD_MEM_REG, fd, 0, 0x10000, 0x7f0000000000, 0);
	sent = m.fds[0];
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_true(fd_open(sent));		/* the table keeps it */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x100000, 0x10000, 0x7f0000100000,
		0x10000);
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_int_equal(dev.mem.n, 2);
	guest[0x10000 + 5] = 0x77;
	assert_int_equal(*(uint8_t *)vu_gpa(&dev.mem, 0x100005, 1), 0x77);

	/* Queue 0 with its rings in the first region, running */
	msg_state(&m, VU_SET_VRING_NUM, 0, 0, 256);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	msg(&m, VU_SET_VRING_ADDR, 0, VU_ADDR_LEN);
	memcpy(m.payload.b + 8, &(uint64_t){ 0x7f0000000000 }, 8);
	memcpy(m.payload.b + 16, &(uint64_t){ 0x7f0000002000 }, 8);
	memcpy(m.payload.b + 24, &(uint64_t){ 0x7f0000001000 }, 8);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	kick = eventfd(0, EFD_CLOEXEC);
	msg_u64(&m, VU_SET_VRING_KICK, 0, 0);
	m.fds[0] = kick;
	m.nfds = 1;
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	msg_state(&m, VU_SET_VRING_ENABLE, 0, 0, 1);
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_true(vq_ready(&dev.vq[0]));

	/* The region under the rings goes: the queue stops, nothing points
	 * into the unmapped memory; the descriptor QEMU sends is closed
	 */
	mem_reg(&m, VU_REM_MEM_REG, fd, 0, 0x10000, 0x7f0000000000, 0);
	sent = m.fds[0];
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_false(fd_open(sent));
	assert_int_equal(dev.mem.n, 1);
	assert_false(vq_ready(&dev.vq[0]));
	assert_null(dev.vq[0].desc);
	assert_null(vu_gpa(&dev.mem, 0, 1));
	/* ... and comes back: the queue runs again, without REPLY_ACK */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0, 0x10000, 0x7f0000000000, 0);
	m.flags = VU_VERSION;
	assert_int_equal(vu_handle(&dev, &m), VU_DONE);
	assert_true(vq_ready(&dev.vq[0]));
	assert_ptr_equal(dev.vq[0].desc, vu_gpa(&dev.mem, 0, 1));

	/* Up to the advertised maximum, and no further */
	while (dev.mem.n < max) {
		uint64_t gpa = 0x1000000 + dev.mem.n * 0x10000;

		mem_reg(&m, VU_ADD_MEM_REG, fd, gpa, 0x1000,
			0x7f0000000000 + gpa, 0);
		assert_ack(&m, vu_handle(&dev, &m), true);
	}
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x8000000, 0x1000, 0x7f0008000000, 0);
	sent = m.fds[0];
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_false(fd_open(sent));

	munmap(guest, 0x20000);
	close(fd);
}

static void test_mem_slots_bad(void **state)
{
	int fd = memfd_create("guest", MFD_CLOEXEC), sent;
	struct vu_msg m;

	(void)state;
	assert_int_equal(ftruncate(fd, 0x20000), 0);

	/* Not negotiated: the requests are not valid */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0, 0x10000, 0x7f0000000000, 0);
	sent = m.fds[0];
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_false(fd_open(sent));

	slots_negotiated();
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0, 0x10000, 0x7f0000000000, 0);
	assert_ack(&m, vu_handle(&dev, &m), true);

	/* Overlapping the region there, in guest-physical space ... */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x8000, 0x10000, 0x7f0000100000, 0);
	sent = m.fds[0];
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_false(fd_open(sent));
	/* ... and in the front-end's */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x100000, 0x10000, 0x7f000000f000, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	/* No descriptor, two descriptors */
	mem_reg(&m, VU_ADD_MEM_REG, -1, 0x100000, 0x10000, 0x7f0000100000, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x100000, 0x10000, 0x7f0000100000, 0);
	m.fds[1] = dup(fd);
	m.nfds = 2;
	sent = m.fds[1];
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_false(fd_open(sent));
	/* Past the end of its file, and an offset that wraps */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x100000, 0x10000, 0x7f0000100000,
		0x18000);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x100000, 0x10000, 0x7f0000100000,
		UINT64_MAX - 0x100);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	/* Short payload */
	mem_reg(&m, VU_ADD_MEM_REG, fd, 0x100000, 0x10000, 0x7f0000100000, 0);
	m.size = VU_MEM_REG_LEN - 8;
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_int_equal(dev.mem.n, 1);		/* none of these taken */

	/* Removing what is not there: another size, another address */
	mem_reg(&m, VU_REM_MEM_REG, -1, 0, 0x8000, 0x7f0000000000, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	mem_reg(&m, VU_REM_MEM_REG, -1, 0x100000, 0x10000, 0x7f0000100000, 0);
	assert_int_equal(vu_handle(&dev, &m), VU_DROP);
	assert_int_equal(dev.mem.n, 1);
	/* The right one, without a descriptor, as the spec prefers */
	mem_reg(&m, VU_REM_MEM_REG, -1, 0, 0x10000, 0x7f0000000000, 0x1234);
	assert_ack(&m, vu_handle(&dev, &m), true);
	assert_int_equal(dev.mem.n, 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_framing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_encode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features, setup, teardown),
		cmocka_unit_test(test_features_passt),
		cmocka_unit_test_setup_teardown(test_no_protocol_features,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_protocol_features, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reply_ack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vring_fds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_vring_num, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mem_and_ring, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mem_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mem_slots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mem_slots_bad, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
