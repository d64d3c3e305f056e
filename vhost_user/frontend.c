// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the vhost-user connection: its eventfds, and dropping it
 *
 * What every room of the back-end needs of the front-end's connection:
 * watching the kick eventfds, interrupting the guest through a call
 * eventfd, and letting the front-end go, counted and logged when it broke
 * the protocol or its rings, after which the next one is served.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "netshim/log.h"
#include "vu.h"

/**
 * vu_drop() - drop a front-end that broke the rules
 * @c:		execution context
 * @why:	what it did, for the log
 */
void vu_drop(struct ctx *c, const char *why)
{
	c->cnt.vu_dropped++;
	warn("vhost-user front-end dropped: %s", why);
	vu_close(c, why);
}

/**
 * vu_fault_check() - drop a front-end that shrank guest memory under us
 * @c:		execution context
 *
 * The SIGBUS handler of mem.c has already put zero pages there, so what
 * read them went on harmlessly; the front-end broke the rules all the same.
 *
 * Return: true if it was dropped
 */
bool vu_fault_check(struct ctx *c)
{
	if (!vu_mem_faulted())
		return false;
	vu_drop(c, "guest memory truncated under its mapping (SIGBUS)");
	return true;
}

/**
 * vu_notify() - interrupt the guest for new used entries, if it wants one
 * @vq:		queue
 */
void vu_notify(struct vq *vq)
{
	uint64_t one = 1;

	if (vq->call_fd >= 0 && vq_should_notify(vq) &&
	    write(vq->call_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		debug("vhost-user: call eventfd: %m");
}

/**
 * vu_kick_self() - kick a queue ourselves, so that the loop comes back to
 *		    it after the other events waiting
 * @vq:		queue
 */
void vu_kick_self(struct vq *vq)
{
	uint64_t one = 1;

	if (vq->kick_fd >= 0 &&
	    write(vq->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		debug("vhost-user: kick eventfd: %m");
}

/**
 * vu_kick_unregister() - stop watching the kick eventfds
 * @c:		execution context
 *
 * Before every request: a request may close one, and its number come back
 * for another descriptor that epoll would then not know.
 */
void vu_kick_unregister(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	unsigned int i;

	for (i = 0; i < VU_QUEUES; i++) {
		if (v->kick_reg[i] >= 0)
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, v->kick_reg[i], NULL);
		v->kick_reg[i] = -1;
	}
}

/**
 * vu_kick_register() - watch the kick eventfds the front-end set
 * @c:		execution context
 *
 * Return: 0 on success, -1 if epoll refused one
 */
int vu_kick_register(struct ctx *c)
{
	struct vu_link *v = c->link.vu;
	unsigned int i;

	/* Edge-triggered, and never read: every write to an eventfd wakes
	 * epoll again, so nothing is missed, and its count is of no use to
	 * us (the rings say what there is).  One read() per kick saved.
	 */
	for (i = 0; i < VU_QUEUES; i++) {
		struct epoll_event ev = {
			.events = EPOLLIN | EPOLLET,
			.data.u64 = epref(EPREF_LINK, 1 + i),
		};
		int fd = v->dev.vq[i].kick_fd;

		if (fd < 0)
			continue;
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev))
			return -1;
		v->kick_reg[i] = fd;
	}
	return 0;
}

/**
 * vu_forget_fds() - close descriptors received with no message to take them
 * @v:		back-end state
 */
static void vu_forget_fds(struct vu_link *v)
{
	unsigned int i;

	for (i = 0; i < v->nfds; i++)
		close(v->fds[i]);
	v->nfds = 0;
}

/**
 * vu_close() - forget the front-end: its memory, eventfds, guest and flows
 * @c:		execution context
 * @why:	reason, for the log
 */
void vu_close(struct ctx *c, const char *why)
{
	struct vu_link *v = c->link.vu;

	if (c->link.fd < 0)
		return;
	vu_kick_unregister(c);
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->link.fd, NULL);
	close(c->link.fd);
	c->link.fd = -1;
	vu_forget_fds(v);
	v->in_len = 0;
	v->ip_popped = v->ip_used = 0;
	v->ip_frames = v->ip_next = 0;
	v->rx_due = 0;
	v->nframes = 0;
	v->in_q = VU_TX_Q;
	v->tx_done = 0;
	vu_dev_reset(&v->dev);
	link_gone(c, why);
}
