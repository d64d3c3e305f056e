// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - local flows: two TCP sockets joined with splice()
 *
 * A connection that starts and ends on loopback (a pod process to the
 * namespace's server, or the reverse) needs no frames and no TCP
 * adaptation: the two sockets are joined in the kernel.  Each direction
 * has a pipe; bytes move socket -> pipe -> socket with splice(), never
 * through our memory.  The pipes come from a pool made at start-up, so the
 * loop allocates nothing.
 *
 * Per direction s (from fd[s] to fd[!s]):
 * - fd[s] is read (EPOLLIN) only while its pipe has room: a slow reader
 *   on the other side stops us reading, and the sender's window closes,
 *   which is TCP's own back-pressure, end to end;
 * - bytes in the pipe that fd[!s] refused wait for EPOLLOUT on fd[!s];
 * - end of stream on fd[s], once its pipe is empty, is passed on as
 *   shutdown(fd[!s], SHUT_WR): half-close works both ways;
 * - an error (a reset) on either socket resets the other one
 *   (SO_LINGER 0), and the pair is gone.
 * When both directions have ended, both sockets are closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "log.h"
#include "splice.h"

/* Pipes are made at the kernel's default size (64 KiB): an unprivileged
 * user's pipes share a budget (fs.pipe-user-pages-soft, 64 MiB by
 * default), past which new pipes get 8 KiB, and the whole pool must fit.
 * Then the first pairs, which splice_join() uses first, are grown to
 * SPLICE_PIPE_BIG while the budget allows: fewer wake-ups per byte for
 * the few flows that carry bulk data.  Each pipe's real size is recorded.
 */
#define SPLICE_PIPE_BIG		(1 << 20)
/* Moves per event: fairness between pairs */
#define SPLICE_ROUNDS		8

/**
 * struct splice_pair - two sockets joined, and their pipes
 * @fd:		the sockets, -1 for a free slot
 * @pipe_r:	read end of the pipe of each direction (from fd[s])
 * @pipe_w:	write end of it
 * @size:	capacity of each direction's pipe
 * @pending:	bytes in each direction's pipe
 * @full:	the pipe of direction s took nothing more while holding data:
 *		its slots may be used up by small pieces before its size is
 * @eof:	end of stream read from fd[s]
 * @shut:	shutdown(fd[!s], SHUT_WR) done for direction s
 * @connecting:	fd[1] is still connecting
 * @events:	events asked of epoll for each socket
 */
struct splice_pair {
	int fd[2];
	int pipe_r[2], pipe_w[2];
	size_t size[2];
	size_t pending[2];
	bool full[2], eof[2], shut[2];
	bool connecting;
	uint32_t events[2];
};

/**
 * struct splice_table - every pair, sized at start-up
 * @max:	slots
 * @count:	slots in use
 * @p:		slots
 */
struct splice_table {
	unsigned int max, count;
	struct splice_pair p[];
};

/**
 * splice_grow() - grow the pipes of the first pairs while the budget allows
 * @t:		the pool, every pipe made
 */
static void splice_grow(struct splice_table *t)
{
	unsigned int i;
	int s, sz;

	for (i = 0; i < t->max; i++) {
		for (s = 0; s < 2; s++) {
			struct splice_pair *p = &t->p[i];

			sz = fcntl(p->pipe_w[s], F_SETPIPE_SZ, SPLICE_PIPE_BIG);
			if (sz <= 0)
				return;
			p->size[s] = (size_t)sz;
		}
	}
}

/**
 * splice_init() - make the pipe pool
 * @c:		execution context
 * @max:	pairs at once (four descriptors each, for the pipes)
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int splice_init(struct ctx *c, unsigned int max)
{
	struct splice_table *t;
	unsigned int i;
	int s, sz, fds[2];

	t = calloc(1, sizeof(*t) + max * sizeof(t->p[0]));
	if (!t) {
		err("out of memory for local flows");
		return -1;
	}
	t->max = max;
	for (i = 0; i < max; i++) {
		struct splice_pair *p = &t->p[i];

		p->fd[0] = p->fd[1] = -1;
		for (s = 0; s < 2; s++) {
			if (pipe2(fds, O_NONBLOCK | O_CLOEXEC)) {
				err("pipes for local flows: %m");
				return -1;
			}
			p->pipe_r[s] = fds[0];
			p->pipe_w[s] = fds[1];
			sz = fcntl(fds[1], F_GETPIPE_SZ);
			p->size[s] = sz > 0 ? (size_t)sz : 4096;
		}
	}
	splice_grow(t);
	c->splice = t;
	return 0;
}

/**
 * splice_count() - pairs joined now
 * @c:		execution context
 *
 * Return: the number
 */
unsigned int splice_count(const struct ctx *c)
{
	return c->splice ? c->splice->count : 0;
}

/**
 * splice_drain() - empty a pipe before its slot is used again
 * @fd:		read end
 * @pending:	bytes in it
 */
static void splice_drain(int fd, size_t pending)
{
	static char sink[65536];

	while (pending) {
		ssize_t n = read(fd, sink, sizeof(sink));

		if (n <= 0)
			break;
		pending -= (size_t)n > pending ? pending : (size_t)n;
	}
}

/**
 * splice_free() - close both sockets, give the slot back
 * @c:		execution context
 * @p:		the pair
 * @reset:	reset the sockets (SO_LINGER 0) rather than close them
 */
static void splice_free(struct ctx *c, struct splice_pair *p, bool reset)
{
	struct linger l = { 1, 0 };
	int s;

	for (s = 0; s < 2; s++) {
		if (reset)
			setsockopt(p->fd[s], SOL_SOCKET, SO_LINGER, &l,
				   sizeof(l));
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, p->fd[s], NULL);
		close(p->fd[s]);
		p->fd[s] = -1;
		splice_drain(p->pipe_r[s], p->pending[s]);
		p->pending[s] = 0;
		p->full[s] = p->eof[s] = p->shut[s] = false;
		p->events[s] = 0;
	}
	p->connecting = false;
	c->splice->count--;
}

/**
 * splice_epoll() - ask epoll for what each socket now waits for
 * @c:		execution context
 * @p:		the pair
 */
static void splice_epoll(struct ctx *c, struct splice_pair *p)
{
	uint32_t idx = (uint32_t)(p - c->splice->p);
	int s;

	for (s = 0; s < 2; s++) {
		struct epoll_event ev = { .data.u64 = epref(EPREF_SPLICE,
							    idx * 2 + s) };
		uint32_t want = 0;

		if (p->connecting) {
			want = s ? EPOLLOUT : 0;
		} else {
			if (!p->eof[s] && !p->full[s] &&
			    p->pending[s] < p->size[s])
				want |= EPOLLIN;
			if (p->pending[!s])
				want |= EPOLLOUT;
		}
		if (want == p->events[s])
			continue;
		ev.events = want;
		epoll_ctl(c->epfd, EPOLL_CTL_MOD, p->fd[s], &ev);
		p->events[s] = want;
	}
}

/**
 * splice_move() - move what can be moved in one direction
 * @p:		the pair
 * @s:		direction: from fd[s] to fd[!s]
 *
 * Return: 1 if bytes moved or the stream ended, 0 if nothing could move,
 *	   -1 on a socket error (the pair must be reset)
 */
static int splice_move(struct splice_pair *p, int s)
{
	size_t room = p->size[s] - p->pending[s];
	int progress = 0;
	ssize_t n;

	if (!p->eof[s] && room) {
		n = splice(p->fd[s], NULL, p->pipe_w[s], NULL, room,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n > 0) {
			p->pending[s] += (size_t)n;
			progress = 1;
		} else if (!n) {
			p->eof[s] = true;
			progress = 1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		} else if (p->pending[s]) {
			/* Wait for the other side to take some first: with
			 * EPOLLIN armed on a full pipe we would spin
			 */
			p->full[s] = true;
		}
	}
	if (p->pending[s]) {
		n = splice(p->pipe_r[s], NULL, p->fd[!s], NULL, p->pending[s],
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n > 0) {
			p->pending[s] -= (size_t)n;
			p->full[s] = false;
			progress = 1;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	if (p->eof[s] && !p->pending[s] && !p->shut[s]) {
		shutdown(p->fd[!s], SHUT_WR);
		p->shut[s] = true;
	}
	return progress;
}

/**
 * splice_run() - move data both ways until nothing moves, then wait
 * @c:		execution context
 * @p:		the pair
 */
static void splice_run(struct ctx *c, struct splice_pair *p)
{
	int i, a, b;

	for (i = 0; i < SPLICE_ROUNDS; i++) {
		a = splice_move(p, 0);
		b = a < 0 ? -1 : splice_move(p, 1);
		if (a < 0 || b < 0) {
			splice_free(c, p, true);
			return;
		}
		if (!a && !b)
			break;
	}
	if (p->shut[0] && p->shut[1]) {
		splice_free(c, p, false);
		return;
	}
	splice_epoll(c, p);
}

/**
 * splice_join() - join two TCP sockets
 * @c:		execution context
 * @a:		a connected socket (the accepted one), non-blocking
 * @b:		the other one, non-blocking
 * @b_connecting: @b's connect() is still in progress
 *
 * Both sockets are ours from here on, also on failure (then reset).
 *
 * Return: 0 on success, -1 if no slot is free or epoll failed
 */
int splice_join(struct ctx *c, int a, int b, bool b_connecting)
{
	struct splice_table *t = c->splice;
	struct linger l = { 1, 0 };
	struct splice_pair *p = NULL;
	unsigned int i;
	int s;

	for (i = 0; t && i < t->max && !p; i++)
		if (t->p[i].fd[0] < 0)
			p = &t->p[i];
	if (!p)
		goto refuse;
	for (s = 0; s < 2; s++) {
		struct epoll_event ev = { .events = 0,
			.data.u64 = epref(EPREF_SPLICE,
					  (uint32_t)(p - t->p) * 2 + s) };
		int fd = s ? b : a;

		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			if (s)
				epoll_ctl(c->epfd, EPOLL_CTL_DEL, a, NULL);
			goto refuse;
		}
		p->fd[s] = fd;
		p->events[s] = 0;
	}
	p->connecting = b_connecting;
	t->count++;
	if (b_connecting)
		splice_epoll(c, p);
	else
		splice_run(c, p);
	return 0;
refuse:
	setsockopt(a, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	setsockopt(b, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(a);
	close(b);
	return -1;
}

/**
 * splice_ready() - a socket of a pair is readable, writable, or failed
 * @c:		execution context
 * @idx:	pair index times two, plus the socket's side
 * @events:	epoll events
 */
void splice_ready(struct ctx *c, uint32_t idx, uint32_t events)
{
	struct splice_table *t = c->splice;
	struct splice_pair *p;
	socklen_t sl = sizeof(int);
	int e = 0;

	(void)events;
	if (!t || idx / 2 >= t->max)
		return;
	p = &t->p[idx / 2];
	if (p->fd[0] < 0)
		return;
	if (p->connecting) {
		if (getsockopt(p->fd[1], SOL_SOCKET, SO_ERROR, &e, &sl) || e) {
			splice_free(c, p, true);
			return;
		}
		p->connecting = false;
	}
	splice_run(c, p);
}
