// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the io_uring loop: the wait and the calls that need no answer
 *
 * With --io-uring=auto or require, the loop still keeps every descriptor
 * in its epoll set, but waits for it through io_uring's epoll wait
 * (IORING_OP_EPOLL_WAIT, Linux 6.15), submitted with the calls of the
 * iteration that need no answer: the bytes the guest acknowledged dropped
 * from TCP sockets.  One io_uring_enter() then does what epoll_wait() and
 * a recv() per connection did.
 *
 * The ring takes only those two operations (IORING_REGISTER_RESTRICTIONS):
 * io_uring's calls pass the seccomp filter unseen, so the filter lets
 * io_uring_enter() in only for a ring that can do nothing else, and keeps
 * io_uring_setup() out.  Pods whose seccomp profile refuses io_uring_setup
 * (the RuntimeDefault profiles of containerd 2.0, Docker 25, CRI-O), and
 * kernels without the epoll wait, keep the epoll loop: said once in the
 * log, or a failed start with --io-uring=require.
 *
 * Not the default: it measured level with epoll in CPU per byte, not
 * faster, for a quarter fewer calls towards the guest (tests/bench/README.md).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <liburing.h>

#include "ctx.h"
#include "log.h"
#include "uring.h"

/* IORING_OP_EPOLL_WAIT, Linux 6.15: liburing 2.3's headers predate it */
#define URING_OP_EPOLL_WAIT	59
#define URING_ENTRIES		256
#define URING_FAILED		64
#define URING_TAG_WAIT		UINT64_MAX

/**
 * struct uring - the ring and what is in flight on it
 * @ring:	the ring
 * @on:		the loop uses it
 * @armed:	an epoll wait is in flight
 * @failed:	tags of dropping calls that failed, not yet taken
 * @n_failed:	entries in @failed
 */
static struct uring {
	struct io_uring ring;
	bool on;
	bool armed;
	uint64_t failed[URING_FAILED];
	unsigned int n_failed;
} uring;

/**
 * uring_open() - set up the ring, restricted to what the loop submits
 *
 * Return: NULL on success, or why the ring cannot be used (errno set)
 */
static const char *uring_open(void)
{
	struct io_uring_restriction res[] = {
		{ .opcode = IORING_RESTRICTION_SQE_OP,
		  .sqe_op = URING_OP_EPOLL_WAIT },
		{ .opcode = IORING_RESTRICTION_SQE_OP,
		  .sqe_op = IORING_OP_RECV },
		{ .opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED,
		  .sqe_flags = IOSQE_CQE_SKIP_SUCCESS },
	};
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
	};
	struct io_uring_probe *probe;
	bool ok;
	int rc;

	rc = io_uring_queue_init_params(URING_ENTRIES, &uring.ring, &p);
	if (rc) {
		errno = -rc;
		return "io_uring_setup() refused";
	}
	probe = io_uring_get_probe_ring(&uring.ring);
	ok = probe && io_uring_opcode_supported(probe, URING_OP_EPOLL_WAIT) &&
	     io_uring_opcode_supported(probe, IORING_OP_RECV);
	io_uring_free_probe(probe);
	if (!ok) {
		io_uring_queue_exit(&uring.ring);
		errno = EOPNOTSUPP;
		return "the kernel has no io_uring epoll wait (Linux 6.15)";
	}
	/* Debian 12's liburing 2.3 declares io_uring_register_restrictions()
	 * and io_uring_enable_rings() but its library does not export them
	 */
	if (syscall(__NR_io_uring_register, uring.ring.ring_fd,
		    IORING_REGISTER_RESTRICTIONS, res,
		    sizeof(res) / sizeof(res[0])) ||
	    syscall(__NR_io_uring_register, uring.ring.ring_fd,
		    IORING_REGISTER_ENABLE_RINGS, NULL, 0)) {
		int e = errno;

		io_uring_queue_exit(&uring.ring);
		errno = e;
		return "io_uring restrictions refused";
	}
	return NULL;
}

/**
 * uring_init() - use io_uring for the loop, as --io-uring says
 * @c:		execution context
 *
 * After daemonize(): the ring belongs to the task that submits to it.
 *
 * Return: 0 on success or with the epoll loop, -1 if --io-uring=require
 * and the ring cannot be used (logged)
 */
int uring_init(struct ctx *c)
{
	const char *why;

	if (c->conf.io_uring == CONF_IO_URING_OFF)
		return 0;
	why = uring_open();
	if (why) {
		if (c->conf.io_uring == CONF_IO_URING_REQUIRE) {
			err("--io-uring=require: %s: %m", why);
			return -1;
		}
		info("io_uring: %s (%m): the loop uses epoll", why);
		return 0;
	}
	uring.on = true;
	info("io_uring: the loop waits and drops acknowledged data through it");
	return 0;
}

/**
 * uring_on() - does the loop use io_uring
 * @c:		execution context
 *
 * Return: true if it does
 */
bool uring_on(const struct ctx *c)
{
	(void)c;
	return uring.on;
}

/**
 * uring_wait() - submit what is queued and wait for epoll events
 * @c:		execution context
 * @ev:		events, as epoll_wait() fills them: the same array every
 *		call, since a wait may stay in flight from one to the next
 * @max:	its size
 * @timeout:	milliseconds, as epoll_wait()'s: 0 takes the events there are
 *		now, -1 waits for one
 *
 * Return: number of events, -1 on failure with errno set
 */
int uring_wait(struct ctx *c, struct epoll_event *ev, int max, int timeout)
{
	struct __kernel_timespec ts = { .tv_nsec = timeout * 1000000LL };
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int rc, n = 0;

	if (!uring.armed) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&uring.ring);

		/* uring_discard() keeps one entry for this */
		io_uring_prep_rw(URING_OP_EPOLL_WAIT, sqe, c->epfd, ev,
				 (unsigned int)max, 0);
		io_uring_sqe_set_data64(sqe, URING_TAG_WAIT);
		uring.armed = true;
	}
	if (!timeout)
		rc = io_uring_submit_and_get_events(&uring.ring);
	else if (timeout < 0)
		rc = io_uring_submit_and_wait(&uring.ring, 1);
	else
		rc = io_uring_submit_and_wait_timeout(&uring.ring, &cqe, 1,
						      &ts, NULL);
	if (rc < 0 && rc != -EINTR && rc != -ETIME) {
		errno = -rc;
		return -1;
	}
	io_uring_for_each_cqe(&uring.ring, head, cqe) {
		seen++;
		if (cqe->user_data == URING_TAG_WAIT) {
			uring.armed = false;
			n = cqe->res > 0 ? cqe->res : 0;
		} else if (uring.n_failed < URING_FAILED) {
			uring.failed[uring.n_failed++] = cqe->user_data;
		}
	}
	io_uring_cq_advance(&uring.ring, seen);
	return n;
}

/**
 * uring_discard() - queue a drop of bytes from a socket's receive queue
 * @c:		execution context
 * @fd:		socket
 * @len:	bytes, all of which are known to be there
 * @tag:	told back by uring_failed() if the drop fails
 *
 * Submitted by the next uring_wait(), where it completes at once (the
 * bytes are there, and it does not wait): the caller queues it just
 * before, so the descriptor is still the one it meant.
 *
 * Return: true if queued, false if the caller should recv() itself
 */
bool uring_discard(struct ctx *c, int fd, uint32_t len, uint64_t tag)
{
	struct io_uring_sqe *sqe;

	(void)c;
	if (!uring.on || io_uring_sq_space_left(&uring.ring) < 2)
		return false;
	sqe = io_uring_get_sqe(&uring.ring);
	io_uring_prep_recv(sqe, fd, NULL, len, MSG_TRUNC | MSG_DONTWAIT);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	io_uring_sqe_set_data64(sqe, tag);
	return true;
}

/**
 * uring_failed() - take the tag of a queued drop that failed
 * @c:		execution context
 * @tag:	set to it
 *
 * Return: true if there was one
 */
bool uring_failed(struct ctx *c, uint64_t *tag)
{
	(void)c;
	if (!uring.n_failed)
		return false;
	*tag = uring.failed[--uring.n_failed];
	return true;
}
