// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - client mode: connecting to a socket the VMM listens on
 *
 * Some VMMs listen and wait for their back-end to connect: QEMU's
 * -chardev socket,server=on under -netdev vhost-user, and -netdev
 * stream,server=on; Cloud Hypervisor's vhost_mode=server; Kata's
 * Dragonball.  With --connect, netshim connects to their socket instead
 * of listening on one of its own, and the back-end takes the connection
 * as it takes one accepted (link_ops.adopt): for vhost-user the VMM then
 * negotiates as it would with a back-end it connected to.
 *
 * The socket may not be there yet (the VMM still starting), or refuse
 * (a VMM gone, perhaps about to come back on the same path).  Attempts
 * are made from the loop's tick, each one non-blocking connect(), further
 * apart after each failure up to a second, for --connect-timeout seconds.
 * When the VMM goes away (it was restarted, or killed), the attempts start
 * again: the guest's link comes back, DHCP, router advertisements and all,
 * with nothing asked of the launcher.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "link.h"
#include "netshim/log.h"
#include "netshim/unixsock.h"

/* First wait after a failed attempt (attempts come on the loop's 50 ms
 * tick: the next one), and the longest: a VMM that comes back is found
 * within a second, and one that does not costs a system call a second
 */
#define LINK_CLIENT_DELAY_MIN_MS	25
#define LINK_CLIENT_DELAY_MAX_MS	1000

/**
 * link_client_ms() - the loop's clock in milliseconds
 * @c:		execution context
 *
 * Return: milliseconds of CLOCK_MONOTONIC, as of this loop iteration
 */
static long long link_client_ms(const struct ctx *c)
{
	return c->now.tv_sec * 1000LL + c->now.tv_nsec / 1000000;
}

/**
 * link_client_init() - client mode: hold the directory of the VMM's socket
 * @c:		execution context, back-end set up
 *
 * The directory is opened now, before netshim leaves the filesystem
 * (isolate.c): it must exist when netshim starts; the socket in it need
 * not.  The first attempt is the loop's first tick.
 *
 * Return: 0 on success, -1 with a message on failure
 */
int link_client_init(struct ctx *c)
{
	struct link_client *lc = &c->link.client;
	char dir[sizeof(c->conf.sock_path)];
	const char *path = c->conf.sock_path;
	const char *slash = strrchr(path, '/');

	memset(lc, 0, sizeof(*lc));
	lc->dir_fd = -1;
	if (!slash) {
		strcpy(dir, ".");
		slash = path - 1;
	} else if (slash == path) {
		strcpy(dir, "/");
	} else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	if (!slash[1]) {
		err("--connect: %s names a directory, not a socket", path);
		return -1;
	}
	/* Not longer than the path it comes from, which fits */
	strcpy(lc->name, slash + 1);
	lc->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lc->dir_fd < 0) {
		err("--connect: directory %s of the VMM's socket: %m", dir);
		return -1;
	}
	return 0;
}

/**
 * link_client_failed() - an attempt failed: say why once, wait longer
 * @c:		execution context
 * @e:		its errno
 */
static void link_client_failed(struct ctx *c, int e)
{
	struct link_client *lc = &c->link.client;

	if (e != lc->last_errno) {
		/* Expected while the VMM starts or restarts; anything
		 * else will not go away by itself, it seems
		 */
		if (e == ENOENT || e == ECONNREFUSED || e == EAGAIN)
			info("no VMM listens on %s yet (%s): trying again",
			     c->conf.sock_path, strerror(e));
		else if (e == EACCES)
			warn("cannot connect to %s: %s: the socket must be "
			     "writable by the user netshim runs as (--runas); "
			     "trying again", c->conf.sock_path, strerror(e));
		else
			warn("cannot connect to %s: %s: trying again",
			     c->conf.sock_path, strerror(e));
		lc->last_errno = e;
	}
	c->cnt.vmm_connect_failed++;
	lc->next_ms = link_client_ms(c) + lc->delay_ms;
	lc->delay_ms *= 2;
	if (lc->delay_ms > LINK_CLIENT_DELAY_MAX_MS)
		lc->delay_ms = LINK_CLIENT_DELAY_MAX_MS;
}

/**
 * link_client_expired() - did the wait outlast --connect-timeout
 * @c:		execution context
 *
 * Then netshim exits: with a failure if no VMM ever listened, as the
 * launcher must hear; as after -1 if the one it served went for good.
 *
 * Return: true if netshim is to exit now
 */
static bool link_client_expired(struct ctx *c)
{
	struct link_client *lc = &c->link.client;
	unsigned int t = c->conf.connect_timeout;

	if (!t || link_client_ms(c) - lc->since_ms < t * 1000LL)
		return false;
	if (lc->ever) {
		info("no VMM came back to %s within %u s: exiting",
		     c->conf.sock_path, t);
	} else {
		err("no VMM listened on %s within %u s (--connect-timeout): "
		    "exiting", c->conf.sock_path, t);
		lc->gave_up = true;
	}
	return true;
}

/**
 * link_client_timer() - client mode, on the loop's tick: connect if it is
 *			 time to try
 * @c:		execution context
 *
 * Return: true if the wait for the VMM outlasted --connect-timeout: the
 * loop is to stop (link_client_gave_up() tells if that is a failure)
 */
bool link_client_timer(struct ctx *c)
{
	struct link_client *lc = &c->link.client;
	int fd;

	if (!c->conf.vmm_connect || c->quit)
		return false;
	/* Up: connected here, or handed over by an upgrade in place */
	if (c->link.up) {
		lc->waiting = false;
		lc->ever = true;
		return false;
	}
	if (!lc->waiting) {
		lc->waiting = true;
		lc->since_ms = lc->next_ms = link_client_ms(c);
		lc->delay_ms = LINK_CLIENT_DELAY_MIN_MS;
		lc->last_errno = 0;
		if (lc->ever)
			info("waiting for the VMM to listen on %s again",
			     c->conf.sock_path);
	}
	if (link_client_expired(c))
		return true;
	if (link_client_ms(c) < lc->next_ms)
		return false;

	fd = unix_connect_at(lc->dir_fd, lc->name);
	if (fd < 0) {
		link_client_failed(c, errno);
		return false;
	}
	/* The back-end closes it if it cannot take it: then try again */
	if (c->link.ops->adopt(c, fd) || !c->link.up) {
		link_client_failed(c, EPROTO);
		return false;
	}
	lc->waiting = false;
	lc->ever = true;
	return false;
}

/**
 * link_client_gave_up() - did netshim stop because no VMM ever listened
 * @c:		execution context
 *
 * Return: true if it did: the exit status is a failure
 */
bool link_client_gave_up(const struct ctx *c)
{
	return c->link.client.gave_up;
}
