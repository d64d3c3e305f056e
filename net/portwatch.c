// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - which ports have listeners on the far side (-t/-u/-T/-U auto)
 *
 * With "auto", the ports forwarded follow the listeners of the other
 * namespace: once a second (from the loop's timer) we list the listening
 * TCP sockets and the bound, unconnected UDP sockets of that namespace
 * through sock_diag, and bind or release the same ports on our side.
 *
 * sock_diag rather than /proc/net/tcp*: the netlink socket is opened once,
 * inside the namespace it watches, before the sandbox; after that, a scan
 * is a sendto() and a few recvfrom() the seccomp filter already allows,
 * needs no filesystem, and parses binary records instead of text.
 *
 * The decision itself is a pure function over three sets (what we forward
 * now, what the scan saw, what must never be taken because it is our own
 * forwarding the other way), so it is unit-tested without sockets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <libmnl/libmnl.h>

#include "portwatch.h"
#include "netshim/netlink.h"

/* Socket states, as the kernel numbers them (include/net/tcp_states.h) */
#define PW_TCP_CLOSE		7
#define PW_TCP_LISTEN		10

/* A dump of a few hundred sockets fits in a few reads of this */

/**
 * portwatch_next_change() - next port whose forwarding must change
 * @cur:	ports we forward now
 * @seen:	ports with a listener on the far side, from the last scan
 * @skip:	ports never to forward: our own listeners of the other
 *		direction (a scan sees them too) and explicitly excluded ones
 * @from:	first port to look at
 * @bind:	set to true if the port must be bound, false if released
 *
 * The wanted set is @seen less @skip; a port changes where it differs
 * from @cur.  A port that is in @cur and @skip is released: a listener of
 * ours there would answer for itself.
 *
 * Return: the port, or -1 if no port from @from on changes
 */
int portwatch_next_change(const struct portset *cur, const struct portset *seen,
			  const struct portset *skip, unsigned int from,
			  bool *bind)
{
	unsigned int i = from / 64;
	uint64_t diff, want;

	if (from > 65535)
		return -1;
	for (; i < PORTSET_WORDS; i++) {
		want = seen->w[i] & ~skip->w[i];
		diff = want ^ cur->w[i];
		if (i == from / 64)
			diff &= ~0ULL << (from % 64);
		if (!diff)
			continue;
		*bind = want & (diff & -diff);
		return (int)(i * 64 + __builtin_ctzll(diff));
	}
	return -1;
}

/**
 * sockset_init() - size a set of sockets
 * @s:		set
 * @max:	the most sockets it will hold at once
 *
 * At most half full, so that a probe ends soon.
 *
 * Return: 0 on success, -1 with errno set
 */
int sockset_init(struct sockset *s, uint32_t max)
{
	uint32_t size = 16;

	while (size < 2 * (uint64_t)max && size < (1U << 30))
		size *= 2;
	s->slot = calloc(size, sizeof(*s->slot));
	if (!s->slot)
		return -1;
	s->mask = size - 1;
	s->n = 0;
	return 0;
}

/**
 * sockset_hash() - first slot to probe for a cookie
 * @s:		set
 * @cookie:	socket cookie, not 0
 *
 * Cookies are counters: multiply to spread neighbours.
 *
 * Return: slot index
 */
static uint32_t sockset_hash(const struct sockset *s, uint64_t cookie)
{
	return (uint32_t)((cookie * 0x9e3779b97f4a7c15ULL) >> 32) & s->mask;
}

/**
 * sockset_add() - put a socket in a set
 * @s:		set
 * @cookie:	its cookie, not 0
 *
 * Return: 0 on success (also if it was there), -1 with errno ENOSPC if
 * the set is full
 */
int sockset_add(struct sockset *s, uint64_t cookie)
{
	uint32_t i = sockset_hash(s, cookie);

	if (!cookie) {
		errno = EINVAL;
		return -1;
	}
	for (; s->slot[i]; i = (i + 1) & s->mask)
		if (s->slot[i] == cookie)
			return 0;
	if (s->n >= s->mask / 2) {
		errno = ENOSPC;
		return -1;
	}
	s->slot[i] = cookie;
	s->n++;
	return 0;
}

/**
 * sockset_del() - take a socket out of a set
 * @s:		set
 * @cookie:	its cookie
 *
 * Linear probing without tombstones: entries after the hole that probed
 * past it move back into it, so every lookup still finds its entry.
 */
void sockset_del(struct sockset *s, uint64_t cookie)
{
	uint32_t i = sockset_hash(s, cookie), j, home;

	if (!cookie)
		return;
	for (; s->slot[i] != cookie; i = (i + 1) & s->mask)
		if (!s->slot[i])
			return;
	s->slot[i] = 0;
	s->n--;
	for (j = (i + 1) & s->mask; s->slot[j]; j = (j + 1) & s->mask) {
		home = sockset_hash(s, s->slot[j]);
		/* Leave it if its home lies cyclically in (i, j] */
		if (((j - home) & s->mask) < ((j - i) & s->mask))
			continue;
		s->slot[i] = s->slot[j];
		s->slot[j] = 0;
		i = j;
	}
}

/**
 * sockset_has() - tell if a socket is in a set
 * @s:		set
 * @cookie:	its cookie
 *
 * Return: true if it is
 */
bool sockset_has(const struct sockset *s, uint64_t cookie)
{
	uint32_t i = sockset_hash(s, cookie);

	if (!cookie)
		return false;
	for (; s->slot[i]; i = (i + 1) & s->mask)
		if (s->slot[i] == cookie)
			return true;
	return false;
}

/**
 * sock_cookie() - the cookie of a socket, as sock_diag reports it
 * @fd:		socket
 *
 * Return: the cookie, 0 on failure
 */
uint64_t sock_cookie(int fd)
{
	uint64_t cookie = 0;
	socklen_t sl = sizeof(cookie);

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &sl))
		return 0;
	return cookie;
}

/**
 * portwatch_open() - open a sock_diag socket in the current namespace
 * @pw:		filled in, with no sockets of our own to leave out
 *
 * Call it from inside the namespace to watch: a netlink socket answers
 * about the namespace it was made in, wherever it is used later.  A plain
 * socket, not a libmnl one: libmnl would allocate its handle.
 *
 * Return: 0 on success, -1 with errno set
 */
int portwatch_open(struct portwatch *pw)
{
	pw->own = NULL;
	pw->seq = 0;
	pw->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	return pw->fd < 0 ? -1 : 0;
}

/**
 * struct pw_dump - what one dump's callback needs
 * @pw:		the watch, with the sockets of ours to leave out
 * @out:	ports seen, added to
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @skip_lo:	leave out sockets bound to a loopback address
 */
struct pw_dump {
	const struct portwatch *pw;
	struct portset *out;
	int proto;
	bool skip_lo;
};

/**
 * pw_loopback() - tell if a socket record's local address is loopback
 * @m:		record
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
static bool pw_loopback(const struct inet_diag_msg *m)
{
	const uint32_t *a = m->id.idiag_src;

	if (m->idiag_family == AF_INET)
		return (ntohl(a[0]) >> 24) == 127;
	return !a[0] && !a[1] && !a[2] && a[3] == htonl(1);
}

/**
 * pw_msg_cb() - take the local port of one socket record
 * @nlh:	SOCK_DIAG_BY_FAMILY reply message
 * @data:	struct pw_dump
 *
 * Return: MNL_CB_OK, MNL_CB_ERROR on a record too short to hold a socket
 */
static int pw_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct pw_dump *d = data;
	uint64_t cookie;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*m))
		return MNL_CB_ERROR;
	/* A socket of ours is not someone else's listener, whatever its
	 * port and address
	 */
	cookie = (uint64_t)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0];
	if (d->pw->own && sockset_has(d->pw->own, cookie))
		return MNL_CB_OK;
	/* A UDP socket connected to a peer is one end of a conversation,
	 * not a service: only unconnected ones are listeners.
	 */
	if (d->proto == IPPROTO_UDP && m->idiag_state != PW_TCP_CLOSE)
		return MNL_CB_OK;
	if (d->skip_lo && pw_loopback(m))
		return MNL_CB_OK;
	if (m->id.idiag_sport)
		portset_add(d->out, ntohs(m->id.idiag_sport));
	return MNL_CB_OK;
}

/**
 * pw_dump() - list the sockets of one family and protocol
 * @pw:		sock_diag socket
 * @family:	AF_INET or AF_INET6
 * @d:		protocol and output set
 *
 * Return: 0 on success, -1 with errno set
 */
static int pw_dump(struct portwatch *pw, int family, struct pw_dump *d)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct inet_diag_req_v2 *req;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++pw->seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = family;
	req->sdiag_protocol = d->proto;
	req->idiag_states = d->proto == IPPROTO_TCP ? 1U << PW_TCP_LISTEN :
			    1U << PW_TCP_CLOSE;

	return nl_exchange(pw->fd, nlh, 0, pw_msg_cb, d);
}

/**
 * portwatch_scan() - the ports with listeners in the watched namespace
 * @pw:		sock_diag socket, from portwatch_open()
 * @proto:	IPPROTO_TCP (listening sockets) or IPPROTO_UDP (bound,
 *		unconnected sockets)
 * @skip_lo:	leave out sockets bound to loopback addresses: only
 *		loopback reaches them, not traffic forwarded over the tap
 * @out:	set to the ports found, over both families
 *
 * Return: 0 on success, -1 with errno set (@out is then incomplete)
 */
int portwatch_scan(struct portwatch *pw, int proto, bool skip_lo,
		   struct portset *out)
{
	struct pw_dump d = { .pw = pw, .out = out, .proto = proto,
			     .skip_lo = skip_lo };

	memset(out, 0, sizeof(*out));
	if (pw_dump(pw, AF_INET, &d))
		return -1;
	/* A kernel without IPv6 has nothing to list there */
	if (pw_dump(pw, AF_INET6, &d) && errno != ENOENT &&
	    errno != EAFNOSUPPORT)
		return -1;
	return 0;
}
