// SPDX-License-Identifier: GPL-2.0-or-later
/* splice_uring - one TCP stream joined to another through a pipe, the way
 * netshim's local flows are (tcp/splice.c), by two loops side by side:
 *
 *   epoll   edge-triggered epoll_wait(), then splice() socket -> pipe and
 *           pipe -> socket without blocking, as tcp/splice.c does
 *   uring   io_uring: the two splices submitted together, the second
 *           hard-linked behind the first, one io_uring_enter() per pair
 *
 * The question it answers for tests/bench/README.md: does io_uring's linked splice
 * move a local stream with less CPU or more speed than epoll and splice()?
 * A source process writes 64 KiB blocks into 127.0.0.1 for SECONDS, the
 * relay (this process) joins that connection to a sink process's, the sink
 * counts.  Printed, one line of JSON: bytes the sink got, Gbit/s, the
 * relay's CPU seconds per GiB (its io_uring workers, threads of this
 * process, included) and its system calls per MiB.
 *
 *   splice_uring epoll|uring SECONDS [PIPE_KIB]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static int listener(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    listen(fd, 1) || getsockname(fd, (struct sockaddr *)a, &len))
		die("listener");
	return fd;
}

static int connect_to(const struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)a, sizeof(*a)))
		die("connect");
	return fd;
}

/* The source: 64 KiB writes for @secs seconds, then close */
static void source(const struct sockaddr_in *a, double secs)
{
	static char buf[65536];
	int fd = connect_to(a);
	double end = now_s() + secs;

	while (now_s() < end)
		if (write(fd, buf, sizeof(buf)) < 0)
			die("source write");
	close(fd);
	_exit(0);
}

/* The sink: count until EOF, write the count to @out */
static void sink(int l, int out)
{
	static char buf[1 << 18];
	uint64_t total = 0;
	int fd = accept(l, NULL, NULL);
	ssize_t n;

	if (fd < 0)
		die("sink accept");
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += (uint64_t)n;
	if (write(out, &total, sizeof(total)) != sizeof(total))
		die("sink report");
	_exit(0);
}

/* tcp/splice.c's way: edge-triggered wake-ups, a splice in while the
 * socket has bytes and the pipe room, one out while the pipe has bytes and
 * the socket room, a wait only when neither can go on
 */
static uint64_t relay_epoll(int in, int out, int pr, int pw, size_t pipe_sz)
{
	struct epoll_event ev[2], e = { .events = EPOLLIN | EPOLLRDHUP |
						  EPOLLOUT | EPOLLET };
	int ep = epoll_create1(0), eof = 0, hup = 0, rd = 1, wr = 1, i, k;
	size_t pending = 0;
	uint64_t calls = 0;

	fcntl(in, F_SETFL, O_NONBLOCK);
	fcntl(out, F_SETFL, O_NONBLOCK);
	e.data.fd = in;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, in, &e))
		die("epoll");
	e.data.fd = out;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, out, &e))
		die("epoll");
	for (;;) {
		if (rd && !eof && pending < pipe_sz) {
			size_t room = pipe_sz - pending;
			ssize_t n = splice(in, NULL, pw, NULL, room,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			calls++;
			if (n > 0) {
				pending += (size_t)n;
				/* Less than asked: all there was, and the next
				 * bytes raise an edge (but after the peer's
				 * FIN none comes: read on to the end)
				 */
				if ((size_t)n < room && !hup)
					rd = 0;
			} else if (!n) {
				eof = 1;
			} else if (errno == EAGAIN) {
				rd = 0;
			} else {
				die("splice in");
			}
		}
		if (wr && pending) {
			ssize_t n = splice(pr, NULL, out, NULL, pending,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			calls++;
			if (n > 0)
				pending -= (size_t)n;
			else if (n < 0 && errno == EAGAIN)
				wr = 0;
			else
				die("splice out");
		}
		if (eof && !pending)
			break;
		if ((rd && !eof && pending < pipe_sz) || (wr && pending))
			continue;
		calls++;
		k = epoll_wait(ep, ev, 2, -1);
		if (k < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < k; i++) {
			if (ev[i].data.fd == in) {
				rd = 1;
				if (ev[i].events & (EPOLLRDHUP | EPOLLHUP))
					hup = 1;
			} else if (ev[i].events & EPOLLOUT) {
				wr = 1;
			}
		}
	}
	close(ep);
	return calls;
}

/* io_uring's way: both splices in one submission, the second hard-linked
 * (it runs even when the first moved less than asked, which a plain link
 * would take for a failure), one chain in flight so that the pipe keeps
 * the stream's order
 */
static uint64_t relay_uring(int in, int out, int pr, int pw, size_t pipe_sz)
{
	struct io_uring ring;
	uint64_t calls = 0;
	int eof = 0;

	if (io_uring_queue_init(8, &ring, 0))
		die("io_uring_queue_init");
	while (!eof) {
		struct io_uring_sqe *s1 = io_uring_get_sqe(&ring);
		struct io_uring_sqe *s2 = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		int got = 0, r;

		io_uring_prep_splice(s1, in, -1, pw, -1, (unsigned)pipe_sz,
				     SPLICE_F_MOVE);
		s1->flags |= IOSQE_IO_HARDLINK;
		s1->user_data = 1;
		io_uring_prep_splice(s2, pr, -1, out, -1, (unsigned)pipe_sz,
				     SPLICE_F_MOVE);
		s2->user_data = 2;
		calls++;
		/* One completion, not both: the second waits on an empty
		 * pipe at EOF until the first is seen and the pipe closed
		 */
		r = io_uring_submit_and_wait(&ring, 1);
		if (r < 0)
			die("io_uring_submit_and_wait");
		while (got < 2) {
			if (io_uring_peek_cqe(&ring, &cqe)) {
				calls++;	/* not there yet: a wait */
				if (io_uring_wait_cqe(&ring, &cqe))
					die("io_uring_wait_cqe");
			}
			if (cqe->user_data == 1 && !cqe->res) {
				/* EOF: no writer left, the pipe's reader
				 * (the second splice) gets its end too
				 */
				eof = 1;
				close(pw);
			} else if (cqe->res < 0) {
				errno = -cqe->res;
				die(cqe->user_data == 1 ? "uring splice in" :
					"uring splice out");
			}
			io_uring_cqe_seen(&ring, cqe);
			got++;
		}
	}
	io_uring_queue_exit(&ring);
	return calls;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a_src, a_sink;
	int l_src, l_sink, in, out, p[2], rep[2], status;
	uint64_t total = 0, calls;
	size_t pipe_sz;
	double t0, t1, cpu;
	pid_t src, snk;

	if (argc < 3 || (strcmp(argv[1], "epoll") && strcmp(argv[1], "uring"))) {
		fprintf(stderr, "usage: %s epoll|uring SECONDS [PIPE_KIB]\n",
			argv[0]);
		return 2;
	}
	pipe_sz = (size_t)(argc > 3 ? atoi(argv[3]) : 512) << 10;
	signal(SIGPIPE, SIG_IGN);
	l_src = listener(&a_src);
	l_sink = listener(&a_sink);
	if (pipe(rep) || pipe(p))
		die("pipe");
	if (fcntl(p[1], F_SETPIPE_SZ, (int)pipe_sz) < 0)
		die("F_SETPIPE_SZ");
	pipe_sz = (size_t)fcntl(p[1], F_GETPIPE_SZ);

	snk = fork();
	if (!snk) {
		close(p[0]);	/* else the pipe never ends for the relay */
		close(p[1]);
		sink(l_sink, rep[1]);
	}
	out = connect_to(&a_sink);
	src = fork();
	if (!src) {
		close(p[0]);
		close(p[1]);
		source(&a_src, atof(argv[2]));
	}
	in = accept(l_src, NULL, NULL);
	if (in < 0)
		die("accept");

	t0 = now_s();
	if (!strcmp(argv[1], "epoll"))
		calls = relay_epoll(in, out, p[0], p[1], pipe_sz);
	else
		calls = relay_uring(in, out, p[0], p[1], pipe_sz);
	shutdown(out, SHUT_WR);
	if (read(rep[0], &total, sizeof(total)) != sizeof(total))
		die("sink's count");
	t1 = now_s();
	waitpid(src, &status, 0);
	waitpid(snk, &status, 0);
	cpu = cpu_s();
	printf("{\"mode\": \"%s\", \"pipe_kib\": %zu, \"bytes\": %llu, "
	       "\"gbit_s\": %.2f, \"cpu_s_per_gib\": %.3f, "
	       "\"calls_per_mib\": %.1f}\n", argv[1], pipe_sz >> 10,
	       (unsigned long long)total, (double)total * 8 / (t1 - t0) / 1e9,
	       total ? cpu / ((double)total / (1 << 30)) : 0.0,
	       total ? (double)calls / ((double)total / (1 << 20)) : 0.0);
	return total ? 0 : 1;
}
