// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vu_relay - join a tap device to a vhost-user back-end, as a front-end
 *
 * Usage: vu_relay [--mtu N] [--features LIST] [--offload] [--mem-slots]
 *		  TAPNAME SOCKETPATH|fd:N
 *
 * The vhost-user counterpart of tests/relay.c: it runs in the test's guest
 * namespace, whose kernel stack plays the guest, and is the virtio driver
 * and the vhost-user front-end at once (docs/interop/vhost-user.rst,
 * virtio 1.2 2.7): a shared memfd as guest memory, one receive and one
 * transmit split ring of 256 entries, one 64 KiB buffer per entry, kick
 * and call eventfds.  The tap carries the 12-byte virtio-net header too
 * (IFF_VNET_HDR), so the guest kernel reads the back-end's header as
 * Linux's virtio-net driver does (DATA_VALID, num_buffers), and its frames
 * go out with the header the kernel writes.  Native speed, unlike a VM
 * under TCG.
 *
 * --features (or VU_RELAY_FEATURES in the environment) asks for offloads,
 * comma separated: csum, host_tso4, host_tso6 (the guest's checksums and
 * TSO frames left to the back-end), guest_csum, guest_tso4, guest_tso6
 * (the back-end's), "all" (every offload), or "none" (the default: plain
 * frames); and event_idx, notifications suppressed by ring indices as
 * Linux's driver negotiates them (virtio 1.2 2.7.7, 2.7.10).  Each is
 * negotiated only if the back-end offers it, as Linux's driver does, and
 * the tap is told the same (TUNSETOFFLOAD), so the guest kernel hands over
 * and takes what a virtio-net guest with those features would.  --offload
 * is "all", and the relay exits if the back-end does not offer every one
 * of them.
 *
 * --mem-slots (or VU_RELAY_MEM_SLOTS=1) gives the back-end guest memory as
 * QEMU does when the back-end offers CONFIGURE_MEM_SLOTS: GET_MAX_MEM_SLOTS,
 * then one ADD_MEM_REG per region instead of SET_MEM_TABLE.  The memfd is
 * cut into three regions (the rings; the receive buffers up to a page in
 * the middle of one; the rest), adjacent in guest-physical and front-end
 * addresses, so one buffer straddles two regions; the last is then
 * removed and added back (REM_MEM_REG), as QEMU updates a changed region.
 * The relay exits if the feature is not offered.  On exit the relay prints
 * what it moved and what it negotiated.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NUM		256
#define HDR		12		/* virtio_net_hdr_mrg_rxbuf */
#define SLOT		(64 * 1024 + 4096)
#define RING_AREA	0x20000		/* both queues' rings */
#define RX_BUFS		RING_AREA
#define TX_BUFS		(RX_BUFS + NUM * SLOT)
#define MEM_SIZE	(TX_BUFS + NUM * SLOT)
#define UVA		0x7f0000000000ULL
#define MTU_MAX		65520

#define GET_FEATURES		1
#define SET_FEATURES		2
#define SET_OWNER		3
#define SET_MEM_TABLE		5
#define SET_VRING_NUM		8
#define SET_VRING_ADDR		9
#define SET_VRING_BASE		10
#define SET_VRING_KICK		12
#define SET_VRING_CALL		13
#define GET_PROTOCOL_FEATURES	15
#define SET_PROTOCOL_FEATURES	16
#define SET_VRING_ENABLE	18
#define GET_MAX_MEM_SLOTS	36
#define ADD_MEM_REG		37
#define REM_MEM_REG		38
#define F_VERSION_1		(1ULL << 32)
#define F_MRG_RXBUF		(1ULL << 15)
#define F_CSUM			(1ULL << 0)
#define F_GUEST_CSUM		(1ULL << 1)
#define F_GUEST_TSO4		(1ULL << 7)
#define F_GUEST_TSO6		(1ULL << 8)
#define F_HOST_TSO4		(1ULL << 11)
#define F_HOST_TSO6		(1ULL << 12)
#define F_OFFLOADS		(F_CSUM | F_GUEST_CSUM | F_GUEST_TSO4 | \
				 F_GUEST_TSO6 | F_HOST_TSO4 | F_HOST_TSO6)
#define F_EVENT_IDX		(1ULL << 29)
#define F_PROTOCOL_FEATURES	(1ULL << 30)
#define PF_REPLY_ACK		(1ULL << 3)
#define PF_MEM_SLOTS		(1ULL << 15)	/* CONFIGURE_MEM_SLOTS */
/* Where --mem-slots cuts guest memory: a page inside receive buffer 100 */
#define MEM_CUT			(RX_BUFS + 100 * SLOT + 8192)
#define FLAG_VERSION		1
#define FLAG_REPLY		4
#define FLAG_NEED_REPLY		8
#define DESC_F_WRITE		2
#define HDR_F_DATA_VALID	2

/**
 * struct queue - the driver's side of one split ring
 * @base:	offset of its descriptor table in guest memory
 * @avail_idx:	next available entry we publish
 * @used_seen:	used entries already handled
 * @kicked:	avail index the back-end was last kicked for (EVENT_IDX)
 * @kick:	eventfd we signal after publishing
 * @call:	eventfd the back-end signals
 */
struct queue {
	size_t base;
	uint16_t avail_idx;
	uint16_t used_seen;
	uint16_t kicked;
	int kick, call;
};

/**
 * struct vr - the relay
 * @mem:	guest memory
 * @memfd:	its file
 * @sock:	the back-end's socket
 * @tap:	tap device
 * @q:		receive (0) and transmit (1) queues
 * @free:	transmit slots not in flight
 * @nfree:	how many
 * @want:	offload features asked for (--features)
 * @need_all:	--offload: exit unless every offload is offered
 * @mem_slots:	--mem-slots: memory by ADD_MEM_REG, not SET_MEM_TABLE
 * @max_slots:	what GET_MAX_MEM_SLOTS answered
 * @features:	features negotiated
 * @frames:	frames moved: to the tap (0), from it (1)
 * @bytes:	their bytes, virtio-net headers included
 * @dropped:	received frames not written to the tap (bad length, tap full)
 */
struct vr {
	uint8_t *mem;
	int memfd;
	int sock;
	int tap;
	struct queue q[2];
	uint16_t free[NUM];
	int nfree;
	uint64_t want;
	int need_all;
	int mem_slots;
	uint64_t max_slots;
	uint64_t features;
	uint64_t frames[2];
	uint64_t bytes[2];
	uint64_t dropped;
};

/**
 * struct offload - a feature --features can ask for
 * @name:	its name on the command line
 * @bit:	virtio feature bit
 * @offload:	part of "all" and --offload
 */
static const struct offload {
	const char *name;
	uint64_t bit;
	int offload;
} offloads[] = {
	{ "csum", F_CSUM, 1 },
	{ "guest_csum", F_GUEST_CSUM, 1 },
	{ "guest_tso4", F_GUEST_TSO4, 1 },
	{ "guest_tso6", F_GUEST_TSO6, 1 },
	{ "host_tso4", F_HOST_TSO4, 1 },
	{ "host_tso6", F_HOST_TSO6, 1 },
	{ "event_idx", F_EVENT_IDX, 0 },
};

static volatile sig_atomic_t stop;

/**
 * on_signal() - stop the relay on SIGTERM or SIGINT
 * @sig:	unused
 */
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/**
 * die() - report a failed call and exit
 * @what:	what failed
 */
static void die(const char *what)
{
	fprintf(stderr, "vu_relay: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * send_msg() - one request to the back-end, with descriptors if any
 * @r:		relay
 * @req:	request
 * @flags:	extra flags
 * @p:		payload
 * @len:	its length
 * @fds:	descriptors, or NULL
 * @nfds:	how many
 */
static void send_msg(struct vr *r, uint32_t req, uint32_t flags,
		     const void *p, uint32_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	uint8_t m[12 + 64];
	uint32_t hdr[3] = { req, FLAG_VERSION | flags, len };
	struct iovec iov = { m, 12 + len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(m, hdr, 12);
	memcpy(m + 12, p, len);
	if (nfds) {
		struct cmsghdr *cm;

		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	if (sendmsg(r->sock, &mh, MSG_NOSIGNAL) != (ssize_t)(12 + len))
		die("sendmsg");
}

/**
 * recv_u64() - the back-end's 64-bit reply to a request
 * @r:		relay
 * @req:	the request
 *
 * Return: the value; exits on anything else
 */
static uint64_t recv_u64(struct vr *r, uint32_t req)
{
	uint8_t m[20];
	uint32_t hdr[3];
	uint64_t v;

	if (recv(r->sock, m, sizeof(m), MSG_WAITALL) != sizeof(m)) {
		fprintf(stderr, "vu_relay: no reply to request %u\n", req);
		exit(1);
	}
	memcpy(hdr, m, 12);
	memcpy(&v, m + 12, 8);
	if (hdr[0] != req || hdr[1] != (FLAG_VERSION | FLAG_REPLY) ||
	    hdr[2] != 8) {
		fprintf(stderr, "vu_relay: bad reply to request %u\n", req);
		exit(1);
	}
	return v;
}

/**
 * acked() - a request that must succeed, REPLY_ACK asked
 * @r:		relay
 * @req:	request
 * @p:		payload
 * @len:	its length
 * @fds:	descriptors, or NULL
 * @nfds:	how many
 */
static void acked(struct vr *r, uint32_t req, const void *p, uint32_t len,
		  const int *fds, int nfds)
{
	send_msg(r, req, FLAG_NEED_REPLY, p, len, fds, nfds);
	if (recv_u64(r, req)) {
		fprintf(stderr, "vu_relay: request %u refused\n", req);
		exit(1);
	}
}

/**
 * mem_regions() - give the back-end guest memory region by region
 * @r:		relay
 *
 * As QEMU's front-end with CONFIGURE_MEM_SLOTS: one ADD_MEM_REG per
 * region, each with the memfd; a changed region is removed, then added
 * again.
 */
static void mem_regions(struct vr *r)
{
	static const uint64_t cut[4] = { 0, RING_AREA, MEM_CUT, MEM_SIZE };
	uint64_t reg[5] = { 0 };	/* padding, then the region */
	int i;

	send_msg(r, GET_MAX_MEM_SLOTS, 0, NULL, 0, NULL, 0);
	r->max_slots = recv_u64(r, GET_MAX_MEM_SLOTS);
	if (r->max_slots < 3) {
		fprintf(stderr, "vu_relay: %llu memory slots\n",
			(unsigned long long)r->max_slots);
		exit(1);
	}
	for (i = 0; i < 3; i++) {
		reg[1] = cut[i];		/* guest-physical address */
		reg[2] = cut[i + 1] - cut[i];	/* size */
		reg[3] = UVA + cut[i];		/* our address */
		reg[4] = cut[i];		/* offset in the memfd */
		acked(r, ADD_MEM_REG, reg, sizeof(reg), &r->memfd, 1);
	}
	/* QEMU names the region to remove with a zero offset */
	reg[4] = 0;
	acked(r, REM_MEM_REG, reg, sizeof(reg), NULL, 0);
	reg[4] = cut[2];
	acked(r, ADD_MEM_REG, reg, sizeof(reg), &r->memfd, 1);
}

/**
 * desc_put() - write a descriptor of a queue
 * @r:		relay
 * @q:		queue
 * @i:		index
 * @addr:	guest address of the buffer
 * @len:	its length
 * @flags:	DESC_F_*
 */
static void desc_put(struct vr *r, struct queue *q, uint16_t i, uint64_t addr,
		     uint32_t len, uint16_t flags)
{
	uint8_t *d = r->mem + q->base + 16 * i;
	uint16_t next = 0;

	memcpy(d, &addr, 8);
	memcpy(d + 8, &len, 4);
	memcpy(d + 12, &flags, 2);
	memcpy(d + 14, &next, 2);
}

/**
 * avail_add() - make a chain available, not yet published
 * @r:		relay
 * @q:		queue
 * @head:	its descriptor
 */
static void avail_add(struct vr *r, struct queue *q, uint16_t head)
{
	uint8_t *a = r->mem + q->base + 0x1000;

	memcpy(a + 4 + 2 * (q->avail_idx % NUM), &head, 2);
	q->avail_idx++;
}

/**
 * publish() - publish available entries and kick the back-end
 * @r:		relay
 * @q:		queue
 */
static void publish(struct vr *r, struct queue *q)
{
	uint16_t *idx = (uint16_t *)(r->mem + q->base + 0x1000 + 2);
	uint64_t one = 1;

	__atomic_store_n(idx, q->avail_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (r->features & F_EVENT_IDX) {
		/* avail_event, after the used ring's entries */
		uint16_t *ev = (uint16_t *)(r->mem + q->base + 0x2000 + 4 +
					    8 * NUM);
		uint16_t e = __atomic_load_n(ev, __ATOMIC_ACQUIRE);
		uint16_t old = q->kicked;

		q->kicked = q->avail_idx;
		/* vring_need_event(): did we pass the index it asked for */
		if ((uint16_t)(q->avail_idx - e - 1) >=
		    (uint16_t)(q->avail_idx - old))
			return;
	}
	if (write(q->kick, &one, sizeof(one)) < 0)
		die("kick");
}

/**
 * ask_calls() - with EVENT_IDX, ask for a call at the next used entry
 * @r:		relay
 *
 * used_event (after the avail ring's entries) set to what we have seen,
 * then the used rings looked at again: an entry the back-end added before
 * it could see the request would otherwise wait for the poll timeout.
 *
 * Return: 1 if there are used entries to handle now, 0 if not
 */
static int ask_calls(struct vr *r)
{
	int i, more = 0;

	if (!(r->features & F_EVENT_IDX))
		return 0;
	for (i = 0; i < 2; i++) {
		struct queue *q = &r->q[i];
		uint16_t *ue = (uint16_t *)(r->mem + q->base + 0x1000 + 4 +
					    2 * NUM);
		uint16_t *used = (uint16_t *)(r->mem + q->base + 0x2000 + 2);

		__atomic_store_n(ue, q->used_seen, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(used, __ATOMIC_ACQUIRE) != q->used_seen)
			more = 1;
	}
	return more;
}

/**
 * used_next() - the next used entry the back-end published, if any
 * @r:		relay
 * @q:		queue
 * @id:		set to its chain head
 * @len:	set to the bytes written
 *
 * Return: 1 if there was one, 0 if not
 */
static int used_next(struct vr *r, struct queue *q, uint16_t *id,
		     uint32_t *len)
{
	uint16_t *idx = (uint16_t *)(r->mem + q->base + 0x2000 + 2);
	uint8_t *e;
	uint32_t id32;

	if (__atomic_load_n(idx, __ATOMIC_ACQUIRE) == q->used_seen)
		return 0;
	e = r->mem + q->base + 0x2004 + 8 * (q->used_seen % NUM);
	memcpy(&id32, e, 4);
	memcpy(len, e + 4, 4);
	q->used_seen++;
	if (id32 >= NUM) {
		fprintf(stderr, "vu_relay: used id %u past the ring\n", id32);
		exit(1);
	}
	*id = (uint16_t)id32;
	return 1;
}

/**
 * setup() - the device, as QEMU sets it up before the driver runs
 * @r:		relay
 */
static void setup(struct vr *r)
{
	uint64_t f, pf, feat, region[4] = { 0, MEM_SIZE, UVA, 0 };
	uint8_t mem[8 + 32] = { 1 };
	int i;

	send_msg(r, GET_FEATURES, 0, NULL, 0, NULL, 0);
	f = feat = recv_u64(r, GET_FEATURES);
	if (!(f & F_VERSION_1) || !(f & F_PROTOCOL_FEATURES)) {
		fprintf(stderr, "vu_relay: features %#llx\n",
			(unsigned long long)f);
		exit(1);
	}
	send_msg(r, GET_PROTOCOL_FEATURES, 0, NULL, 0, NULL, 0);
	pf = recv_u64(r, GET_PROTOCOL_FEATURES);
	if (!(pf & PF_REPLY_ACK)) {
		fprintf(stderr, "vu_relay: no REPLY_ACK\n");
		exit(1);
	}
	f = PF_REPLY_ACK;
	if (r->mem_slots) {
		if (!(pf & PF_MEM_SLOTS)) {
			fprintf(stderr, "vu_relay: no CONFIGURE_MEM_SLOTS\n");
			exit(1);
		}
		f |= PF_MEM_SLOTS;
	}
	send_msg(r, SET_PROTOCOL_FEATURES, 0, &f, 8, NULL, 0);
	send_msg(r, SET_OWNER, 0, NULL, 0, NULL, 0);
	if (r->need_all && (feat & F_OFFLOADS) != F_OFFLOADS) {
		fprintf(stderr, "vu_relay: offloads not offered\n");
		exit(1);
	}
	/* As Linux's driver: mergeable receive buffers when offered, and
	 * the offloads asked for where offered
	 */
	f = (feat & (F_MRG_RXBUF | r->want)) | F_VERSION_1 |
	    F_PROTOCOL_FEATURES;
	acked(r, SET_FEATURES, &f, 8, NULL, 0);
	r->features = f;
	if (r->mem_slots) {
		mem_regions(r);
	} else {
		memcpy(mem + 8, region, 32);
		acked(r, SET_MEM_TABLE, mem, sizeof(mem), &r->memfd, 1);
	}

	for (i = 0; i < 2; i++) {
		struct queue *q = &r->q[i];
		uint32_t st[2] = { i, NUM }, base[2] = { i, 0 };
		uint64_t addr[5] = {
			(uint64_t)i, UVA + q->base, UVA + q->base + 0x2000,
			UVA + q->base + 0x1000, 0
		};
		uint32_t en[2] = { i, 1 };
		uint64_t idx = i;

		send_msg(r, SET_VRING_NUM, 0, st, 8, NULL, 0);
		send_msg(r, SET_VRING_BASE, 0, base, 8, NULL, 0);
		acked(r, SET_VRING_ADDR, addr, 40, NULL, 0);
		send_msg(r, SET_VRING_KICK, 0, &idx, 8, &q->kick, 1);
		send_msg(r, SET_VRING_CALL, 0, &idx, 8, &q->call, 1);
		acked(r, SET_VRING_ENABLE, en, 8, NULL, 0);
	}
}

/**
 * csum_add() - add bytes to a ones' complement sum
 * @sum:	running sum
 * @p:		bytes
 * @len:	how many
 *
 * Return: the new sum, not folded
 */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/**
 * fix_l4_csum() - compute the TCP or UDP checksum of a frame
 * @f:		Ethernet frame
 * @len:	its length
 *
 * For frames whose header says DATA_VALID: Linux's virtio-net driver
 * trusts that flag and skips the check, the tap does not, so the relay
 * makes the checksum right instead, as the guest would not have looked.
 */
static void fix_l4_csum(uint8_t *f, size_t len)
{
	size_t l3 = 14, l4, l4len;
	uint32_t sum = 0;
	uint8_t proto;
	int off;

	if (len < l3 + 40)
		return;
	if (f[12] == 0x08 && f[13] == 0x00) {
		size_t ihl = (size_t)(f[l3] & 15) * 4;
		size_t tot = (size_t)f[l3 + 2] << 8 | f[l3 + 3];

		if (ihl < 20 || tot < ihl || l3 + tot > len)
			return;
		proto = f[l3 + 9];
		l4 = l3 + ihl;
		l4len = tot - ihl;
		sum = csum_add(sum, f + l3 + 12, 8);
	} else if (f[12] == 0x86 && f[13] == 0xdd) {
		size_t plen = (size_t)f[l3 + 4] << 8 | f[l3 + 5];

		proto = f[l3 + 6];
		l4 = l3 + 40;
		l4len = plen;
		if (l4 + l4len > len)
			return;
		sum = csum_add(sum, f + l3 + 8, 32);
	} else {
		return;
	}
	if (proto == 6)
		off = 16;
	else if (proto == 17)
		off = 6;
	else
		return;
	if (l4len < (size_t)off + 2)
		return;
	sum += proto + (uint32_t)l4len;
	f[l4 + off] = f[l4 + off + 1] = 0;
	sum = csum_add(sum, f + l4, l4len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (proto == 17 && !sum)
		sum = 0xffff;
	f[l4 + off] = (uint8_t)(sum >> 8);
	f[l4 + off + 1] = (uint8_t)sum;
}

/**
 * rx_to_tap() - write received frames to the tap, post the buffers again
 * @r:		relay
 */
static void rx_to_tap(struct vr *r)
{
	/* A frame's buffers may come in more than one batch */
	static uint8_t frame[HDR + MTU_MAX + 64];
	static uint16_t left;
	static size_t flen;
	struct queue *q = &r->q[0];
	int reposted = 0;
	uint16_t id, nbuf;
	uint32_t len;

	while (used_next(r, q, &id, &len)) {
		uint8_t *b = r->mem + RX_BUFS + (size_t)id * SLOT;

		if (len > SLOT || (!left && len < HDR))
			len = 0;
		if (!left) {
			/* num_buffers: the frame may span several buffers;
			 * the header goes to the tap with the frame
			 */
			memcpy(&nbuf, b + 10, 2);
			left = nbuf ? nbuf : 1;
			flen = 0;
		}
		if (flen + len <= sizeof(frame)) {
			memcpy(frame + flen, b, len);
			flen += len;
		}
		if (!--left && flen > HDR) {
			if (frame[0] & HDR_F_DATA_VALID)
				fix_l4_csum(frame + HDR, flen - HDR);
			if (write(r->tap, frame, flen) < 0) {
				if (errno != EAGAIN)
					die("tap write");
				r->dropped++;
			} else {
				r->frames[0]++;
				r->bytes[0] += flen;
			}
		} else if (!left) {
			r->dropped++;
		}
		avail_add(r, q, id);
		reposted++;
	}
	if (reposted)
		publish(r, q);
}

/**
 * tap_to_tx() - place frames from the tap in transmit buffers
 * @r:		relay
 */
static void tap_to_tx(struct vr *r)
{
	struct queue *q = &r->q[1];
	uint32_t len;
	uint16_t id;
	int sent = 0;

	while (used_next(r, q, &id, &len))
		r->free[r->nfree++] = id;
	while (r->nfree) {
		uint16_t slot = r->free[r->nfree - 1];
		uint8_t *b = r->mem + TX_BUFS + (size_t)slot * SLOT;
		ssize_t n = read(r->tap, b, SLOT);

		if (n <= HDR)
			break;
		r->nfree--;
		r->frames[1]++;
		r->bytes[1] += (uint64_t)n;
		desc_put(r, q, slot, TX_BUFS + (uint64_t)slot * SLOT,
			 (uint32_t)n, 0);
		avail_add(r, q, slot);
		if (++sent == 64) {
			publish(r, q);
			sent = 0;
		}
	}
	if (sent)
		publish(r, q);
}

/**
 * feature_known() - whether a name is one --features takes
 * @name:	the name
 *
 * Return: 1 if it is, 0 if not
 */
static int feature_known(const char *name)
{
	size_t i;

	if (!strcmp(name, "all") || !strcmp(name, "none"))
		return 1;
	for (i = 0; i < sizeof(offloads) / sizeof(offloads[0]); i++)
		if (!strcmp(name, offloads[i].name))
			return 1;
	return 0;
}

/**
 * parse_features() - the offloads named in a comma-separated list
 * @list:	csum, guest_tso4, ..., "all" or "none"
 *
 * Return: their feature bits; exits on a name it does not know
 */
static uint64_t parse_features(const char *list)
{
	char buf[256], *name, *save;
	uint64_t f = 0;
	size_t i;

	if (strlen(list) >= sizeof(buf)) {
		fprintf(stderr, "vu_relay: --features list too long\n");
		exit(2);
	}
	strcpy(buf, list);
	for (name = strtok_r(buf, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (!feature_known(name)) {
			fprintf(stderr, "vu_relay: unknown feature %s\n",
				name);
			exit(2);
		}
		for (i = 0; i < sizeof(offloads) / sizeof(offloads[0]); i++)
			if ((!strcmp(name, "all") && offloads[i].offload) ||
			    !strcmp(name, offloads[i].name))
				f |= offloads[i].bit;
	}
	return f;
}

/**
 * tap_offload() - let the tap hand over what the back-end accepted
 * @r:		relay, features negotiated
 *
 * The tap gives the relay partial checksums and TSO frames only if told
 * so, as a virtio-net device with CSUM and HOST_TSO gets them from the
 * guest's driver.
 */
static void tap_offload(struct vr *r)
{
	unsigned long off = 0;

	if (r->features & F_CSUM) {
		off |= TUN_F_CSUM;
		if (r->features & F_HOST_TSO4)
			off |= TUN_F_TSO4;
		if (r->features & F_HOST_TSO6)
			off |= TUN_F_TSO6;
	}
	if (ioctl(r->tap, TUNSETOFFLOAD, off) < 0)
		die("TUNSETOFFLOAD");
}

/**
 * print_stats() - what the relay moved, on stderr
 * @r:		relay
 */
static void print_stats(const struct vr *r)
{
	fprintf(stderr,
		"vu_relay: features %#llx; to tap %llu frames %llu bytes, "
		"from tap %llu frames %llu bytes, %llu dropped; memory %s\n",
		(unsigned long long)r->features,
		(unsigned long long)r->frames[0],
		(unsigned long long)r->bytes[0],
		(unsigned long long)r->frames[1],
		(unsigned long long)r->bytes[1],
		(unsigned long long)r->dropped,
		r->mem_slots ? "in 3 regions by ADD_MEM_REG" :
			       "by SET_MEM_TABLE");
}

/**
 * tap_up() - create the tap, set its MTU and bring it up
 * @name:	interface name
 * @mtu:	MTU
 *
 * Return: its nonblocking descriptor
 */
static int tap_up(const char *name, int mtu)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int fd, s, hdr = HDR;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/net/tun");
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		die("TUNSETIFF");
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr) < 0)
		die("TUNSETVNETHDRSZ");
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("socket");
	ifr.ifr_mtu = mtu;
	if (ioctl(s, SIOCSIFMTU, &ifr) < 0)
		die("SIOCSIFMTU");
	ifr.ifr_qlen = 5000;
	if (ioctl(s, SIOCSIFTXQLEN, &ifr) < 0)
		die("SIOCSIFTXQLEN");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die("SIOCSIFFLAGS");
	close(s);
	return fd;
}

/**
 * sock_connect() - connect to the back-end, waiting up to 5 s for it
 * @path:	its socket, or "fd:N" for a socket already connected as N (a
 *		socketpair whose other end a launcher gave the back-end, -F)
 *
 * Return: the connected socket
 */
static int sock_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, waited;

	if (!strncmp(path, "fd:", 3)) {
		char *end;
		long fd = strtol(path + 3, &end, 10);

		if (*end || end == path + 3 || fd <= 2 || fd > 1024 ||
		    fcntl((int)fd, F_GETFD) < 0) {
			fprintf(stderr, "vu_relay: %s: not an open descriptor\n",
				path);
			exit(2);
		}
		return (int)fd;
	}

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vu_relay: socket path too long\n");
		exit(2);
	}
	strcpy(sa.sun_path, path);
	for (waited = 0;; waited += 20) {
		struct timespec ts = { 0, 20000000L };

		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			die("socket");
		if (!connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			return s;
		if ((errno != ENOENT && errno != ECONNREFUSED) ||
		    waited >= 5000)
			die(path);
		close(s);
		nanosleep(&ts, NULL);
	}
}

/**
 * main() - set up memory, rings and tap, then relay until the back-end
 *	    closes or a signal
 * @argc:	argument count
 * @argv:	[--mtu N] [--features LIST] [--offload] [--mem-slots]
 *		TAPNAME SOCKETPATH
 *
 * Return: 0 on a signal, 1 if the back-end went away
 */
int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct vr r = { 0 };
	int i, mtu = 1500, a = 1, more = 0;
	struct pollfd p[4];

	if (getenv("VU_RELAY_FEATURES"))
		r.want = parse_features(getenv("VU_RELAY_FEATURES"));
	if (getenv("VU_RELAY_MEM_SLOTS"))
		r.mem_slots = !!atoi(getenv("VU_RELAY_MEM_SLOTS"));
	while (argc - a > 2 && argv[a][0] == '-') {
		if (!strcmp(argv[a], "--offload")) {
			r.want |= F_OFFLOADS;
			r.need_all = 1;
			a++;
			continue;
		}
		if (!strcmp(argv[a], "--mem-slots")) {
			r.mem_slots = 1;
			a++;
			continue;
		}
		if (!strcmp(argv[a], "--mtu")) {
			mtu = atoi(argv[a + 1]);
		} else if (!strcmp(argv[a], "--features")) {
			r.want = parse_features(argv[a + 1]);
		} else {
			fprintf(stderr, "vu_relay: unknown option %s\n",
				argv[a]);
			return 2;
		}
		a += 2;
	}
	if (argc - a != 2 || mtu < 68 || mtu > MTU_MAX) {
		fprintf(stderr,
			"usage: %s [--mtu N] [--features LIST] [--offload] [--mem-slots] TAPNAME SOCKETPATH|fd:N\n",
			argv[0]);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	r.memfd = memfd_create("guest", MFD_CLOEXEC);
	if (r.memfd < 0 || ftruncate(r.memfd, MEM_SIZE))
		die("memfd");
	r.mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r.memfd, 0);
	if (r.mem == MAP_FAILED)
		die("mmap");
	for (i = 0; i < 2; i++) {
		r.q[i].base = (size_t)i * 0x10000;
		r.q[i].kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		r.q[i].call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (r.q[i].kick < 0 || r.q[i].call < 0)
			die("eventfd");
	}
	r.tap = tap_up(argv[a], mtu);
	r.sock = sock_connect(argv[a + 1]);
	setup(&r);
	tap_offload(&r);

	for (i = 0; i < NUM; i++) {
		desc_put(&r, &r.q[0], i, RX_BUFS + (uint64_t)i * SLOT, SLOT,
			 DESC_F_WRITE);
		avail_add(&r, &r.q[0], i);
		r.free[r.nfree++] = i;
	}
	publish(&r, &r.q[0]);

	while (!stop) {
		int wait = more ? 0 : 100;
		uint64_t v;

		p[0] = (struct pollfd){ r.tap, r.nfree ? POLLIN : 0, 0 };
		p[1] = (struct pollfd){ r.q[0].call, POLLIN, 0 };
		p[2] = (struct pollfd){ r.q[1].call, POLLIN, 0 };
		p[3] = (struct pollfd){ r.sock, POLLIN, 0 };
		if (poll(p, 4, wait) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[3].revents) {
			char c;

			if (recv(r.sock, &c, 1, MSG_DONTWAIT) <= 0) {
				fprintf(stderr, "vu_relay: back-end gone\n");
				print_stats(&r);
				return 1;
			}
		}
		if (p[1].revents && read(r.q[0].call, &v, 8) < 0)
			die("call");
		if (p[2].revents && read(r.q[1].call, &v, 8) < 0)
			die("call");
		/* Look at both rings every time: a call may be suppressed */
		rx_to_tap(&r);
		tap_to_tx(&r);
		more = ask_calls(&r);
	}
	print_stats(&r);
	return 0;
}
