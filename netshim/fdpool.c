// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - descriptors a running netshim handed over for an upgrade in
 * place, until the rooms that would open them take them
 *
 * A new netshim taking over (--upgrade, daemon/upgrade.c) gets the
 * sockets that do not change while the old one serves before anything
 * else: the ports it forwards, its listening UNIX sockets, the tap of
 * namespace mode.  Its own start-up then runs as usual, but where a room
 * would bind a port or a path it first asks the pool for the socket of
 * the same kind, type, address, port and network namespace: the new
 * netshim serves the very sockets the old one did, and a client waiting
 * in a listener's queue is still there.  What the new command line no
 * longer forwards is left in the pool, and closed (fdpool_drain()): the
 * old netshim's copy keeps serving it until it hands over.
 *
 * Filled and emptied before the loop runs: it allocates at will.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fdpool.h"
#include "inany.h"
#include "isolate.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE		71
#endif

/**
 * struct fdpool_ent - one descriptor of the pool
 * @fd:		the descriptor, -1 once taken
 * @kind:	enum fdpool_kind
 * @type:	SOCK_STREAM or SOCK_DGRAM, for a socket
 * @listening:	a listening socket
 * @port:	bound port (FDPOOL_INET)
 * @addr:	bound address (v4-mapped for IPv4)
 * @dual:	an IPv6 socket taking IPv4 too (IPV6_V6ONLY off)
 * @netns:	cookie of the socket's network namespace, 0 if unknown
 * @path:	bound path (FDPOOL_UNIX)
 * @next:	next entry of the same port, plus one; 0 ends the chain
 */
struct fdpool_ent {
	int fd;
	uint8_t kind;
	int type;
	bool listening;
	uint16_t port;
	struct in6_addr addr;
	bool dual;
	uint64_t netns;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t next;
};

static struct fdpool_ent *fdpool_ents;
/* Paths of listening UNIX sockets no room took (-c or --metrics no longer
 * given): removed once the old netshim is gone, by fdpool_orphans_remove()
 */
#define FDPOOL_ORPHANS_MAX	4
static struct isolate_path fdpool_orphans[FDPOOL_ORPHANS_MAX];
static unsigned int fdpool_n_orphans;
static unsigned int fdpool_n, fdpool_max;
/* First entry of each port, plus one: a pool may hold every port twice */
static uint32_t fdpool_by_port[65536];

/**
 * fdpool_init() - start an empty pool
 *
 * Return: 0 on success, -1 if memory is short
 */
int fdpool_init(void)
{
	fdpool_max = 64;
	fdpool_ents = calloc(fdpool_max, sizeof(*fdpool_ents));
	if (!fdpool_ents)
		return -1;
	fdpool_n = 0;
	memset(fdpool_by_port, 0, sizeof(fdpool_by_port));
	return 0;
}

/**
 * fdpool_on() - is there a pool: this netshim takes over from another
 *
 * Return: true while descriptors handed over wait to be taken
 */
bool fdpool_on(void)
{
	return fdpool_ents != NULL;
}

/**
 * fdpool_netns() - the network namespace a socket lives in
 * @fd:		socket
 *
 * Return: its cookie, 0 if the kernel cannot tell (before 5.14)
 */
static uint64_t fdpool_netns(int fd)
{
	socklen_t sl = sizeof(uint64_t);
	uint64_t cookie;

	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &sl))
		return 0;
	return cookie;
}

/**
 * fdpool_put() - add a descriptor handed over
 * @kind:	what it is, as the old netshim said
 * @fd:		the descriptor, now the pool's
 *
 * Return: 0 on success, -1 if it is not what it is said to be, or memory
 * is short (the descriptor is closed)
 */
int fdpool_put(enum fdpool_kind kind, int fd)
{
	struct fdpool_ent *e;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int v = 0;

	if (!fdpool_ents || kind < 1 || kind > FDPOOL_KIND_MAX)
		goto bad;
	if (fdpool_n == fdpool_max) {
		e = reallocarray(fdpool_ents, fdpool_max * 2, sizeof(*e));
		if (!e)
			goto bad;
		fdpool_ents = e;
		fdpool_max *= 2;
	}
	e = &fdpool_ents[fdpool_n];
	memset(e, 0, sizeof(*e));
	e->fd = fd;
	e->kind = (uint8_t)kind;
	if (kind == FDPOOL_TAP)
		goto done;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		goto bad;
	sl = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &e->type, &sl))
		goto bad;
	sl = sizeof(v);
	if (!getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &sl))
		e->listening = v;
	if (kind == FDPOOL_UNIX) {
		const struct sockaddr_un *su = (struct sockaddr_un *)&ss;

		if (ss.ss_family != AF_UNIX || !e->listening)
			goto bad;
		memcpy(e->path, su->sun_path, sizeof(e->path) - 1);
		goto done;
	}
	if (kind != FDPOOL_INET ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		goto bad;
	inany_from_sockaddr(&ss, &e->addr, &e->port);
	if (ss.ss_family == AF_INET6) {
		sl = sizeof(v);
		v = 1;
		getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v, &sl);
		e->dual = !v;
	}
	e->netns = fdpool_netns(fd);
	e->next = fdpool_by_port[e->port];
	fdpool_by_port[e->port] = fdpool_n + 1;
done:
	fdpool_n++;
	return 0;
bad:
	close(fd);
	return -1;
}

/**
 * fdpool_here() - the network namespace we are in now: the pod's, or the
 *		   served one inside a clone of netns.c
 *
 * Return: its cookie, 0 if the kernel cannot tell
 */
static uint64_t fdpool_here(void)
{
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint64_t cookie;

	if (s < 0)
		return 0;
	cookie = fdpool_netns(s);
	close(s);
	return cookie;
}

/**
 * fdpool_take_inet() - the socket a room would bind, if it was handed over
 * @type:	SOCK_STREAM (listening) or SOCK_DGRAM
 * @a:		bound address (v4-mapped for IPv4), NULL for a dual-stack
 *		socket on any address (fwd.c's)
 * @port:	bound port; 0 takes a listener on @a of any port (the
 *		kernel chose it: sk_lookup's)
 *
 * Of this network namespace only: -T binds the served namespace's
 * loopback ports, which the pod's own may share.
 *
 * Return: the socket, now the caller's, or -1 if none matches
 */
int fdpool_take_inet(int type, const struct in6_addr *a, uint16_t port)
{
	uint64_t here = 0;
	bool asked = false;
	uint32_t i;

	if (!fdpool_ents)
		return -1;
	for (i = port ? fdpool_by_port[port] : 1; i && i <= fdpool_n;
	     i = port ? fdpool_ents[i - 1].next : i + 1) {
		struct fdpool_ent *e = &fdpool_ents[i - 1];
		int fd = e->fd;

		if (fd < 0 || e->kind != FDPOOL_INET || e->type != type ||
		    e->dual != !a || !inany_eq(&e->addr, a ? a : &in6addr_any) ||
		    (!port && (!e->listening || type != SOCK_STREAM)))
			continue;
		if (!asked) {
			here = fdpool_here();
			asked = true;
		}
		if (e->netns && here && e->netns != here)
			continue;
		e->fd = -1;
		return fd;
	}
	return -1;
}

/**
 * fdpool_find_unix() - the entry of the listening UNIX socket at a path
 * @path:	its path
 *
 * Return: the entry, NULL if none was handed over, or it was taken
 */
static struct fdpool_ent *fdpool_find_unix(const char *path)
{
	unsigned int i;

	for (i = 0; fdpool_ents && i < fdpool_n; i++) {
		struct fdpool_ent *e = &fdpool_ents[i];

		if (e->fd >= 0 && e->kind == FDPOOL_UNIX &&
		    !strncmp(e->path, path, sizeof(e->path)))
			return e;
	}
	return NULL;
}

/**
 * fdpool_has_unix() - was a listening UNIX socket at a path handed over
 * @path:	its path
 *
 * Return: true if it waits in the pool
 */
bool fdpool_has_unix(const char *path)
{
	return fdpool_find_unix(path) != NULL;
}

/**
 * fdpool_take_unix() - the listening UNIX socket at a path, if handed over
 * @path:	its path
 *
 * Return: the socket, now the caller's, or -1 if none matches
 */
int fdpool_take_unix(const char *path)
{
	struct fdpool_ent *e = fdpool_find_unix(path);
	int fd;

	if (!e)
		return -1;
	fd = e->fd;
	e->fd = -1;
	return fd;
}

/**
 * fdpool_take() - the first descriptor of a kind, if handed over
 * @kind:	its kind (FDPOOL_TAP)
 *
 * Return: the descriptor, now the caller's, or -1
 */
int fdpool_take(enum fdpool_kind kind)
{
	unsigned int i;

	for (i = 0; fdpool_ents && i < fdpool_n; i++) {
		int fd = fdpool_ents[i].fd;

		if (fd < 0 || fdpool_ents[i].kind != kind)
			continue;
		fdpool_ents[i].fd = -1;
		return fd;
	}
	return -1;
}

/**
 * fdpool_drain() - close what no room took, and free the pool
 *
 * Return: how many descriptors were left
 */
unsigned int fdpool_drain(void)
{
	unsigned int i, left = 0;

	for (i = 0; fdpool_ents && i < fdpool_n; i++) {
		struct fdpool_ent *e = &fdpool_ents[i];

		if (e->fd < 0)
			continue;
		close(e->fd);
		left++;
		if (e->kind == FDPOOL_UNIX &&
		    fdpool_n_orphans < FDPOOL_ORPHANS_MAX)
			isolate_path_of(e->path,
					&fdpool_orphans[fdpool_n_orphans++]);
	}
	free(fdpool_ents);
	fdpool_ents = NULL;
	fdpool_n = fdpool_max = 0;
	return left;
}

/**
 * fdpool_orphans_remove() - once the old netshim is gone, remove the
 *			     socket files of paths this one no longer serves
 *
 * The old netshim served them until it handed over, and leaves every
 * file to its successor: without this, a control socket dropped from
 * the command line would stay, refusing every client.
 */
void fdpool_orphans_remove(void)
{
	unsigned int i;

	for (i = 0; i < fdpool_n_orphans; i++) {
		isolate_remove(&fdpool_orphans[i]);
		if (fdpool_orphans[i].dirfd >= 0)
			close(fdpool_orphans[i].dirfd);
	}
	fdpool_n_orphans = 0;
}
