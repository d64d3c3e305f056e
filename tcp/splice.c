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
 *   (SO_LINGER 0), and the pair is gone;
 * - bytes go out as soon as they are spliced (TCP_NODELAY on both).
 * When both directions have ended, both sockets are closed.
 *
 * A pair that lasts (see SPLICE_MAP_TURNS) moves to
 * the eBPF sockmap fast path when it is loaded (bpf/sockmap.c): the kernel
 * then redirects each socket's buffers to the other's send side and the
 * loop is not woken for the flow's data at all.  The move happens only
 * when splice has nothing in hand: both pipes empty and both sockets read
 * to EAGAIN, so no byte is in userspace's care and no buffer half read
 * (the kernel's reader takes whole buffers).  From then on netshim never
 * reads or writes those sockets; it waits for:
 * - end of stream (EPOLLRDHUP) on fd[s]: passed on as shutdown(fd[!s],
 *   SHUT_WR) only once fd[s]'s receive queue is empty and every byte the
 *   program redirected from it has reached fd[!s]'s send queue (the
 *   kernel's worker may still hold some: checked now, then every tick);
 * - an error (a reset) on either: the other one is reset, as with splice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "splice.h"
#include "bpf/sockmap.h"
#include "netshim/log.h"
#include "netshim/migio.h"

/* A test hook, linked into the tests' build only (tests/hooks/splice.c) */
extern unsigned int netshim_test_sockmap_delay_ms(void) __attribute__((weak));

/* Pipes are made at the kernel's default size (64 KiB): an unprivileged
 * user's pipes share a budget (fs.pipe-user-pages-soft, 64 MiB by
 * default), past which new pipes get 8 KiB, and the whole pool must fit.
 * Then the first pairs, which splice_join() uses first, are grown to
 * SPLICE_PIPE_BIG while the budget allows: fewer wake-ups per byte for
 * the few flows that carry bulk data.  Each pipe's real size is recorded.
 * Not larger: with 1 MiB pipes each splice() moved up to 1 MiB while the
 * sender and the receiver waited on either side of it; 512 KiB kept the
 * three of them busier at once and measured faster both ways (iperf3
 * through -T, side by side with 128 KiB, 256 KiB and 1 MiB pipes and
 * pasta, ABAB on a shared 2-core machine) for the same CPU time per GiB.
 */
#define SPLICE_PIPE_BIG		(512 << 10)
/* Moves per event: fairness between pairs */
#define SPLICE_ROUNDS		8
/* Which pairs move to the sockmap (tests/bench/local.sh measured both
 * paths side by side): request/response flows answer in about half the
 * time there at every size, so with --bpf auto a pair moves after
 * SPLICE_MAP_TURNS turns (data one way, then the other) of a few bytes
 * each.  One bulk stream
 * measured faster on splice in every run (the sockmap's worker costs more
 * CPU per byte), so auto leaves a lone bulk flow there; but splice runs
 * every flow through netshim's one thread, while the kernel's workers
 * redirect each socket on whichever CPU is free: with SPLICE_MAP_BULK
 * bulk flows (SPLICE_MAP_BYTES moved, still open) at once, they move
 * (four iperf3 streams on 2 cores: 16.4 / 18.6 Gbit/s up / down against
 * 11.3 / 10.3 on splice).  --bpf require moves every bulk flow: after
 * SPLICE_MAP_BYTES, or SPLICE_MAP_MS of life with SPLICE_MAP_SOME moved.
 * Short flows (connection-rate tests, one request and its reply) never
 * pay for the map updates either way.
 */
#define SPLICE_MAP_TURNS	64
/* Turns of a request/response flow carry little each (tests/bench/local.sh
 * measured 1 B to 64 KiB); a bulk flow both ways at once makes turns too
 * whenever one sender misses an event, the more so on a busy machine,
 * each with up to a pipe's worth: turns count only where the average per
 * turn is below this
 */
#define SPLICE_MAP_TURN_BYTES	(128 << 10)
#define SPLICE_MAP_BYTES	(1 << 20)
#define SPLICE_MAP_BULK		2
#define SPLICE_MAP_MS		1000
#define SPLICE_MAP_SOME		(64 << 10)

/**
 * struct splice_pair - two sockets joined, and their pipes
 * @fd:		the sockets, -1 for a free slot
 * @pipe_r:	read end of the pipe of each direction (from fd[s])
 * @pipe_w:	write end of it
 * @size:	capacity of each direction's pipe
 * @pending:	bytes in each direction's pipe
 * @full:	the pipe of direction s took nothing more while holding data:
 *		its slots may be used up by small pieces before its size is
 * @dry:	fd[s] had nothing to read with its pipe empty: not read again
 *		until epoll reports it (level-triggered, so nothing is missed)
 * @eof:	end of stream read from fd[s]
 * @shut:	shutdown(fd[!s], SHUT_WR) done for direction s
 * @connecting:	fd[1] is still connecting
 * @events:	events asked of epoll for each socket
 * @mapped:	the pair is in the sockmap: the kernel moves its data
 * @polled:	fd[s] is still registered with epoll
 * @nomap:	the pair could not be put in the sockmap: keep splicing
 * @bytes:	bytes spliced, both directions
 * @got:	data was read from fd[s] in this event
 * @turns:	times the data changed direction: data one way only in an
 *		event, after data the other way only (bulk both ways at once
 *		makes few)
 * @last:	direction of the last event with data one way only
 * @bulk:	SPLICE_MAP_BYTES moved: counted in splice_table.bulk
 * @start_ms:	when the pair was joined, monotonic milliseconds
 * @moved_base:	sockmap: what the slot of fd[s] had redirected before
 * @written_base: sockmap: what fd[!s] had taken in before the move
 */
struct splice_pair {
	int fd[2];
	int pipe_r[2], pipe_w[2];
	size_t size[2];
	size_t pending[2];
	bool full[2], dry[2], eof[2], shut[2];
	bool connecting;
	uint32_t events[2];
	bool mapped, nomap;
	bool polled[2];
	uint64_t bytes;
	bool got[2];
	uint32_t turns;
	int last;
	bool bulk;
	uint64_t start_ms;
	uint64_t moved_base[2];
	uint64_t written_base[2];
};

/**
 * struct splice_table - every pair, sized at start-up
 * @max:	slots
 * @count:	slots in use
 * @mapped:	pairs in the sockmap now
 * @bulk:	open pairs that moved SPLICE_MAP_BYTES, spliced or mapped
 * @sm:		the sockmap fast path, NULL if not loaded
 * @test_delay_ms: tests only: wait this long between the last check of a
 *		pair and its move (netshim_test_sockmap_delay_ms()), so
 *		that bytes arrive in between, as they may by chance
 * @p:		slots
 */
struct splice_table {
	unsigned int max, count;
	unsigned int mapped;
	unsigned int bulk;
	struct sockmap_state *sm;
	unsigned int test_delay_ms;
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
	if (netshim_test_sockmap_delay_ms)
		t->test_delay_ms = netshim_test_sockmap_delay_ms();
	if (t->test_delay_ms)
		warn("tests only: %u ms between the check of a local flow "
		     "and its move to the sockmap", t->test_delay_ms);
	return sockmap_load(&c->conf, max, &t->sm);
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

	if (p->mapped) {
		sockmap_forget(c->splice->sm, (unsigned int)(p - c->splice->p));
		c->splice->mapped--;
	}
	if (p->bulk) {
		c->splice->bulk--;
		p->bulk = false;
	}
	for (s = 0; s < 2; s++) {
		if (reset)
			setsockopt(p->fd[s], SOL_SOCKET, SO_LINGER, &l,
				   sizeof(l));
		if (p->polled[s])
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, p->fd[s], NULL);
		close(p->fd[s]);
		p->fd[s] = -1;
		splice_drain(p->pipe_r[s], p->pending[s]);
		p->pending[s] = 0;
		p->full[s] = p->dry[s] = p->eof[s] = p->shut[s] = false;
		p->polled[s] = false;
		p->events[s] = 0;
	}
	p->connecting = p->mapped = p->nomap = false;
	p->bytes = 0;
	p->turns = 0;
	p->last = 0;
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

	if (!p->eof[s] && !p->dry[s] && room) {
		n = splice(p->fd[s], NULL, p->pipe_w[s], NULL, room,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n > 0) {
			p->pending[s] += (size_t)n;
			p->bytes += (uint64_t)n;
			p->got[s] = true;
			progress = 1;
		} else if (!n) {
			p->eof[s] = true;
			progress = 1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		} else if (!p->pending[s]) {
			/* Nothing to read: not again before epoll says so.
			 * A one-way stream read its idle side once per
			 * round, a third of its splice() calls
			 */
			p->dry[s] = errno == EAGAIN;
		} else {
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
 * splice_ms() - the loop's clock in milliseconds
 * @c:		execution context
 *
 * Return: monotonic milliseconds
 */
static uint64_t splice_ms(const struct ctx *c)
{
	return (uint64_t)c->now.tv_sec * 1000 +
	       (uint64_t)c->now.tv_nsec / 1000000;
}

/**
 * splice_map_epoll() - what a pair in the sockmap waits for
 * @c:		execution context
 * @p:		the pair
 *
 * Only the end of each stream (EPOLLRDHUP; errors come anyway): never
 * EPOLLIN or EPOLLOUT, the data is the kernel's.  A socket with both
 * directions shut has nothing more to say (and would report EPOLLHUP
 * without end while its last bytes wait to leave): it leaves epoll, and
 * the tick checks it.
 */
static void splice_map_epoll(struct ctx *c, struct splice_pair *p)
{
	uint32_t idx = (uint32_t)(p - c->splice->p);
	int s;

	for (s = 0; s < 2; s++) {
		struct epoll_event ev = { .data.u64 = epref(EPREF_SPLICE,
							    idx * 2 + s) };
		uint32_t want = p->eof[s] ? 0 : EPOLLRDHUP;

		if (!p->polled[s])
			continue;
		if (p->eof[s] && p->shut[!s]) {
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, p->fd[s], NULL);
			p->polled[s] = false;
			continue;
		}
		if (want == p->events[s])
			continue;
		ev.events = want;
		epoll_ctl(c->epfd, EPOLL_CTL_MOD, p->fd[s], &ev);
		p->events[s] = want;
	}
}

/**
 * splice_map_end() - pass an end of stream on once its bytes have left
 * @c:		execution context
 * @p:		the pair, in the sockmap
 * @s:		direction whose end was read: from fd[s] to fd[!s]
 *
 * The FIN must follow the last redirected byte, and the sockets may be
 * closed only when the kernel's worker holds nothing of theirs: every
 * byte of fd[s]'s receive queue went through the program (none unread)
 * and everything the program counted for fd[s] is in fd[!s]'s send queue.
 *
 * Return: true if the direction is now shut, false to check again later
 */
static bool splice_map_end(struct ctx *c, struct splice_pair *p, int s)
{
	uint32_t slot = (uint32_t)(p - c->splice->p) * 2 + (uint32_t)s;
	uint64_t moved, written;

	if (sockmap_unread(p->fd[s]) != 0)
		return false;
	moved = sockmap_moved(c->splice->sm, slot) - p->moved_base[s];
	if (sockmap_written(p->fd[!s], &written) ||
	    written - p->written_base[s] < moved)
		return false;
	debug("local flow %u: end of stream from side %d after %llu bytes "
	      "redirected", slot / 2, s, (unsigned long long)moved);
	shutdown(p->fd[!s], SHUT_WR);
	p->shut[s] = true;
	return true;
}

/**
 * splice_map_check() - a pair in the sockmap: errors, ends, release
 * @c:		execution context
 * @p:		the pair
 */
static void splice_map_check(struct ctx *c, struct splice_pair *p)
{
	socklen_t sl = sizeof(int);
	int s, e;

	for (s = 0; s < 2; s++) {
		e = 0;
		if (getsockopt(p->fd[s], SOL_SOCKET, SO_ERROR, &e, &sl) || e) {
			debug("local flow %u: side %d failed (%s): reset",
			      (unsigned int)(p - c->splice->p), s, strerror(e));
			splice_free(c, p, true);
			return;
		}
	}
	for (s = 0; s < 2; s++)
		if (p->eof[s] && !p->shut[s])
			splice_map_end(c, p, s);
	if (p->shut[0] && p->shut[1]) {
		splice_free(c, p, false);
		return;
	}
	splice_map_epoll(c, p);
}

/* Rounds of splicing to empty both sockets and pipes before a move */
#define SPLICE_MAP_TRIES	4

/**
 * splice_test_delay() - tests only: spin for a while (sleeping calls are
 *			 not in the seccomp allow-list, and need not be)
 * @ms:		milliseconds
 */
static void splice_test_delay(unsigned int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 +
	       (b.tv_nsec - a.tv_nsec) / 1000000 < (long)ms);
}

/**
 * splice_map_worth() - tell if a pair has lasted enough to move
 * @c:		execution context
 * @p:		the pair
 *
 * Return: true if it should move (see SPLICE_MAP_TURNS)
 */
static bool splice_map_worth(const struct ctx *c, const struct splice_pair *p)
{
	if (p->turns >= SPLICE_MAP_TURNS &&
	    p->bytes / p->turns <= SPLICE_MAP_TURN_BYTES)
		return true;
	if (p->bulk && c->splice->bulk >= SPLICE_MAP_BULK)
		return true;
	if (c->conf.bpf != CONF_BPF_REQUIRE)
		return false;
	return p->bytes >= SPLICE_MAP_BYTES ||
	       (p->bytes >= SPLICE_MAP_SOME &&
		splice_ms(c) - p->start_ms >= SPLICE_MAP_MS);
}

/**
 * splice_map_try() - move a pair that lasts to the sockmap
 * @c:		execution context
 * @p:		the pair, spliced
 *
 * Only when nothing is in userspace's care: both pipes empty, and both
 * receive queues empty (SIOCINQ 0: every buffer read whole, none left
 * half read, which the kernel's reader would send again whole, as it
 * takes buffers, not bytes).  A few more rounds of splicing get there
 * when a sender keeps a queue busy.  Bytes that arrive between that check
 * and the move wait in the receive queue, and the program sees them only
 * when the socket is next told of data: setting SO_RCVLOWAT tells it
 * (tcp_set_rcvlowat() calls the data-ready hook the sockmap installed),
 * so they do not wait for a next segment that may never come.
 *
 * Return: true if the pair is taken care of (moved, or freed on an error
 *	   met while emptying it), false to go on splicing it
 */
static bool splice_map_try(struct ctx *c, struct splice_pair *p)
{
	struct splice_table *t = c->splice;
	unsigned int idx = (unsigned int)(p - t->p);
	static bool warned;
	int s, i, one = 1, ret;
	bool ready = false;

	if (!t->sm || p->mapped || p->nomap || p->connecting ||
	    !splice_map_worth(c, p))
		return false;
	for (i = 0; i < SPLICE_MAP_TRIES && !ready; i++) {
		ready = true;
		for (s = 0; s < 2; s++) {
			if (p->eof[s] || p->shut[s])
				return false;
			if (p->pending[s] || sockmap_unread(p->fd[s]))
				ready = false;
		}
		if (ready)
			break;
		p->dry[0] = p->dry[1] = false;
		if (splice_move(p, 0) < 0 || splice_move(p, 1) < 0) {
			splice_free(c, p, true);
			return true;
		}
	}
	if (!ready)
		return false;
	for (s = 0; s < 2; s++)
		if (sockmap_written(p->fd[!s], &p->written_base[s]))
			goto fail;
	if (t->test_delay_ms)
		splice_test_delay(t->test_delay_ms);
	ret = sockmap_add(t->sm, idx, p->fd, p->moved_base);
	if (ret == -EOPNOTSUPP &&
	    (sockmap_closing(p->fd[0]) || sockmap_closing(p->fd[1]))) {
		/* A FIN or reset came in since the checks above: the flow
		 * ends on splice, which sees it next
		 */
		debug("local flow %u: ending, not moved to the sockmap", idx);
		p->nomap = true;
		return false;
	}
	if (ret) {
		errno = -ret;
		goto fail;
	}
	debug("local flow %u: moved to the sockmap after %llu bytes spliced, "
	      "%u turns", idx, (unsigned long long)p->bytes, p->turns);
	p->mapped = true;
	t->mapped++;
	c->cnt.tcp_sockmap++;
	for (s = 0; s < 2; s++)
		setsockopt(p->fd[s], SOL_SOCKET, SO_RCVLOWAT, &one,
			   sizeof(one));
	splice_map_check(c, p);
	return true;
fail:
	if (!warned) {
		warn("a local flow stays on splice: the sockmap refused it: "
		     "%s", strerror(errno));
		warned = true;
	}
	p->nomap = true;
	c->cnt.sockmap_refused++;
	return false;
}

/**
 * splice_run() - move data both ways until nothing moves, then wait
 * @c:		execution context
 * @p:		the pair
 */
static void splice_run(struct ctx *c, struct splice_pair *p)
{
	int i, a, b;

	p->got[0] = p->got[1] = false;
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
	if (!p->bulk && p->bytes >= SPLICE_MAP_BYTES) {
		p->bulk = true;
		c->splice->bulk++;
	}
	if (p->got[0] != p->got[1] && p->last != p->got[1]) {
		p->last = p->got[1];
		p->turns++;
	}
	if (splice_map_try(c, p))
		return;
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
	int s, one = 1;

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
		p->polled[s] = true;
		/* Both ends' kernels have applied their applications'
		 * choice of Nagle already: a relay that applies it again
		 * holds a request's last piece until the first is
		 * acknowledged, which the server's kernel delays (40 ms or
		 * more: it has no answer to send yet)
		 */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	p->connecting = b_connecting;
	p->start_ms = splice_ms(c);
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

	if (!t || idx / 2 >= t->max)
		return;
	p = &t->p[idx / 2];
	if (p->fd[0] < 0)
		return;
	if (p->mapped) {
		debug("local flow %u: side %u: events %x", idx / 2, idx & 1,
		      events);
		if (events & (EPOLLRDHUP | EPOLLHUP))
			p->eof[idx & 1] = true;
		splice_map_check(c, p);
		return;
	}
	if (p->connecting) {
		if (getsockopt(p->fd[1], SOL_SOCKET, SO_ERROR, &e, &sl) || e) {
			splice_free(c, p, true);
			return;
		}
		p->connecting = false;
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		p->dry[idx & 1] = false;
	splice_run(c, p);
}

/**
 * splice_timer() - on a tick: pairs in the sockmap waiting for their last
 *		    redirected bytes to leave before an end of stream
 * @c:		execution context
 */
void splice_timer(struct ctx *c)
{
	struct splice_table *t = c->splice;
	unsigned int i;

	if (!t || !t->mapped)
		return;
	for (i = 0; i < t->max; i++) {
		struct splice_pair *p = &t->p[i];

		if (p->fd[0] >= 0 && p->mapped &&
		    ((p->eof[0] && !p->shut[0]) || (p->eof[1] && !p->shut[1])))
			splice_map_check(c, p);
	}
}

/**
 * splice_counters() - copy what the sockmap program counted to the
 *		       counters, before they are logged
 * @c:		execution context
 */
void splice_counters(struct ctx *c)
{
	struct sockmap_totals tot;

	if (!c->splice || !c->splice->sm ||
	    sockmap_totals(c->splice->sm, &tot))
		return;
	c->cnt.sockmap_bytes = tot.bytes;
	c->cnt.sockmap_misses = tot.misses;
}

/**
 * splice_bpf_loaded() - tell if the sockmap fast path is loaded, so that
 *			 the sandbox lets the loop use its maps
 * @c:		execution context
 *
 * Return: true if it is
 */
bool splice_bpf_loaded(const struct ctx *c)
{
	return c->splice && c->splice->sm;
}

/* An upgrade in place (daemon/upgrade.c): every pair, its sockets and
 * its pipes passed along, bytes in the pipes and all.  Record, integers
 * big endian: flags (1: SPLICE_UP_*), each side's flags (1 each: pipe
 * full, dry, end of stream read, shut), a zero byte, each pipe's size and
 * the bytes in it (4 each), the number of turns (4), bytes moved and when
 * the pair was joined (8 each, CLOCK_MONOTONIC milliseconds); then both
 * sockets and
 * the read and write ends of each direction's pipe.  A pair in the
 * sockmap leaves it first (the new netshim's program is not the old
 * one's), once the kernel has nothing of its bytes in hand.
 */
#define SPLICE_UP_CONNECTING	0x01
#define SPLICE_UP_NOMAP		0x02
#define SPLICE_UP_BULK		0x04
#define SPLICE_UP_LAST		0x08
#define SPLICE_UP_FULL		0x01
#define SPLICE_UP_DRY		0x02
#define SPLICE_UP_EOF		0x04
#define SPLICE_UP_SHUT		0x08

/**
 * splice_unmap() - take a pair out of the sockmap, back on splice, if
 *		    the kernel holds none of its bytes
 * @c:		execution context
 * @p:		the pair, in the sockmap
 *
 * What the program redirected is in the other socket's send queue, and
 * nothing waits in either receive queue for it: taking the sockets out
 * of the map then loses nothing.  They go back to epoll as a spliced
 * pair's, which the old netshim goes on with if the upgrade does not
 * happen.
 *
 * Return: 0 if the pair is spliced now, -1 if bytes are still in hand
 */
static int splice_unmap(struct ctx *c, struct splice_pair *p)
{
	struct splice_table *t = c->splice;
	uint32_t idx = (uint32_t)(p - t->p);
	uint64_t written;
	int s;

	for (s = 0; s < 2; s++) {
		uint64_t moved = sockmap_moved(t->sm, idx * 2 + (uint32_t)s) -
				 p->moved_base[s];

		if (sockmap_unread(p->fd[s]) ||
		    sockmap_written(p->fd[!s], &written) ||
		    written - p->written_base[s] < moved)
			return -1;
	}
	sockmap_forget(t->sm, idx);
	p->mapped = false;
	p->nomap = true;
	t->mapped--;
	for (s = 0; s < 2; s++) {
		struct epoll_event ev = { .data.u64 = epref(EPREF_SPLICE,
							    idx * 2 + s) };

		p->dry[s] = false;
		p->events[s] = 0;
		if (p->polled[s])
			epoll_ctl(c->epfd, EPOLL_CTL_MOD, p->fd[s], &ev);
		else if (!epoll_ctl(c->epfd, EPOLL_CTL_ADD, p->fd[s], &ev))
			p->polled[s] = true;
	}
	splice_epoll(c, p);
	return 0;
}

/**
 * splice_upgrade_save() - write every pair, its sockets and pipes along
 * @c:		execution context
 * @io:		the stream, over the new netshim's UNIX socket
 *
 * Return: 0 on success, -1 with @io->err set (EAGAIN if a pair in the
 * sockmap has bytes in the kernel's hands: the upgrade is for later)
 */
int splice_upgrade_save(struct ctx *c, struct migio *io)
{
	struct splice_table *t = c->splice;
	unsigned int i;
	int s;

	for (i = 0; t && i < t->max; i++) {
		if (t->p[i].fd[0] >= 0 && t->p[i].mapped &&
		    splice_unmap(c, &t->p[i])) {
			warn("upgrade: a local flow's bytes are in the "
			     "kernel's hands (sockmap): not now");
			io->err = EAGAIN;
			return -1;
		}
	}
	if (migio_put_u32(io, t ? t->count : 0))
		return -1;
	for (i = 0; t && i < t->max; i++) {
		const struct splice_pair *p = &t->p[i];
		uint8_t r[24] = { 0 };

		if (p->fd[0] < 0)
			continue;
		r[0] = (p->connecting ? SPLICE_UP_CONNECTING : 0) |
		       (p->nomap ? SPLICE_UP_NOMAP : 0) |
		       (p->bulk ? SPLICE_UP_BULK : 0) |
		       (p->last ? SPLICE_UP_LAST : 0);
		for (s = 0; s < 2; s++) {
			r[1 + s] = (p->full[s] ? SPLICE_UP_FULL : 0) |
				   (p->dry[s] ? SPLICE_UP_DRY : 0) |
				   (p->eof[s] ? SPLICE_UP_EOF : 0) |
				   (p->shut[s] ? SPLICE_UP_SHUT : 0);
			migio_wr_be32(r + 4 + 4 * s, (uint32_t)p->size[s]);
			migio_wr_be32(r + 12 + 4 * s, (uint32_t)p->pending[s]);
		}
		migio_wr_be32(r + 20, p->turns);
		if (migio_put(io, r, 24) || migio_put_u64(io, p->bytes) ||
		    migio_put_u64(io, p->start_ms))
			return -1;
		for (s = 0; s < 2; s++)
			if (migio_put_fd(io, p->fd[s]))
				return -1;
		for (s = 0; s < 2; s++)
			if (migio_put_fd(io, p->pipe_r[s]) ||
			    migio_put_fd(io, p->pipe_w[s]))
				return -1;
	}
	if (t && t->count)
		info("upgrade: %u local TCP flows go with their sockets and "
		     "pipes", t->count);
	return 0;
}

/**
 * splice_upgrade_pair() - take one pair of the old netshim
 * @c:		execution context
 * @io:		the stream, at the record
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int splice_upgrade_pair(struct ctx *c, struct migio *io)
{
	struct splice_table *t = c->splice;
	int fd[6] = { -1, -1, -1, -1, -1, -1 }, s, k;
	struct splice_pair *p = NULL;
	uint64_t bytes, start;
	uint8_t r[24];
	unsigned int i;

	if (migio_get(io, r, sizeof(r)) || migio_get_u64(io, &bytes) ||
	    migio_get_u64(io, &start))
		return -1;
	for (k = 0; k < 6; k++)
		if (migio_get_fd(io, &fd[k]))
			goto fail;
	for (i = 0; t && i < t->max && !p; i++)
		if (t->p[i].fd[0] < 0)
			p = &t->p[i];
	if (!p) {
		io->err = EFBIG;
		goto fail;
	}
	if ((r[0] & ~(SPLICE_UP_CONNECTING | SPLICE_UP_NOMAP | SPLICE_UP_BULK |
		      SPLICE_UP_LAST)) || r[3] ||
	    ((r[1] | r[2]) & ~(SPLICE_UP_FULL | SPLICE_UP_DRY | SPLICE_UP_EOF |
			       SPLICE_UP_SHUT)))
		goto bad;
	for (s = 0; s < 2; s++) {
		uint32_t size = migio_rd_be32(r + 4 + 4 * s);

		if (!size || size > (1U << 30) ||
		    migio_rd_be32(r + 12 + 4 * s) > size)
			goto bad;
	}
	/* Its pipes are the old one's, with what they hold: ours go */
	for (s = 0; s < 2; s++) {
		close(p->pipe_r[s]);
		close(p->pipe_w[s]);
		p->fd[s] = fd[s];
		p->pipe_r[s] = fd[2 + 2 * s];
		p->pipe_w[s] = fd[3 + 2 * s];
		p->size[s] = migio_rd_be32(r + 4 + 4 * s);
		p->pending[s] = migio_rd_be32(r + 12 + 4 * s);
		p->full[s] = r[1 + s] & SPLICE_UP_FULL;
		p->dry[s] = false;	/* read again: epoll says if empty */
		p->eof[s] = r[1 + s] & SPLICE_UP_EOF;
		p->shut[s] = r[1 + s] & SPLICE_UP_SHUT;
		p->events[s] = 0;
		p->polled[s] = false;
	}
	p->connecting = r[0] & SPLICE_UP_CONNECTING;
	p->nomap = r[0] & SPLICE_UP_NOMAP;
	p->bulk = r[0] & SPLICE_UP_BULK;
	p->last = !!(r[0] & SPLICE_UP_LAST);
	p->mapped = false;
	p->turns = migio_rd_be32(r + 20);
	p->bytes = bytes;
	p->start_ms = start;
	t->count++;
	if (p->bulk)
		t->bulk++;
	for (s = 0; s < 2; s++) {
		struct epoll_event ev = { .data.u64 = epref(EPREF_SPLICE,
			(uint32_t)(p - t->p) * 2 + (uint32_t)s) };

		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, p->fd[s], &ev)) {
			io->err = errno;
			return -1;
		}
		p->polled[s] = true;
	}
	splice_epoll(c, p);
	return 0;
bad:
	io->err = EINVAL;
fail:
	for (k = 0; k < 6; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	return -1;
}

/**
 * splice_upgrade_load() - take the local TCP flows of the old netshim
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed, EFBIG
 * if more than the pool holds)
 */
int splice_upgrade_load(struct ctx *c, struct migio *io)
{
	uint32_t i, n;

	if (migio_get_u32(io, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!splice_upgrade_pair(c, io))
			continue;
		if (io->err == EINVAL)
			err("upgrade: local TCP flow %u of %u is malformed",
			    i + 1, n);
		else if (io->err == EFBIG)
			err("upgrade: %u local TCP flows, more than the %u "
			    "this netshim holds", n,
			    c->splice ? c->splice->max : 0);
		return -1;
	}
	if (n)
		info("upgrade: %u local TCP flows taken over", n);
	return 0;
}
