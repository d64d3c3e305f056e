// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the TCP repair helper: passt-repair's protocol, the back-end's end
 *
 * Moving a TCP connection to another host needs TCP_REPAIR, and that needs
 * CAP_NET_ADMIN, which netshim never has.  A small privileged helper does
 * it for us: KubeVirt's virt-handler starts passt's passt-repair, pointed
 * at the socket next to the vhost-user one (PATH.repair, or --repair-path),
 * on the migration's source and destination; netshim-repair speaks the same
 * protocol.  The helper connects; we send one byte, a TCP_REPAIR value (1
 * on, 0 off, -1 off without a window probe), with up to 253 sockets as
 * SCM_RIGHTS; it sets the option on each and echoes the byte.  The helper's
 * socket is blocking with a timeout: it is used only while the guest is
 * stopped for the migration.
 *
 * netshim-repair also makes the sockets handed over deaf (REPAIR_DEAF, a
 * socket filter, which recent kernels let only CAP_NET_ADMIN put on a TCP
 * socket: 6.18 here), so that they acknowledge nothing more
 * (tcp/migrate.c).  It says so without a byte on the wire, which passt
 * would take for a reply, and without a command passt-repair does not
 * know, on which it exits: its socket is bound to an abstract name
 * starting with REPAIR_EXT_NAME, and accept() gives us that name.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <stddef.h>

#include "ctx.h"
#include "fdpool.h"
#include "log.h"
#include "repair.h"
#include "unixsock.h"

#define REPAIR_REPLY_S	5	/* the longest the helper may take to answer */

/**
 * repair_listen() - listen for the helper, next to the vhost-user socket
 * @c:		execution context
 *
 * Without it netshim still migrates, resetting the guest's TCP
 * connections, so a failure here is a warning.
 *
 * Return: 0, always
 */
int repair_listen(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(EPREF_REPAIR_LISTEN, 0) };
	const char *path = c->conf.repair_path;
	int fd;

	c->repair.listen_fd = c->repair.fd = -1;
	if (!*path)
		return 0;
	/* Taking over from a running netshim: its socket (fdpool.c) */
	fd = fdpool_take_unix(path);
	if (fd < 0)
		fd = unix_listen(path);
	if (fd < 0 || epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		warn("TCP repair helper socket %s: %m: migrated TCP "
		     "connections will be reset", path);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	c->repair.listen_fd = fd;
	info("TCP repair helper socket: %s", path);
	return 0;
}

/**
 * repair_close() - forget the helper
 * @c:		execution context
 */
static void repair_close(struct ctx *c)
{
	if (c->repair.fd < 0)
		return;
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->repair.fd, NULL);
	close(c->repair.fd);
	c->repair.fd = -1;
	c->repair.n = 0;
	c->repair.nsent = 0;
	c->repair.ext = false;
}

/**
 * repair_adopt() - serve a helper's connection: one accepted, or one a
 *		    netshim upgraded in place handed over (upgrade.c)
 * @c:		execution context, no helper connected
 * @fd:		the connection, its timeouts set
 * @ext:	the helper is netshim-repair (REPAIR_EXT_NAME)
 *
 * Return: 0 on success, -1 if epoll refused it
 */
int repair_adopt(struct ctx *c, int fd, bool ext)
{
	struct epoll_event ev = { .events = EPOLLRDHUP,
				  .data.u64 = epref(EPREF_REPAIR, 0) };

	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -1;
	c->repair.fd = fd;
	c->repair.n = 0;
	c->repair.nsent = 0;
	c->repair.ext = ext;
	return 0;
}

/**
 * repair_accept() - a helper connects: it replaces the one connected
 * @c:		execution context
 *
 * KubeVirt's virt-handler starts a helper on each side of every migration;
 * one still connected (a migration cancelled before its state was asked
 * for leaves it) is older than what the launcher means to be used now,
 * and exits once we hang up.
 */
void repair_accept(struct ctx *c)
{
	struct timeval tv = { .tv_sec = REPAIR_REPLY_S };
	const size_t ext = sizeof(REPAIR_EXT_NAME) - 1;
	struct sockaddr_un a;
	socklen_t alen = sizeof(a);
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	fd = accept4(c->repair.listen_fd, (struct sockaddr *)&a, &alen,
		     SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (c->repair.fd >= 0) {
		info("TCP repair helper: a new one replaces the one connected");
		repair_close(c);
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    repair_adopt(c, fd, alen > offsetof(struct sockaddr_un, sun_path) +
			 ext && !a.sun_path[0] &&
			 !memcmp(a.sun_path + 1, REPAIR_EXT_NAME, ext))) {
		warn("TCP repair helper: %m");
		close(fd);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		cred.pid = 0;
	info("TCP repair helper connected, pid %d%s", (int)cred.pid,
	     c->repair.ext ? ", makes sockets deaf" : "");
}

/**
 * repair_event() - the helper hung up
 * @c:		execution context
 */
void repair_event(struct ctx *c)
{
	info("TCP repair helper gone");
	repair_close(c);
}

/**
 * repair_done() - a migration is over here: hang up on the helper
 * @c:		execution context
 *
 * The helper holds CAP_NET_ADMIN: it should live no longer than the
 * migration it was started for.  It exits when we hang up, as
 * passt-repair does when passt hangs up after each migration, and the
 * launcher starts a new one for the next, as virt-handler does.
 */
void repair_done(struct ctx *c)
{
	if (c->repair.fd < 0)
		return;
	info("TCP repair helper: migration over, hanging up on it");
	repair_close(c);
}

/**
 * repair_wait() - is a helper there, waiting a moment for one to connect
 * @c:		execution context
 *
 * KubeVirt starts the helper when the migration starts, long before the
 * state is asked for, with the guest stopped: a helper that is not there
 * yet gets a moment, not more, since each millisecond is downtime.
 *
 * Return: true if a helper is connected
 */
bool repair_wait(struct ctx *c)
{
	struct pollfd p = { .fd = c->repair.listen_fd, .events = POLLIN };

	if (c->repair.fd >= 0 || c->repair.listen_fd < 0)
		return c->repair.fd >= 0;
	if (poll(&p, 1, REPAIR_WAIT_MS) == 1)
		repair_accept(c);
	return c->repair.fd >= 0;
}

/**
 * repair_replies() - read the helper's replies to the commands sent, oldest
 *		      first, until only @keep are left unanswered
 * @c:		execution context
 * @keep:	commands that may stay unanswered
 *
 * Return: 0 if each came as sent, -1 if not (the helper is dropped)
 */
static int repair_replies(struct ctx *c, unsigned int keep)
{
	int8_t reply;

	while (c->repair.nsent > keep) {
		errno = 0;
		if (recv(c->repair.fd, &reply, 1, 0) != 1 ||
		    reply != c->repair.sent[0]) {
			warn("TCP repair helper did not carry out command "
			     "%d: %s", c->repair.sent[0],
			     errno ? strerror(errno) : "bad reply");
			repair_close(c);
			return -1;
		}
		memmove(c->repair.sent, c->repair.sent + 1,
			--c->repair.nsent);
	}
	return 0;
}

/**
 * repair_send() - send the command for the sockets waiting, not waiting for
 *		   its reply
 * @c:		execution context
 *
 * The helper answers commands in order, one byte each, so a batch for
 * another command need not wait for the reply to the one before: making
 * the sockets deaf and putting them in repair mode then costs one round
 * trip to the helper, not two, inside the guest's pause.
 *
 * Return: 0 on success, -1 if the helper failed or went (it is dropped)
 */
static int repair_send(struct ctx *c)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * REPAIR_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { &c->repair.cmd, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf };
	struct cmsghdr *cm;

	if (c->repair.fd < 0)
		return -1;
	if (c->repair.nsent == REPAIR_SENT_MAX &&
	    repair_replies(c, REPAIR_SENT_MAX - 1))
		return -1;
	memset(u.buf, 0, sizeof(u.buf));
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * c->repair.n);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * c->repair.n);
	memcpy(CMSG_DATA(cm), c->repair.fds, sizeof(int) * c->repair.n);
	c->repair.n = 0;
	errno = 0;
	if (sendmsg(c->repair.fd, &msg, MSG_NOSIGNAL) != 1) {
		warn("TCP repair helper did not take command %d: %s",
		     c->repair.cmd, errno ? strerror(errno) : "short write");
		repair_close(c);
		return -1;
	}
	c->repair.sent[c->repair.nsent++] = c->repair.cmd;
	c->repair.issued++;
	return 0;
}

/**
 * repair_flush() - have the helper carry out the commands for the sockets
 *		    waiting, and wait until it has
 * @c:		execution context
 *
 * Return: 0 on success, -1 if the helper failed or went (it is dropped)
 */
int repair_flush(struct ctx *c)
{
	if (!c->repair.n && !c->repair.nsent)
		return 0;
	if (c->repair.n && repair_send(c))
		return -1;
	return repair_replies(c, 0);
}

/**
 * repair_push() - send the command for the sockets waiting, without
 *		   waiting for the helper to carry it out
 * @c:		execution context
 * @mark:	filled in: the commands sent so far, for repair_wait_for()
 *
 * The sockets of one command may then be read while the helper works on
 * the next.
 *
 * Return: 0 on success, -1 if the helper failed or went (it is dropped)
 */
int repair_push(struct ctx *c, uint64_t *mark)
{
	if (c->repair.n && repair_send(c))
		return -1;
	*mark = c->repair.issued;
	return c->repair.fd < 0 ? -1 : 0;
}

/**
 * repair_wait_for() - wait until the helper carried out the commands sent
 *		       up to a mark of repair_push(), not those sent after
 * @c:		execution context
 * @mark:	the mark
 *
 * Return: 0 on success, -1 if the helper failed or went (it is dropped)
 */
int repair_wait_for(struct ctx *c, uint64_t mark)
{
	uint64_t after = c->repair.issued - mark;

	if (c->repair.fd < 0)
		return -1;
	if (after >= c->repair.nsent)
		return 0;
	return repair_replies(c, (unsigned int)after);
}

/**
 * repair_set() - queue a socket for a command, sending when the batch is
 *		  full or the command changes (repair_flush() waits for the
 *		  helper to have carried it out)
 * @c:		execution context
 * @fd:		TCP socket
 * @cmd:	REPAIR_ON, REPAIR_OFF or REPAIR_OFF_NO_WP, or, if
 *		c->repair.ext, REPAIR_DEAF or REPAIR_HEAR
 *
 * Return: 0 on success, -1 if the helper failed
 */
int repair_set(struct ctx *c, int fd, int8_t cmd)
{
	if (c->repair.n && c->repair.cmd != cmd && repair_send(c))
		return -1;
	c->repair.cmd = cmd;
	c->repair.fds[c->repair.n++] = fd;
	if (c->repair.n == REPAIR_FDS_MAX)
		return repair_send(c);
	return 0;
}
