// SPDX-License-Identifier: GPL-2.0-or-later
/* sender - a hostile VMM for netshim's UNIX stream socket
 *
 *   sender [-b] [-d] [-t MS] SOCKET
 *
 * Copies standard input to the socket verbatim (the caller writes the
 * QEMU stream framing itself, so it can also write broken framing) and the
 * socket to standard output.  It never interprets what it carries: the
 * test cases are crafted elsewhere.
 *
 *   -b	write one byte per write(), to cut every frame at every offset
 *   -d	deaf: never read the socket, so netshim's queue to us fills up
 *   -t MS	after standard input ends, keep the connection MS milliseconds
 *
 * SIGUSR1 makes a running sender deaf from then on: a caller can finish a
 * handshake first, then stop reading.
 *
 * Exit status: 0 when we closed the connection, 2 when netshim closed it
 * (or reset it), 1 on a local error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#define BUF_SIZE	65536

static volatile sig_atomic_t go_deaf;

/**
 * struct sender - the state of one run
 * @sock:	connection to netshim
 * @bytewise:	one byte per write()
 * @deaf:	the socket is never read again
 * @in_eof:	standard input ended
 * @out_ok:	standard output still takes bytes
 * @pend:	bytes from standard input not yet written to the socket
 * @pend_off:	first byte of @pend not yet written
 * @pend_len:	bytes in @pend
 */
struct sender {
	int sock;
	bool bytewise;
	bool deaf;
	bool in_eof;
	bool out_ok;
	unsigned char pend[BUF_SIZE];
	size_t pend_off, pend_len;
};

/**
 * on_usr1() - SIGUSR1 handler: stop reading the socket
 * @sig:	signal number, unused
 */
static void on_usr1(int sig)
{
	(void)sig;
	go_deaf = 1;
}

/**
 * now_ms() - monotonic time
 *
 * Return: milliseconds since an arbitrary point
 */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * connect_to() - connect to a UNIX stream socket
 * @path:	socket path
 *
 * Return: the socket, or -1 with a message
 */
static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "sender: socket path too long\n");
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "sender: connect %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/**
 * write_out() - copy bytes read from netshim to standard output
 * @s:		sender state
 * @buf:	bytes
 * @len:	their number
 *
 * A reader that went away only stops the copy: the socket is still drained.
 */
static void write_out(struct sender *s, const unsigned char *buf, size_t len)
{
	while (s->out_ok && len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			s->out_ok = false;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/**
 * sock_read() - read what netshim sent
 * @s:		sender state
 *
 * Return: 0 if the connection is still up, 2 if netshim closed it
 */
static int sock_read(struct sender *s)
{
	unsigned char buf[BUF_SIZE];
	ssize_t n = recv(s->sock, buf, sizeof(buf), 0);

	if (n > 0) {
		write_out(s, buf, (size_t)n);
		return 0;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return 2;
}

/**
 * sock_write() - write pending input bytes, one at a time with -b
 * @s:		sender state
 *
 * Return: 0 if the connection is still up, 2 if netshim closed it
 */
static int sock_write(struct sender *s)
{
	while (s->pend_off < s->pend_len) {
		size_t len = s->bytewise ? 1 : s->pend_len - s->pend_off;
		ssize_t n = send(s->sock, s->pend + s->pend_off, len,
				 MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return 2;
		}
		s->pend_off += (size_t)n;
	}
	s->pend_off = s->pend_len = 0;
	return 0;
}

/**
 * stdin_read() - take the next chunk of standard input
 * @s:		sender state
 *
 * Return: 0, or 1 on a read error
 */
static int stdin_read(struct sender *s)
{
	ssize_t n = read(STDIN_FILENO, s->pend, sizeof(s->pend));

	if (n < 0) {
		if (errno == EINTR)
			return 0;
		perror("sender: stdin");
		return 1;
	}
	if (n == 0)
		s->in_eof = true;
	s->pend_off = 0;
	s->pend_len = (size_t)n;
	return 0;
}

/**
 * run() - move bytes both ways until input ends and the hold time passed
 * @s:		sender state
 * @hold_ms:	milliseconds to keep the connection after input ended
 *
 * Return: exit status, see the top of the file
 */
static int run(struct sender *s, long long hold_ms)
{
	long long until = -1;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = STDIN_FILENO },
			{ .fd = s->sock, .events = POLLRDHUP },
		};
		int timeout = -1;

		if (go_deaf)
			s->deaf = true;
		if (s->in_eof && s->pend_off == s->pend_len) {
			if (until < 0)
				until = now_ms() + hold_ms;
			timeout = (int)(until - now_ms());
			if (timeout <= 0)
				return 0;
		}
		if (!s->in_eof && s->pend_off == s->pend_len)
			p[0].events = POLLIN;
		else
			p[0].fd = -1;
		if (!s->deaf)
			p[1].events |= POLLIN;
		if (s->pend_off < s->pend_len)
			p[1].events |= POLLOUT;

		if (poll(p, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			perror("sender: poll");
			return 1;
		}
		if (p[1].revents & POLLIN && sock_read(s))
			return 2;
		if (p[1].revents & (POLLHUP | POLLERR))
			return 2;
		if (p[1].revents & POLLRDHUP && s->deaf)
			return 2;
		if (p[1].revents & POLLOUT && sock_write(s))
			return 2;
		if (p[0].revents && stdin_read(s))
			return 1;
		if (s->pend_off < s->pend_len && sock_write(s))
			return 2;
	}
}

/**
 * usage() - print the command line and exit
 */
static void usage(void)
{
	fprintf(stderr, "usage: sender [-b] [-d] [-t MS] SOCKET\n");
	exit(1);
}

/**
 * main() - parse the command line, connect, copy
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: exit status, see the top of the file
 */
int main(int argc, char **argv)
{
	static struct sender s = { .out_ok = true };
	long long hold_ms = 0;
	int opt, rc;

	while ((opt = getopt(argc, argv, "bdt:")) != -1) {
		switch (opt) {
		case 'b':
			s.bytewise = true;
			break;
		case 'd':
			s.deaf = true;
			break;
		case 't':
			hold_ms = atoll(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();

	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	s.sock = connect_to(argv[optind]);
	if (s.sock < 0)
		return 1;
	rc = run(&s, hold_ms);
	if (rc == 2)
		fprintf(stderr, "sender: connection closed by netshim\n");
	close(s.sock);
	return rc;
}
