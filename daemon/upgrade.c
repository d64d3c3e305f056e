// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - an upgrade in place: a new netshim takes over from a running one
 *
 * A fix to netshim itself should not need the guest restarted or
 * migrated.  "netshim OPTIONS --upgrade", with the command line the
 * running netshim was started with, starts a new process that takes
 * everything over from it, and the old one exits: every socket (the
 * VMM's connection and listening socket, the ports forwarded, each
 * connection and flow, vhost-user's eventfds and guest memory, the tap
 * of namespace mode) passes over a UNIX socket as SCM_RIGHTS, so the
 * kernel's side of them never moves: a TCP connection keeps its queues
 * and sequence numbers without repair mode.  netshim's own state of them
 * goes as a device state of netshim's own format (daemon/migrate.c,
 * through migio), in sections of its own.  Neither the VMM nor the guest
 * nor the remote peers see more than a pause of the loop.
 *
 * The old netshim listens at --upgrade-path (by default its socket's path
 * and .upgrade), the new one connects there:
 *
 * 1. The old one accepts root, or the user it was started as, and at
 *    once writes, serving on meanwhile: netshim's magic and version, then
 *    an UPGRADE_SETUP section: its back-end, whether it ends with its
 *    VMM's connection (-1, --fd), its MTU, MAC address and PID, and the
 *    sockets that do not change while it serves (listening ones, the
 *    tap), each behind its kind, a zero kind last; then, with -c, its
 *    forwarding rules as they are now: the changes its control socket
 *    took outlive it.
 * 2. The new one checks the command lines agree, and sets itself up as
 *    any netshim does, but where it would bind a port or a path it takes
 *    the socket handed over (netshim/fdpool.c).  Only then, isolated and
 *    ready to run, does it answer UPGRADE_READY: its start-up costs the
 *    guest nothing.
 * 3. The old one stops its loop there, between two events: it writes
 *    everything else, its sockets along (the guest's addresses, the link
 *    and its queues, the ports "auto" follows, TCP connections, UDP and
 *    ICMP flows, the local flows of namespace mode, the counters), and
 *    waits for the verdict.  Writing changes nothing of its own state
 *    that it could not go on with.
 * 4. The new one takes it all, checked as untrusted input, and answers
 *    UPGRADE_TAKEN, or UPGRADE_REFUSED (another version, a malformed or
 *    truncated stream, more than its tables hold).
 * 5. On UPGRADE_TAKEN the old one answers UPGRADE_GONE and exits,
 *    leaving every socket and file alone; the new one runs only once it
 *    read that.  On anything else (a refusal, the new process gone, a
 *    stall) the old one goes on serving as if nothing happened, and the
 *    new one exits with a message that says why.
 *
 * All integers big endian; nothing here runs in the new netshim's loop,
 * and the old one's handover allocates nothing.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "upgrade.h"
#include "ctl.h"
#include "ctl_fwd.h"
#include "fwd_auto.h"
#include "fwd_ns.h"
#include "migrate.h"
#include "link/link.h"
#include "net/flow.h"
#include "net/fwd.h"
#include "netshim/ctlwire.h"
#include "netshim/fdpool.h"
#include "netshim/fwdtable.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "netshim/repair.h"
#include "netshim/unixsock.h"
#include "tcp/splice.h"
#include "tcp/tcp.h"
#include "udp/splice.h"
#include "udp/udp.h"

/* Sections of an upgrade, besides MIGRATE_GUEST and MIGRATE_END */
enum upgrade_section {
	UPGRADE_SETUP		= 16,	/* who the old one is, its sockets
					 * that never change */
	UPGRADE_MISC		= 17,	/* what else the loop knows */
	UPGRADE_LINK		= 18,	/* link/link.c, and its back-end's */
	UPGRADE_FWD_AUTO	= 19,	/* daemon/fwd_auto.c */
	UPGRADE_TCP		= 20,	/* tcp/upgrade.c */
	UPGRADE_FLOWS		= 21,	/* net/flow.c */
	UPGRADE_COUNTERS	= 22,	/* what SIGUSR1 logs */
	UPGRADE_SPLICE		= 23,	/* local TCP flows: tcp/splice.c */
	UPGRADE_UDP_SPLICE	= 24,	/* local UDP flows: udp/splice.c */
};

/* The words of the conversation, after the stream's sections */
#define UPGRADE_READY		0x52454459	/* "REDY" */
#define UPGRADE_TAKEN		0x54414b4e	/* "TAKN" */
#define UPGRADE_REFUSED		0x52465344	/* "RFSD" */
#define UPGRADE_GONE		0x474f4e45	/* "GONE" */

/* The longest the old netshim waits for the verdict, its loop stopped */
#define UPGRADE_VERDICT_MS	5000

/* Back-ends, as UPGRADE_SETUP names them */
enum upgrade_kind {
	UPGRADE_STREAM		= 1,
	UPGRADE_VHOST_USER	= 2,
	UPGRADE_TAP		= 3,
};

#define UPGRADE_SETUP_LEN	16
#define UPGRADE_MISC_LEN	24
#define UPGRADE_MISC_LL		0x01	/* the guest's link-local address */
#define UPGRADE_MISC_PING4	0x02	/* ping sockets refused, IPv4 */
#define UPGRADE_MISC_PING6	0x04	/* and IPv6 */
#define UPGRADE_MISC_REPAIR	0x08	/* a TCP repair helper: its socket
					 * follows */
#define UPGRADE_MISC_REPAIR_EXT	0x10	/* netshim-repair */
#define UPGRADE_MISC_ALL	0x1f

#define UPGRADE_SETUP_ONE_OFF	0x01	/* -1: exit when the VMM goes */
#define UPGRADE_SETUP_RULES	0x02	/* the forwarding rules as they are
					 * now (-c) follow the sockets */

/* The old netshim's rules, read before set-up, made true after it */
static struct ctl_table upgrade_rules[CTL_PIFS_MAX];
static unsigned int upgrade_rules_n;
static bool upgrade_rules_got;

/* Written by the old netshim, read by the new one: never both at once */
static struct migio upgrade_io;

/**
 * upgrade_kind() - the back-end this configuration serves
 * @c:		configuration
 *
 * Return: enum upgrade_kind
 */
static enum upgrade_kind upgrade_kind(const struct conf *c)
{
	if (conf_ns_mode(c))
		return UPGRADE_TAP;
	return c->vhost_user ? UPGRADE_VHOST_USER : UPGRADE_STREAM;
}

/**
 * upgrade_kind_name() - a back-end, for messages
 * @k:		enum upgrade_kind
 *
 * Return: its name
 */
static const char *upgrade_kind_name(unsigned int k)
{
	switch (k) {
	case UPGRADE_STREAM:
		return "a -netdev stream VMM";
	case UPGRADE_VHOST_USER:
		return "a vhost-user front-end";
	case UPGRADE_TAP:
		return "a namespace's tap";
	}
	return "an unknown back-end";
}

/**
 * upgrade_word_put() - write one word of the conversation
 * @fd:		the socket
 * @w:		the word
 *
 * Return: 0 on success, -1 on failure
 */
static int upgrade_word_put(int fd, uint32_t w)
{
	uint8_t b[4];

	migio_wr_be32(b, w);
	return send(fd, b, sizeof(b), MSG_NOSIGNAL | MSG_DONTWAIT) ==
	       (ssize_t)sizeof(b) ? 0 : -1;
}

/**
 * upgrade_word_get() - wait for one word of the conversation
 * @fd:		the socket
 * @w:		set to the word
 * @ms:		the longest to wait
 *
 * Return: 0 on success, -1 if the other side went or stalled
 */
static int upgrade_word_get(int fd, uint32_t *w, int ms)
{
	uint64_t end = migio_now_us() + (uint64_t)ms * 1000;
	uint8_t b[4];
	size_t got = 0;

	while (got < sizeof(b)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n = recv(fd, b + got, sizeof(b) - got, MSG_DONTWAIT);
		uint64_t now;

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		now = migio_now_us();
		if (now >= end)
			return -1;
		if (poll(&p, 1, (int)((end - now) / 1000) + 1) < 0 &&
		    errno != EINTR)
			return -1;
	}
	*w = migio_rd_be32(b);
	return 0;
}

/**
 * upgrade_listen() - wait for a successor at --upgrade-path
 * @c:		execution context
 *
 * Taking over, the old netshim's socket is ours (fdpool.c): the path
 * never goes away.  Without it netshim runs all the same: a failure is a
 * warning.
 *
 * Return: 0, always
 */
int upgrade_listen(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(EPREF_UPGRADE_LISTEN, 0) };
	const char *path = c->conf.upgrade_path;
	int fd;

	c->up.listen_fd = -1;
	if (!c->conf.upgrade)
		c->up.fd = -1;
	/* Before the sandbox turns us into an unprivileged user */
	c->up.uid = geteuid();
	if (!*path)
		return 0;
	fd = fdpool_take_unix(path);
	if (fd < 0) {
		fd = unix_listen(path);
		if (fd >= 0)
			chmod(path, 0600);
	}
	if (fd < 0 || epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		warn("upgrade socket %s: %m: this netshim cannot be upgraded "
		     "in place", path);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	c->up.listen_fd = fd;
	return 0;
}

/**
 * upgrade_forget() - end a conversation with a new netshim, serving on
 * @c:		execution context
 * @why:	what happened, for the log, or NULL to say nothing
 */
static void upgrade_forget(struct ctx *c, const char *why)
{
	if (c->up.fd < 0)
		return;
	if (why)
		info("upgrade: %s: serving on", why);
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->up.fd, NULL);
	close(c->up.fd);
	c->up.fd = -1;
}

/**
 * upgrade_pool_put() - hand over listeners that never change
 * @io:		the stream
 * @l:		listeners
 * @n:		how many
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int upgrade_pool_put(struct migio *io, const struct fwd_listener *l,
			    uint32_t n)
{
	uint8_t kind = FDPOOL_INET;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (l[i].fd >= 0 &&
		    (migio_put(io, &kind, 1) || migio_put_fd(io, l[i].fd)))
			return -1;
	return 0;
}

/**
 * upgrade_pool_one() - hand over one socket that never changes
 * @io:		the stream
 * @kind:	enum fdpool_kind
 * @fd:		the socket, nothing if -1
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int upgrade_pool_one(struct migio *io, uint8_t kind, int fd)
{
	if (fd < 0)
		return 0;
	return migio_put(io, &kind, 1) || migio_put_fd(io, fd) ? -1 : 0;
}

/**
 * upgrade_rules_put() - with -c, the forwarding rules as they are now
 * @c:		execution context
 * @io:		the stream, after the sockets that never change
 *
 * Each table: its interface, its rule count, its rules as pesto's
 * protocol has them (ctlwire.c).
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int upgrade_rules_put(const struct ctx *c, struct migio *io)
{
	uint8_t r[CTL_RULE_LEN], nt;
	const struct ctl_table *t;
	unsigned int n, i, j;

	if (!c->ctl_fwd)
		return 0;
	t = ctl_fwd_tables(c, &n);
	nt = (uint8_t)n;
	if (migio_put(io, &nt, 1))
		return -1;
	for (i = 0; i < n; i++) {
		if (migio_put(io, &t[i].pif, 1) || migio_put_u32(io, t[i].n))
			return -1;
		for (j = 0; j < t[i].n; j++) {
			ctlwire_rule_put(r, &t[i].rule[j]);
			if (migio_put(io, r, sizeof(r)))
				return -1;
		}
	}
	return 0;
}

/**
 * upgrade_rules_get() - the running netshim's forwarding rules
 * @io:		the stream, after the sockets that never change
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL: more than tables
 * hold)
 */
static int upgrade_rules_get(struct migio *io)
{
	uint8_t r[CTL_RULE_LEN], nt;
	unsigned int i, j;
	uint32_t n;

	if (migio_get(io, &nt, 1))
		return -1;
	if (nt > CTL_PIFS_MAX) {
		io->err = EINVAL;
		return -1;
	}
	for (i = 0; i < nt; i++) {
		struct ctl_table *t = &upgrade_rules[i];

		memset(t, 0, sizeof(*t));
		if (migio_get(io, &t->pif, 1) || migio_get_u32(io, &n))
			return -1;
		if (n > CTL_RULES_MAX) {
			io->err = EINVAL;
			return -1;
		}
		for (j = 0; j < n; j++) {
			if (migio_get(io, r, sizeof(r)))
				return -1;
			ctlwire_rule_get(r, &t->rule[j]);
			t->rule[j].ifname[CTL_IFNAMSIZ - 1] = '\0';
		}
		t->n = n;
	}
	upgrade_rules_n = nt;
	upgrade_rules_got = true;
	return 0;
}

/**
 * upgrade_rules_apply() - the new netshim, set up: serve the rules the
 *			   running one serves, if its control socket
 *			   changed them
 * @c:		execution context, set up, the pool not yet drained
 *
 * The sockets those rules want are taken from the pool as the command
 * line's were (ctl_fwd.c opens them through fwd.c).  Rules this netshim
 * cannot serve leave the command line's in place, with a warning: the
 * upgrade goes on.
 */
void upgrade_rules_apply(struct ctx *c)
{
	const struct ctl_table *now;
	unsigned int n, i, j;
	char why[256];
	bool same;

	if (!upgrade_rules_got)
		return;
	if (!c->ctl_fwd) {
		warn("upgrade: the running netshim's forwarding rules (which "
		     "its control socket may have changed) are not kept: "
		     "this command line has no -c");
		return;
	}
	now = ctl_fwd_tables(c, &n);
	same = n == upgrade_rules_n;
	for (i = 0; same && i < n; i++) {
		same = now[i].pif == upgrade_rules[i].pif &&
		       now[i].n == upgrade_rules[i].n;
		for (j = 0; same && j < now[i].n; j++)
			same = fwdtable_rule_eq(&now[i].rule[j],
						&upgrade_rules[i].rule[j]);
	}
	if (same)
		return;
	if (ctl_fwd_check(c, upgrade_rules, upgrade_rules_n, why,
			  sizeof(why))) {
		warn("upgrade: the running netshim's forwarding rules cannot "
		     "be served here (%s): this command line's apply", why);
		return;
	}
	info("upgrade: forwarding rules as the running netshim's control "
	     "socket left them");
	if (ctl_fwd_apply(c, upgrade_rules, upgrade_rules_n, why,
			  sizeof(why)))
		warn("upgrade: forwarding: %s", why);
}

/**
 * upgrade_offer() - tell a new netshim who we are, and hand it the
 *		     sockets that never change, serving on
 * @c:		execution context
 * @fd:		its connection
 *
 * Return: 0 on success, -1 with a message on failure
 */
static int upgrade_offer(struct ctx *c, int fd)
{
	struct migio *io = &upgrade_io;
	uint8_t h[UPGRADE_SETUP_LEN] = { 0 }, end = 0;
	const struct fwd_listener *l;
	int ctl_fd, metrics_fd;
	uint32_t n;

	ctl_listeners(c, &ctl_fd, &metrics_fd);
	migio_init_sock(io, fd);
	h[0] = (uint8_t)upgrade_kind(&c->conf);
	h[1] = c->conf.one_off ? UPGRADE_SETUP_ONE_OFF : 0;
	if (c->ctl_fwd)
		h[1] |= UPGRADE_SETUP_RULES;
	migio_wr_be16(h + 2, (uint16_t)c->conf.mtu);
	memcpy(h + 4, c->conf.our_mac, 6);
	migio_wr_be32(h + 12, (uint32_t)getpid());
	if (migio_put_u64(io, MIGRATE_MAGIC) ||
	    migio_put_u32(io, MIGRATE_VERSION) ||
	    migio_put_u16(io, UPGRADE_SETUP) || migio_put(io, h, sizeof(h)) ||
	    upgrade_pool_one(io, FDPOOL_UNIX, c->link.listen_fd) ||
	    upgrade_pool_one(io, FDPOOL_UNIX, c->up.listen_fd) ||
	    upgrade_pool_one(io, FDPOOL_UNIX, c->repair.listen_fd) ||
	    upgrade_pool_one(io, FDPOOL_UNIX, ctl_fd) ||
	    upgrade_pool_one(io, FDPOOL_UNIX, metrics_fd) ||
	    (c->ns.net_fd >= 0 &&
	     upgrade_pool_one(io, FDPOOL_TAP, c->link.fd)))
		goto fail;
	l = tcp_listeners(c, &n);
	if (upgrade_pool_put(io, l, n))
		goto fail;
	l = udp_fwd_listeners(c, &n);
	if (upgrade_pool_put(io, l, n))
		goto fail;
	l = fwd_ns_listeners(c, false, &n);
	if (upgrade_pool_put(io, l, n))
		goto fail;
	l = fwd_ns_listeners(c, true, &n);
	if (upgrade_pool_put(io, l, n) || migio_put(io, &end, 1) ||
	    upgrade_rules_put(c, io) || migio_flush(io))
		goto fail;
	return 0;
fail:
	warn("upgrade: the new netshim did not take our sockets: %s",
	     strerror(io->err));
	return -1;
}

/**
 * upgrade_accept() - a new netshim connects to take over
 * @c:		execution context
 *
 * Only root, or the user we were started as, may: they could take the
 * sockets anyway.  Not the unprivileged user a netshim started as root
 * turns into (nobody, or --runas): other processes may run as that one.
 * Not in the middle of a migration, whose device state transfer holds the
 * same state.  A new one replaces one already connected (a launcher that
 * gave up on it).
 */
void upgrade_accept(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
				  .data.u64 = epref(EPREF_UPGRADE, 0) };
	struct ucred cred;
	socklen_t sl = sizeof(cred);
	int fd;

	fd = accept4(c->up.listen_fd, NULL, NULL,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &sl) ||
	    (cred.uid && cred.uid != c->up.uid)) {
		warn("upgrade: refused a process of uid %u: only root or uid "
		     "%u may take over", (unsigned int)cred.uid,
		     (unsigned int)c->up.uid);
		close(fd);
		return;
	}
	if (link_busy(c)) {
		warn("upgrade: refused: a migration is under way");
		close(fd);
		c->cnt.upgrades_refused++;
		return;
	}
	upgrade_forget(c, "a new process replaces the one taking over");
	info("upgrade: process %d takes over: it sets up while we serve",
	     (int)cred.pid);
	if (upgrade_offer(c, fd) ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		c->cnt.upgrades_refused++;
		return;
	}
	c->up.fd = fd;
	c->up.peer = cred.pid;
}

/**
 * upgrade_misc_put() - what else the loop knows, a section's body
 * @c:		execution context
 * @io:		the stream
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int upgrade_misc_put(struct ctx *c, struct migio *io)
{
	uint8_t m[UPGRADE_MISC_LEN] = { 0 };

	/* A helper in the middle of a batch is a migration's, under way */
	bool rep = c->repair.fd >= 0 && !c->repair.n && !c->repair.nsent;

	m[0] = (c->gaddr6_ll_known ? UPGRADE_MISC_LL : 0) |
	       (c->ping4_denied ? UPGRADE_MISC_PING4 : 0) |
	       (c->ping6_denied ? UPGRADE_MISC_PING6 : 0) |
	       (rep ? UPGRADE_MISC_REPAIR : 0) |
	       (rep && c->repair.ext ? UPGRADE_MISC_REPAIR_EXT : 0);
	memcpy(m + 8, &c->gaddr6_ll, 16);
	return migio_put(io, m, sizeof(m)) ||
	       migio_put_u64(io, (uint64_t)c->last_ra) ||
	       (rep && migio_put_fd(io, c->repair.fd)) ? -1 : 0;
}

/**
 * upgrade_misc_get() - take what else the loop knew
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int upgrade_misc_get(struct ctx *c, struct migio *io)
{
	uint8_t m[UPGRADE_MISC_LEN];
	uint64_t ra;

	int fd = -1;

	if (migio_get(io, m, sizeof(m)) || migio_get_u64(io, &ra) ||
	    ((m[0] & UPGRADE_MISC_REPAIR) && migio_get_fd(io, &fd)))
		return -1;
	if ((m[0] & ~UPGRADE_MISC_ALL) ||
	    (fd >= 0 && (c->repair.fd >= 0 ||
			 repair_adopt(c, fd, m[0] & UPGRADE_MISC_REPAIR_EXT)))) {
		if (fd >= 0)
			close(fd);
		io->err = EINVAL;
		return -1;
	}
	if (m[0] & UPGRADE_MISC_LL) {
		memcpy(&c->gaddr6_ll, m + 8, 16);
		c->gaddr6_ll_known = true;
	}
	c->ping4_denied = m[0] & UPGRADE_MISC_PING4;
	c->ping6_denied = m[0] & UPGRADE_MISC_PING6;
	c->last_ra = (time_t)ra;
	return 0;
}

/* The counters by name, so that another version's list still matches */
#define UPGRADE_COUNTER(name, desc) { #name, offsetof(struct counters, name) },
static const struct {
	const char *name;
	size_t off;
} upgrade_counters[] = {
	COUNTERS(UPGRADE_COUNTER)
};
#undef UPGRADE_COUNTER
#define UPGRADE_COUNTERS_N	(sizeof(upgrade_counters) / \
				 sizeof(upgrade_counters[0]))
#define UPGRADE_NAME_MAX	32

/**
 * upgrade_counters_put() - the counters, each behind its name
 * @c:		execution context
 * @io:		the stream
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int upgrade_counters_put(struct ctx *c, struct migio *io)
{
	size_t i;

	if (migio_put_u32(io, UPGRADE_COUNTERS_N))
		return -1;
	for (i = 0; i < UPGRADE_COUNTERS_N; i++) {
		uint8_t len = (uint8_t)strlen(upgrade_counters[i].name);
		uint64_t v;

		memcpy(&v, (uint8_t *)&c->cnt + upgrade_counters[i].off,
		       sizeof(v));
		if (migio_put(io, &len, 1) ||
		    migio_put(io, upgrade_counters[i].name, len) ||
		    migio_put_u64(io, v))
			return -1;
	}
	return 0;
}

/**
 * upgrade_counters_get() - go on counting from the old netshim's counts
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * A counter this netshim does not have is left out; one the old did not
 * have starts from what happened here.  How much of the link buffers was
 * reached is this process's own.
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
static int upgrade_counters_get(struct ctx *c, struct migio *io)
{
	uint32_t n, k;
	size_t i;

	if (migio_get_u32(io, &n))
		return -1;
	if (n > 4 * UPGRADE_COUNTERS_N) {
		io->err = EINVAL;
		return -1;
	}
	for (k = 0; k < n; k++) {
		char name[UPGRADE_NAME_MAX + 1] = { 0 };
		uint8_t len;
		uint64_t v;

		if (migio_get(io, &len, 1))
			return -1;
		if (len > UPGRADE_NAME_MAX) {
			io->err = EINVAL;
			return -1;
		}
		if (migio_get(io, name, len) || migio_get_u64(io, &v))
			return -1;
		if (!strcmp(name, "link_buf_reached"))
			continue;
		for (i = 0; i < UPGRADE_COUNTERS_N; i++)
			if (!strcmp(name, upgrade_counters[i].name))
				memcpy((uint8_t *)&c->cnt +
				       upgrade_counters[i].off, &v, sizeof(v));
	}
	return 0;
}

/**
 * upgrade_state_put() - everything else, its sockets along
 * @c:		execution context
 * @io:		the stream
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int upgrade_state_put(struct ctx *c, struct migio *io)
{
	/* The link first: a VMM's connection adopted is a new guest's, whose
	 * MAC address the guest's section then gives back
	 */
	return migio_put_u16(io, UPGRADE_LINK) || link_upgrade_save(c, io) ||
	       migio_put_u16(io, MIGRATE_GUEST) || migrate_guest_put(c, io) ||
	       migio_put_u16(io, UPGRADE_MISC) || upgrade_misc_put(c, io) ||
	       migio_put_u16(io, UPGRADE_FWD_AUTO) ||
	       fwd_auto_upgrade_save(c, io) ||
	       migio_put_u16(io, UPGRADE_TCP) || tcp_upgrade_save(c, io) ||
	       migio_put_u16(io, UPGRADE_FLOWS) || flow_upgrade_save(c, io) ||
	       migio_put_u16(io, UPGRADE_SPLICE) ||
	       splice_upgrade_save(c, io) ||
	       migio_put_u16(io, UPGRADE_UDP_SPLICE) ||
	       udp_splice_upgrade_save(c, io) ||
	       migio_put_u16(io, UPGRADE_COUNTERS) ||
	       upgrade_counters_put(c, io) ||
	       migio_put_u16(io, MIGRATE_END) || migio_flush(io) ? -1 : 0;
}

/**
 * upgrade_hand_over() - the new netshim is ready: stop, hand everything
 *			 over, and exit once it took it
 * @c:		execution context
 */
static void upgrade_hand_over(struct ctx *c)
{
	struct migio *io = &upgrade_io;
	uint64_t t0 = migio_now_us(), t1;
	uint32_t w;

	migio_init_sock(io, c->up.fd);
	if (upgrade_state_put(c, io)) {
		warn("upgrade: handing our state over failed after %llu "
		     "bytes: %s", (unsigned long long)io->total,
		     strerror(io->err));
		goto refused;
	}
	t1 = migio_now_us();
	if (upgrade_word_get(c->up.fd, &w, UPGRADE_VERDICT_MS)) {
		warn("upgrade: process %d went away or stalled with our "
		     "state", c->up.peer);
		goto refused;
	}
	if (w != UPGRADE_TAKEN) {
		warn("upgrade: process %d refused our state (its log says "
		     "why)", c->up.peer);
		goto refused;
	}
	if (upgrade_word_put(c->up.fd, UPGRADE_GONE)) {
		warn("upgrade: process %d took our state, and went", c->up.peer);
		goto refused;
	}
	info("upgrade: handed over to process %d: %llu bytes, %llu "
	     "descriptors written in %llu us, taken after %llu us: exiting",
	     c->up.peer, (unsigned long long)io->total,
	     (unsigned long long)io->nfds_total,
	     (unsigned long long)(t1 - t0),
	     (unsigned long long)(migio_now_us() - t0));
	c->up.done = true;
	c->quit = true;
	return;
refused:
	c->cnt.upgrades_refused++;
	upgrade_forget(c, "the upgrade did not happen");
}

/**
 * upgrade_event() - the new netshim says it is ready, or goes away
 * @c:		execution context
 * @events:	epoll events
 */
void upgrade_event(struct ctx *c, uint32_t events)
{
	uint32_t w;

	(void)events;
	if (c->up.fd < 0)
		return;
	if (upgrade_word_get(c->up.fd, &w, 100) || w != UPGRADE_READY) {
		c->cnt.upgrades_refused++;
		upgrade_forget(c, "the new process went away before taking "
			       "over (its log says why)");
		return;
	}
	upgrade_hand_over(c);
}

/**
 * upgrade_setup_check() - do the command lines of both netshims agree
 * @c:		execution context, configured
 * @h:		the old one's UPGRADE_SETUP
 *
 * The guest keeps what it was given: the same back-end, the MTU its
 * DHCP lease or its configuration holds, the MAC address its neighbour
 * caches hold for its gateway.
 *
 * Return: 0 if they do, -1 if not (reported)
 */
static int upgrade_setup_check(const struct ctx *c, const uint8_t *h)
{
	unsigned int kind = upgrade_kind(&c->conf);
	uint16_t mtu = migio_rd_be16(h + 2);

	if (h[0] != kind) {
		err("upgrade refused: the running netshim serves %s, this "
		    "command line %s", upgrade_kind_name(h[0]),
		    upgrade_kind_name(kind));
		return -1;
	}
	if (mtu != c->conf.mtu) {
		err("upgrade refused: the running netshim gives the guest MTU "
		    "%u, this command line %u (-m)", mtu, c->conf.mtu);
		return -1;
	}
	if (memcmp(h + 4, c->conf.our_mac, 6)) {
		err("upgrade refused: the running netshim's MAC address is "
		    "%02x:%02x:%02x:%02x:%02x:%02x, this command line's "
		    "another", h[4], h[5], h[6], h[7], h[8], h[9]);
		return -1;
	}
	return 0;
}

/**
 * upgrade_connect() - connect to the running netshim
 * @path:	its --upgrade-path
 *
 * Return: the socket, or -1 with a message
 */
static int upgrade_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		err("upgrade: %s: path too long", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err("upgrade: no netshim to take over from at %s: %m", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/**
 * upgrade_begin() - connect to the running netshim, check it, and put the
 *		     sockets it hands over first in the pool for set-up
 * @c:		execution context, configured (--upgrade)
 *
 * Return: 0 on success, -1 with a message (the old one serves on)
 */
int upgrade_begin(struct ctx *c)
{
	struct migio *io = &upgrade_io;
	uint8_t h[UPGRADE_SETUP_LEN], kind;
	unsigned int n = 0;
	uint64_t magic;
	uint32_t version;
	uint16_t type;
	int fd;

	c->up.fd = upgrade_connect(c->conf.upgrade_path);
	if (c->up.fd < 0)
		return -1;
	migio_init_sock(io, c->up.fd);
	if (migio_get_u64(io, &magic))
		goto fail;
	if (magic != MIGRATE_MAGIC) {
		err("upgrade: %s is not a netshim's upgrade socket",
		    c->conf.upgrade_path);
		return -1;
	}
	if (migio_get_u32(io, &version))
		goto fail;
	if (version != MIGRATE_VERSION) {
		err("upgrade refused: the running netshim writes version %u "
		    "of the state, this one reads %u", version,
		    MIGRATE_VERSION);
		return -1;
	}
	if (migio_get_u16(io, &type) || type != UPGRADE_SETUP ||
	    migio_get(io, h, sizeof(h)))
		goto fail;
	c->up.peer = (int)migio_rd_be32(h + 12);
	/* Its VMM came with --fd: this one, too, ends with the connection */
	if (h[1] & UPGRADE_SETUP_ONE_OFF)
		c->conf.one_off = true;
	if (upgrade_setup_check(c, h) || fdpool_init()) {
		migio_drop_fds(io);
		return -1;
	}
	for (;;) {
		if (migio_get(io, &kind, 1))
			goto fail;
		if (!kind)
			break;
		if (kind > FDPOOL_KIND_MAX) {
			io->err = EINVAL;
			goto fail;
		}
		if (migio_get_fd(io, &fd))
			goto fail;
		if (fdpool_put(kind, fd)) {
			io->err = EINVAL;
			goto fail;
		}
		n++;
	}
	if ((h[1] & UPGRADE_SETUP_RULES) && upgrade_rules_get(io))
		goto fail;
	info("upgrade: taking over from process %d at %s: %u sockets that "
	     "never change came first", c->up.peer, c->conf.upgrade_path, n);
	return 0;
fail:
	err("upgrade: the running netshim's set-up did not come whole: %s",
	    io->err == EPROTO ? "it ends early" : strerror(io->err));
	migio_drop_fds(io);
	return -1;
}

/**
 * upgrade_cookie_of() - the socket of a cookie among listeners
 * @l:		listeners
 * @n:		how many
 * @cookie:	the cookie (flow_sock_cookie())
 *
 * Return: the socket, -1 if none has the cookie
 */
static int upgrade_cookie_of(const struct fwd_listener *l, uint32_t n,
			     uint64_t cookie)
{
	uint32_t i;

	for (i = 0; cookie && i < n; i++)
		if (l[i].fd >= 0 && flow_sock_cookie(l[i].fd) == cookie)
			return l[i].fd;
	return -1;
}

/**
 * upgrade_udp_listener() - the UDP listener an inbound or local flow
 *			    replies through, by its socket's cookie
 * @c:		execution context
 * @cookie:	the cookie (flow_sock_cookie())
 *
 * Return: its socket here (-u, -U, or "auto"'s), -1 if none
 */
static int upgrade_udp_listener(struct ctx *c, uint64_t cookie)
{
	const struct fwd_listener *l;
	uint32_t n;
	int fd;

	l = udp_fwd_listeners(c, &n);
	fd = upgrade_cookie_of(l, n, cookie);
	if (fd < 0) {
		l = fwd_ns_listeners(c, true, &n);
		fd = upgrade_cookie_of(l, n, cookie);
	}
	return fd >= 0 ? fd : fwd_auto_udp_by_cookie(c, cookie);
}

/**
 * upgrade_state_get() - take everything else, checked as it comes
 * @c:		execution context
 * @io:		the stream, at the first section
 *
 * Return: 0 on success, -1 with @io->err set and the reason logged
 */
static int upgrade_state_get(struct ctx *c, struct migio *io)
{
	uint32_t seen = 0;
	uint16_t type;
	int rc;

	for (;;) {
		if (migio_get_u16(io, &type))
			return -1;
		if (type == MIGRATE_END)
			break;
		if (type < 32 && (seen & (1U << type))) {
			err("upgrade: section %u twice", type);
			io->err = EINVAL;
			return -1;
		}
		if (type < 32)
			seen |= 1U << type;
		switch (type) {
		case MIGRATE_GUEST:
			rc = migrate_guest(c, io);
			break;
		case UPGRADE_MISC:
			rc = upgrade_misc_get(c, io);
			break;
		case UPGRADE_LINK:
			rc = link_upgrade_load(c, io);
			break;
		case UPGRADE_FWD_AUTO:
			rc = fwd_auto_upgrade_load(c, io);
			break;
		case UPGRADE_TCP:
			rc = tcp_upgrade_load(c, io);
			break;
		case UPGRADE_FLOWS:
			rc = flow_upgrade_load(c, io, upgrade_udp_listener);
			break;
		case UPGRADE_SPLICE:
			rc = splice_upgrade_load(c, io);
			break;
		case UPGRADE_UDP_SPLICE:
			rc = udp_splice_upgrade_load(c, io,
						     upgrade_udp_listener);
			break;
		case UPGRADE_COUNTERS:
			rc = upgrade_counters_get(c, io);
			break;
		default:
			err("upgrade: unknown section %u in the state", type);
			io->err = EINVAL;
			return -1;
		}
		if (rc) {
			if (io->err == EINVAL)
				err("upgrade: section %u is malformed", type);
			return -1;
		}
	}
	if (!(seen & (1U << UPGRADE_LINK))) {
		err("upgrade: the state has no link");
		io->err = EINVAL;
		return -1;
	}
	return 0;
}

/**
 * upgrade_state_read() - read a state, all of it, from a socket: the
 *			  second half of upgrade_take() alone, for the fuzzer
 *			  (tests/fuzz/fuzz_upgrade.c)
 * @c:		execution context, set up
 * @fd:		the socket, at the state's first section
 *
 * Return: 0 if the state was taken, -1 if refused (logged)
 */
int upgrade_state_read(struct ctx *c, int fd)
{
	struct migio *io = &upgrade_io;
	int rc;

	migio_init_sock(io, fd);
	rc = upgrade_state_get(c, io);
	migio_drop_fds(io);
	return rc;
}

/**
 * upgrade_take() - the new netshim, set up and isolated: take over
 * @c:		execution context
 *
 * Return: 0 once the old netshim is gone and the loop may run, -1 with a
 * message if the upgrade did not happen (the old one serves on)
 */
int upgrade_take(struct ctx *c)
{
	struct migio *io = &upgrade_io;
	uint64_t t0 = migio_now_us(), t1;
	uint32_t w;

	if (upgrade_word_put(c->up.fd, UPGRADE_READY)) {
		err("upgrade: process %d went away", c->up.peer);
		return -1;
	}
	if (upgrade_state_get(c, io)) {
		err("upgrade refused: reading the state failed after %llu "
		    "bytes: %s", (unsigned long long)io->total,
		    io->err == EPROTO ? "it ends early" : strerror(io->err));
		migio_drop_fds(io);
		upgrade_word_put(c->up.fd, UPGRADE_REFUSED);
		return -1;
	}
	t1 = migio_now_us();
	if (upgrade_word_put(c->up.fd, UPGRADE_TAKEN) ||
	    upgrade_word_get(c->up.fd, &w, UPGRADE_VERDICT_MS) ||
	    w != UPGRADE_GONE) {
		err("upgrade: process %d did not let go: it serves on",
		    c->up.peer);
		return -1;
	}
	close(c->up.fd);
	c->up.fd = -1;
	tcp_upgrade_commit(c);
	info("upgrade: took over from process %d: %llu bytes, %llu "
	     "descriptors read in %llu us, %llu us until it let go",
	     c->up.peer, (unsigned long long)io->total,
	     (unsigned long long)io->nfds_total,
	     (unsigned long long)(t1 - t0),
	     (unsigned long long)(migio_now_us() - t0));
	return 0;
}
