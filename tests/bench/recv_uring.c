// SPDX-License-Identifier: GPL-2.0-or-later
/* recv_uring - frames from a VMM over a UNIX stream socket, the way
 * netshim's stream back-end reads them (link/stream.c), by two loops side
 * by side:
 *
 *   epoll   level-triggered epoll_wait(), then one recv() into an 8 MiB
 *           buffer per wake-up, frames cut in place, the cut one moved to
 *           the front, as link/stream.c does
 *   uring   io_uring: one multishot recv into a ring of provided buffers,
 *           frames cut in place in each buffer, one that spans two put
 *           together in a buffer of its own, the buffer handed back
 *           at once; one io_uring_enter() per batch of completions
 *
 * The question it answers for tests/bench/README.md: do io_uring's multishot receives
 * with provided buffers read the stream back-end's socket with less CPU or
 * more speed?  A writer process sends frames as QEMU's -netdev stream does
 * (one sendmsg() of the 4-byte length and the frame each), for SECONDS; the
 * reader (this process) cuts them and reads a byte of each.  Printed, one
 * line of JSON: frames and bytes read, Gbit/s, the reader's CPU seconds
 * per GiB and its system calls per MiB.
 *
 *   recv_uring epoll|uring SECONDS [FRAME_BYTES [BUF_KIB [BUFS]]]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define FRAME_MAX	65535
#define RX_EPOLL	(8 << 20)	/* link/stream.c's buffer */
#define SOCK_BUF	(4 << 20)	/* and its socket buffers */
#define BGID		1

struct count {
	uint64_t frames, bytes, calls;
	unsigned int sum;		/* a byte of each frame, read */
};

/* The writer: QEMU's way, one sendmsg() per frame, for @secs seconds */
static void writer(int fd, size_t frame, double secs)
{
	static char buf[FRAME_MAX];
	uint32_t len = htonl((uint32_t)frame);
	struct iovec iov[2] = { { &len, 4 }, { buf, frame } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	double end = now_s() + secs;
	unsigned int n = 0;

	memset(buf, 0x5a, sizeof(buf));
	/* The clock read once per 64 frames: it is not what is measured */
	while ((n++ & 63) || now_s() < end)
		if (sendmsg(fd, &mh, 0) != (ssize_t)(4 + frame))
			die("writer sendmsg");
	close(fd);
	_exit(0);
}

/* One frame's work: the length checked, a byte of it read */
static void frame_seen(struct count *k, const unsigned char *f, size_t len)
{
	k->frames++;
	k->bytes += len;
	k->sum += f[len / 2];
}

/* Cut the whole frames of @p (@len bytes); return the bytes consumed */
static size_t cut(struct count *k, const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (len - off >= 4) {
		uint32_t fl;

		memcpy(&fl, p + off, 4);
		fl = ntohl(fl);
		if (!fl || fl > FRAME_MAX) {
			fprintf(stderr, "bad frame length %u\n", fl);
			exit(1);
		}
		if (len - off - 4 < fl)
			break;
		frame_seen(k, p + off + 4, fl);
		off += 4 + fl;
	}
	return off;
}

/* link/stream.c's way: a wake-up, one recv(), frames cut, the rest moved */
static void read_epoll(int fd, struct count *k)
{
	static unsigned char buf[RX_EPOLL];
	struct epoll_event e = { .events = EPOLLIN | EPOLLRDHUP };
	int ep = epoll_create1(0);
	size_t len = 0;

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
		die("epoll");
	for (;;) {
		ssize_t n;
		size_t used;

		k->calls++;
		if (epoll_wait(ep, &e, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		k->calls++;
		n = recv(fd, buf + len, sizeof(buf) - len, MSG_DONTWAIT);
		if (!n)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			die("recv");
		}
		len += (size_t)n;
		used = cut(k, buf, len);
		if (used && used < len)
			memmove(buf, buf + used, len - used);
		len -= used;
	}
	close(ep);
}

static void arm(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
}

/* Multishot receives into provided buffers: a completion per buffer the
 * kernel filled, the buffer given back once its frames are cut; a frame
 * that spans buffers is put together in @held first
 */
static void read_uring(int fd, struct count *k, size_t buf_sz,
		       unsigned int nbufs)
{
	static unsigned char held[4 + FRAME_MAX];
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring_buf_reg reg = { 0 };
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	size_t hlen = 0, ring_sz;
	unsigned char *bufs;
	unsigned int i, mask = (unsigned int)io_uring_buf_ring_mask(nbufs);
	int eof = 0, rc;

	rc = io_uring_queue_init_params(64, &ring, &p);
	if (rc) {
		errno = -rc;
		die("io_uring_queue_init");
	}
	ring_sz = nbufs * sizeof(struct io_uring_buf);
	br = mmap(NULL, ring_sz, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bufs = malloc(buf_sz * nbufs);
	if (br == MAP_FAILED || !bufs)
		die("buffers");
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = nbufs;
	reg.bgid = BGID;
	rc = io_uring_register_buf_ring(&ring, &reg, 0);
	if (rc) {
		errno = -rc;
		die("io_uring_register_buf_ring");
	}
	io_uring_buf_ring_init(br);
	for (i = 0; i < nbufs; i++)
		io_uring_buf_ring_add(br, bufs + i * buf_sz, (unsigned)buf_sz,
				      (unsigned short)i, mask, (int)i);
	io_uring_buf_ring_advance(br, (int)nbufs);
	arm(&ring, fd);

	while (!eof) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0, back = 0;

		k->calls++;
		rc = io_uring_submit_and_wait(&ring, 1);
		if (rc < 0 && rc != -EINTR) {
			errno = -rc;
			die("io_uring_submit_and_wait");
		}
		io_uring_for_each_cqe(&ring, head, cqe) {
			unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
			unsigned char *b = bufs + (size_t)bid * buf_sz;
			size_t n = cqe->res > 0 ? (size_t)cqe->res : 0;
			size_t off = 0, used;

			seen++;
			if (cqe->res == 0) {
				eof = 1;
				break;
			}
			if (cqe->res < 0) {
				/* Out of buffers: re-armed below */
				if (cqe->res != -ENOBUFS) {
					errno = -cqe->res;
					die("multishot recv");
				}
			} else {
				/* Finish the frame held from the last buffer */
				while (hlen && off < n) {
					size_t need = 4, take;

					if (hlen >= 4) {
						uint32_t fl;

						memcpy(&fl, held, 4);
						need = 4 + ntohl(fl);
					}
					take = need - hlen;
					if (take > n - off)
						take = n - off;
					memcpy(held + hlen, b + off, take);
					hlen += take;
					off += take;
					if (hlen == need && need > 4) {
						cut(k, held, hlen);
						hlen = 0;
					}
				}
				used = cut(k, b + off, n - off);
				off += used;
				memcpy(held + hlen, b + off, n - off);
				hlen += n - off;
				io_uring_buf_ring_add(br, b, (unsigned)buf_sz,
						      (unsigned short)bid, mask,
						      (int)back++);
			}
			if (!(cqe->flags & IORING_CQE_F_MORE))
				arm(&ring, fd);
		}
		io_uring_buf_ring_advance(br, (int)back);
		io_uring_cq_advance(&ring, seen);
	}
	io_uring_queue_exit(&ring);
	free(bufs);
}

int main(int argc, char **argv)
{
	size_t frame, buf_kib;
	unsigned int nbufs;
	struct count k = { 0 };
	int sv[2], sz = SOCK_BUF, status;
	double t0, t1, cpu;
	pid_t w;

	if (argc < 3 || (strcmp(argv[1], "epoll") && strcmp(argv[1], "uring"))) {
		fprintf(stderr, "usage: %s epoll|uring SECONDS "
			"[FRAME_BYTES [BUF_KIB [BUFS]]]\n", argv[0]);
		return 2;
	}
	frame = argc > 3 ? (size_t)atoi(argv[3]) : 1514;
	buf_kib = argc > 4 ? (size_t)atoi(argv[4]) : 64;
	nbufs = argc > 5 ? (unsigned int)atoi(argv[5]) : 64;
	if (!frame || frame > FRAME_MAX || !buf_kib || !nbufs ||
	    (nbufs & (nbufs - 1))) {
		fprintf(stderr, "frame 1..%u bytes, buffers a power of 2\n",
			FRAME_MAX);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	w = fork();
	if (!w) {
		close(sv[0]);
		writer(sv[1], frame, atof(argv[2]));
	}
	close(sv[1]);

	t0 = now_s();
	if (!strcmp(argv[1], "epoll"))
		read_epoll(sv[0], &k);
	else
		read_uring(sv[0], &k, buf_kib << 10, nbufs);
	t1 = now_s();
	waitpid(w, &status, 0);
	cpu = cpu_s();
	if (k.frames && k.sum != (unsigned int)(k.frames * 0x5a)) {
		fprintf(stderr, "frames read wrong\n");
		return 1;
	}
	printf("{\"mode\": \"%s\", \"frame\": %zu, \"buf_kib\": %zu, "
	       "\"bufs\": %u, \"frames\": %llu, \"bytes\": %llu, "
	       "\"gbit_s\": %.2f, \"cpu_s_per_gib\": %.3f, "
	       "\"calls_per_mib\": %.2f}\n", argv[1], frame,
	       !strcmp(argv[1], "uring") ? buf_kib : (size_t)RX_EPOLL >> 10,
	       !strcmp(argv[1], "uring") ? nbufs : 1,
	       (unsigned long long)k.frames, (unsigned long long)k.bytes,
	       (double)k.bytes * 8 / (t1 - t0) / 1e9,
	       k.bytes ? cpu / ((double)k.bytes / (1 << 30)) : 0.0,
	       k.bytes ? (double)k.calls / ((double)k.bytes / (1 << 20)) :
	       0.0);
	return k.frames ? 0 : 1;
}
