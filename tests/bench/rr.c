// SPDX-License-Identifier: GPL-2.0-or-later
/* rr - TCP request/response latency, for tests/bench/local.sh
 *
 *   rr server ADDRESS PORT
 *   rr client ADDRESS PORT SIZE COUNT SECONDS WARM
 *
 * The server echoes every request of SIZE bytes (it learns SIZE from the
 * client's first 4 bytes).  The client first sends WARM bytes one way and
 * waits for one byte back (so that a flow netshim moves once it carries
 * bulk data is on its fast path before measuring), then sends COUNT
 * requests of SIZE bytes one after the other, each time waiting for the
 * whole echo, within SECONDS at most.  It prints one JSON object: size,
 * transactions, p50_us, p99_us, mean_us.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RR_MAX_SIZE	(1 << 20)

/**
 * rr_now_ns() - monotonic time
 *
 * Return: nanoseconds
 */
static uint64_t rr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * rr_io() - send or receive exactly @len bytes
 * @fd:		socket
 * @buf:	data
 * @len:	bytes
 * @out:	send rather than receive
 *
 * Return: 0 on success, -1 on error or end of stream
 */
static int rr_io(int fd, uint8_t *buf, size_t len, int out)
{
	while (len) {
		ssize_t n = out ? send(fd, buf, len, MSG_NOSIGNAL) :
				  recv(fd, buf, len, 0);

		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * rr_addr() - fill a socket address from text
 * @ss:		filled in
 * @addr:	IPv4 or IPv6 address
 * @port:	port
 *
 * Return: address length, 0 if @addr is not an address
 */
static socklen_t rr_addr(struct sockaddr_storage *ss, const char *addr,
			 int port)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return sizeof(*a6);
	}
	return 0;
}

/**
 * rr_cmp() - order two durations
 * @a:		first
 * @b:		second
 *
 * Return: <0, 0, >0
 */
static int rr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * rr_serve() - echo requests on each connection, one at a time
 * @ss:		address to listen on
 * @sl:		its length
 *
 * Return: 1 on a set-up failure (it never returns otherwise)
 */
static int rr_serve(struct sockaddr_storage *ss, socklen_t sl)
{
	static uint8_t buf[RR_MAX_SIZE];
	int one = 1, ls, fd;
	uint32_t size;
	uint64_t warm;

	ls = socket(ss->ss_family, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)ss, sl) || listen(ls, 8)) {
		perror("rr: listen");
		return 1;
	}
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (rr_io(fd, (uint8_t *)&size, sizeof(size), 0) ||
		    rr_io(fd, (uint8_t *)&warm, sizeof(warm), 0) ||
		    size == 0 || size > RR_MAX_SIZE)
			goto next;
		while (warm) {
			size_t n = warm > sizeof(buf) ? sizeof(buf) : warm;

			if (rr_io(fd, buf, n, 0))
				goto next;
			warm -= n;
		}
		if (rr_io(fd, buf, 1, 1))
			goto next;
		while (!rr_io(fd, buf, size, 0) && !rr_io(fd, buf, size, 1))
			;
next:
		close(fd);
	}
}

/**
 * main() - run the server or the client
 * @argc:	argument count
 * @argv:	see the top of the file
 *
 * Return: 0 on success
 */
int main(int argc, char **argv)
{
	static uint8_t buf[RR_MAX_SIZE];
	struct sockaddr_storage ss;
	uint64_t *t, t0, t_end, warm, sum = 0;
	unsigned long count, i, n;
	int one = 1, fd;
	uint32_t size;
	socklen_t sl;

	if (argc < 4 || !(sl = rr_addr(&ss, argv[2], atoi(argv[3])))) {
		fprintf(stderr, "usage: rr server|client ADDRESS PORT ...\n");
		return 1;
	}
	if (!strcmp(argv[1], "server"))
		return rr_serve(&ss, sl);
	if (argc < 8)
		return 1;
	size = (uint32_t)atoi(argv[4]);
	count = strtoul(argv[5], NULL, 0);
	t_end = rr_now_ns() + strtoull(argv[6], NULL, 0) * 1000000000ULL;
	warm = strtoull(argv[7], NULL, 0);
	if (!size || size > RR_MAX_SIZE || !count)
		return 1;
	t = calloc(count, sizeof(*t));
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (!t || fd < 0 || connect(fd, (struct sockaddr *)&ss, sl)) {
		perror("rr: connect");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(buf, 0x5a, sizeof(buf));
	if (rr_io(fd, (uint8_t *)&size, sizeof(size), 1) ||
	    rr_io(fd, (uint8_t *)&warm, sizeof(warm), 1))
		return 1;
	while (warm) {
		size_t w = warm > sizeof(buf) ? sizeof(buf) : warm;

		if (rr_io(fd, buf, w, 1))
			return 1;
		warm -= w;
	}
	if (rr_io(fd, buf, 1, 0))
		return 1;
	/* Let a move to the fast path settle before measuring */
	usleep(200000);
	for (n = 0; n < count && rr_now_ns() < t_end; n++) {
		t0 = rr_now_ns();
		if (rr_io(fd, buf, size, 1) || rr_io(fd, buf, size, 0)) {
			fprintf(stderr, "rr: connection lost after %lu\n", n);
			return 1;
		}
		t[n] = rr_now_ns() - t0;
		sum += t[n];
	}
	close(fd);
	if (!n)
		return 1;
	qsort(t, n, sizeof(*t), rr_cmp);
	i = n * 99 / 100;
	printf("{\"size\": %u, \"transactions\": %lu, \"p50_us\": %.1f, "
	       "\"p99_us\": %.1f, \"mean_us\": %.1f}\n", size, n,
	       t[n / 2] / 1000.0, t[i] / 1000.0, sum / 1000.0 / n);
	return 0;
}
