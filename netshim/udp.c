// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - UDP: guest flows on connected host sockets, inbound forwarding
 *
 * Each (guest address and port, remote address and port) is a flow with its
 * own connected socket in the pod, bound to the guest's source port when
 * that port is free, so the remote sees the same port the guest chose.
 * Datagrams from the remote arrive on that socket and go back to the guest.
 * DHCP and DHCPv6 addressed to netshim never reach a socket.
 *
 * Inbound forwarding (-u): one listening socket per forwarded pod port; a
 * datagram from a new client opens a flow that replies through the listener,
 * so the client sees its answers come from the port it wrote to.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "udp.h"
#include "dhcp/dhcp.h"
#include "fwd.h"
#include "gaddr.h"
#include "icmp.h"
#include "inany.h"
#include "link.h"
#include "log.h"
#include "outbound.h"
#include "udp_splice.h"

#define UDP_HLEN		8
/* What fits a frame to the guest, IPv6 being the larger header */
#define UDP_MAX_PAYLOAD		(FRAME_MAX - ETH_HLEN_ - 40 - UDP_HLEN)
#define UDP_BATCH		64

static struct fwd_listener *udp_listeners;
static uint32_t udp_nlisteners;

/**
 * udp_init() - open the sockets of -u
 * @c:		execution context
 *
 * Return: 0 on success, -1 if an explicitly forwarded port cannot be bound
 */
int udp_init(struct ctx *c)
{
	return fwd_listen(c, &c->conf.udp_fwd, SOCK_DGRAM, EPREF_UDP_LISTEN,
			  &udp_listeners, &udp_nlisteners);
}

/**
 * udp_remote_sockaddr() - where a guest destination really is
 * @c:		execution context
 * @raddr:	destination as the guest sees it
 * @rport:	destination port
 * @sa:		filled in
 * @len:	filled in
 *
 * The --map-host-loopback address stands for the pod's loopback.
 *
 * Return: 0
 */
int udp_remote_sockaddr(const struct ctx *c, const struct in6_addr *raddr,
			uint16_t rport, struct sockaddr_storage *sa,
			socklen_t *len)
{
	struct in6_addr a = *raddr;

	if (inany_is4(raddr) && c->conf.map_host_lo4 &&
	    inany_to4(raddr).s_addr == c->conf.host_lo4.s_addr) {
		struct in_addr lo = { htonl(INADDR_LOOPBACK) };

		a = inany_from4(lo);
	} else if (!inany_is4(raddr) && c->conf.map_host_lo6 &&
		   inany_eq(raddr, &c->conf.host_lo6)) {
		a = in6addr_loopback;
	}
	*len = inany_sockaddr(sa, &a, rport);
	return 0;
}

/**
 * udp_flow_open() - open the host socket of a new outbound flow
 * @c:		execution context
 * @f:		flow, key set
 *
 * Return: 0 on success, -1 on failure (flow freed)
 */
static int udp_flow_open(struct ctx *c, struct flow *f)
{
	bool v6 = !inany_is4(&f->raddr);
	struct sockaddr_storage sa, dst;
	struct in6_addr src;
	socklen_t sl, dl;

	f->fd = socket(v6 ? AF_INET6 : AF_INET,
		       SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->fd < 0)
		goto fail;

	udp_remote_sockaddr(c, &f->raddr, f->rport, &dst, &dl);
	if (outbound_prepare(c, f->fd, &dst, &src))
		goto fail;
	/* Keep the guest's source port if the pod has it free */
	sl = inany_sockaddr(&sa, &src, f->gport);
	if (bind(f->fd, (struct sockaddr *)&sa, sl)) {
		sl = inany_sockaddr(&sa, &src, 0);
		if (bind(f->fd, (struct sockaddr *)&sa, sl))
			goto fail;
	}
	if (connect(f->fd, (struct sockaddr *)&dst, dl) || flow_watch(c, f))
		goto fail;
	c->cnt.udp_flows++;
	return 0;
fail:
	c->cnt.drop_sock++;
	warn_rl(c->now.tv_sec, "UDP socket for guest flow: %m");
	flow_free(c, f);
	return -1;
}

/**
 * udp_local_input() - DHCP and DHCPv6 messages for netshim itself
 * @c:		execution context
 * @m:		addresses
 * @dport:	destination port
 * @payload:	UDP payload
 *
 * Return: true if the datagram was for netshim (handled or dropped)
 */
static bool udp_local_input(struct ctx *c, const struct l4_meta *m,
			    uint16_t dport, const struct pkt *payload)
{
	static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t *out;
	size_t len;

	if (!m->v6 && dport == DHCP_SERVER_PORT) {
		struct in6_addr src = inany_from4(c->conf.gw4), dst;
		struct dhcp4_dest dest;
		struct in_addr bcast = { INADDR_BROADCAST };

		out = ip_tx_l4(c, false, UDP_HLEN + 1500);
		if (!out)
			return true;
		len = dhcp4_reply(&c->conf, payload, out + UDP_HLEN, 1500, &dest);
		if (!len)
			return true;
		dst = dest.broadcast ? inany_from4(bcast) :
				       inany_from4(dest.yiaddr);
		wr16(out, DHCP_SERVER_PORT);
		wr16(out + 2, DHCP_CLIENT_PORT);
		wr16(out + 4, (uint16_t)(UDP_HLEN + len));
		ip_tx_send(c, out, &src, &dst, IPPROTO_UDP, UDP_HLEN + len,
			   dest.broadcast ? bcast_mac : dest.chaddr);
		c->cnt.dhcp_replies++;
		return true;
	}

	if (m->v6 && dport == DHCP6_SERVER_PORT &&
	    (IN6_IS_ADDR_MULTICAST(&m->dst) ||
	     inany_eq(&m->dst, &c->conf.our_ll6))) {
		out = ip_tx_l4(c, true, UDP_HLEN + 1400);
		if (!out)
			return true;
		len = dhcp6_reply(&c->conf, payload, out + UDP_HLEN, 1400);
		if (!len)
			return true;
		wr16(out, DHCP6_SERVER_PORT);
		wr16(out + 2, DHCP6_CLIENT_PORT);
		wr16(out + 4, (uint16_t)(UDP_HLEN + len));
		ip_tx_send(c, out, &c->conf.our_ll6, &m->src, IPPROTO_UDP,
			   UDP_HLEN + len, NULL);
		c->cnt.dhcp6_replies++;
		return true;
	}
	return false;
}

/**
 * udp_input() - a UDP datagram from the guest
 * @c:		execution context
 * @m:		addresses
 * @l4:		UDP header and payload (checksum already verified)
 */
void udp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4)
{
	const uint8_t *h = pkt_get(l4, 0, UDP_HLEN);
	uint16_t sport, dport, ulen;
	struct pkt payload;
	struct flow *f;
	ssize_t n;

	if (!h || (ulen = rd16(h + 4)) < UDP_HLEN || ulen > l4->len) {
		c->cnt.drop_udp++;
		return;
	}
	sport = rd16(h);
	dport = rd16(h + 2);
	payload.data = h + UDP_HLEN;
	payload.len = ulen - UDP_HLEN;

	if (udp_local_input(c, m, dport, &payload))
		return;
	/* --no-udp: DHCP and DHCPv6 above still work, as with passt */
	if (c->conf.no_udp) {
		c->cnt.drop_disabled++;
		return;
	}

	/* Broadcast, multicast, unspecified sources and link-local
	 * peers have no meaning in the pod.
	 */
	if (inany_is4(&m->dst) ?
	    (inany_to4(&m->src).s_addr == INADDR_ANY ||
	     IN_MULTICAST(ntohl(inany_to4(&m->dst).s_addr)) ||
	     inany_to4(&m->dst).s_addr == INADDR_BROADCAST) :
	    (IN6_IS_ADDR_MULTICAST(&m->dst) || IN6_IS_ADDR_LINKLOCAL(&m->dst) ||
	     IN6_IS_ADDR_LINKLOCAL(&m->src))) {
		c->cnt.drop_udp++;
		return;
	}

	f = flow_lookup(c, IPPROTO_UDP, &m->src, sport, &m->dst, dport);
	if (!f) {
		f = flow_new(c, IPPROTO_UDP, &m->src, sport, &m->dst, dport);
		if (!f || udp_flow_open(c, f))
			return;
		if (m->v6)
			gaddr_seen6(c, &m->src);
	}
	f->last = c->now.tv_sec;

	if (f->inbound) {
		struct sockaddr_storage sa;
		socklen_t sl = inany_sockaddr(&sa, &f->raddr, f->rport);

		n = sendto(f->fd, payload.data, payload.len, MSG_DONTWAIT,
			   (struct sockaddr *)&sa, sl);
	} else {
		n = send(f->fd, payload.data, payload.len, MSG_DONTWAIT);
	}
	if (n < 0)
		c->cnt.drop_sock++;
}

/**
 * udp_spill_copy() - move a datagram that outgrew the guest's buffers into
 *		      a frame of the queue
 * @lf:		the frame in the guest's buffers, @lf->room bytes received
 *		there
 * @spill:	the rest of the datagram
 * @out:	payload of the queued frame, @n bytes of room
 * @n:		datagram length
 *
 * The guest may rewrite its buffers meanwhile: it only garbles what it
 * gets itself, and no checksum is computed here over it (the frame in
 * place had a partial one, so has this one).
 */
static void udp_spill_copy(const struct link_frame *lf, const uint8_t *spill,
			   uint8_t *out, size_t n)
{
	size_t done = 0;
	unsigned int i;

	for (i = 0; i < lf->niov && done < lf->room; i++) {
		size_t l = lf->iov[i].iov_len;

		if (l > lf->room - done)
			l = lf->room - done;
		memcpy(out + done, lf->iov[i].iov_base, l);
		done += l;
	}
	memcpy(out + done, spill, n - done);
}

/**
 * udp_to_guest() - receive a datagram for the guest, in its frame
 * @c:		execution context
 * @fd:		socket to receive from
 * @f:		flow, or NULL to take the source from the datagram (listener)
 * @lst:	listener, when @f is NULL
 *
 * Where the guest finishes checksums itself, the datagram is received
 * straight into the guest's own receive buffers when the link has them
 * (tx_reserve_frames()), with room for what its MTU lets through: a
 * larger one spills over into a buffer of ours and is queued, copied.
 * Otherwise it is received into a frame of the queue, as large as any.
 *
 * Return: true if a datagram was moved, false when the socket is empty or
 * the queue to the VMM is full
 */
static bool udp_to_guest(struct ctx *c, int fd, struct flow *f,
			 const struct fwd_listener *lst)
{
	static uint8_t spill[UDP_MAX_PAYLOAD];
	static struct link_frame lf;
	bool v6 = f ? !inany_is4(&f->raddr) : lst->v6;
	size_t hlen = ip_l2l3_len(v6) + UDP_HLEN, room = 0;
	struct iovec iov[LINK_FRAME_IOV + 1];
	struct sockaddr_storage sa;
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = iov,
	};
	struct link_offload o = { 0 };
	struct in6_addr raddr, gaddr;
	uint16_t rport;
	uint8_t *out;
	ssize_t n;

	if (c->conf.mtu > hlen - ETH_HLEN_)
		room = c->conf.mtu - (hlen - ETH_HLEN_);
	if (room > UDP_MAX_PAYLOAD)
		room = UDP_MAX_PAYLOAD;
	if (room && c->link.caps.csum &&
	    tx_reserve_frames(c, hlen, room, 1, &lf) == 1 && lf.slot >= 0) {
		memcpy(iov, lf.iov, lf.niov * sizeof(*iov));
		mh.msg_iovlen = lf.niov;
		if (room < UDP_MAX_PAYLOAD) {
			iov[mh.msg_iovlen].iov_base = spill;
			iov[mh.msg_iovlen++].iov_len = UDP_MAX_PAYLOAD - room;
		}
	} else {
		out = tx_reserve(c, hlen + UDP_MAX_PAYLOAD);
		if (!out) {
			/* The VMM is not reading: drop as a full NIC queue
			 * would, rather than spin on a readable socket.
			 */
			if (recv(fd, spill, sizeof(spill), MSG_DONTWAIT) < 0)
				return false;
			c->cnt.drop_tx_full++;
			return true;
		}
		lf.l2 = out;
		lf.hlen = hlen;
		lf.iov[0].iov_base = out + hlen;
		lf.iov[0].iov_len = UDP_MAX_PAYLOAD;
		lf.niov = 1;
		lf.room = UDP_MAX_PAYLOAD;
		lf.slot = -1;
		iov[0] = lf.iov[0];
		mh.msg_iovlen = 1;
	}
	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (errno != ECONNREFUSED || !f)
			return false;
		/* The remote port is closed: tell the guest as the remote
		 * host did us, then go on reading.
		 */
		uint8_t quote[8] = { 0 };

		wr16(quote, f->gport);
		wr16(quote + 2, f->rport);
		icmp_unreach(c, &f->gaddr, &f->raddr, IPPROTO_UDP, quote, true);
		return true;
	}

	if (!f) {
		inany_from_sockaddr(&sa, &raddr, &rport);
		gaddr = gaddr_inbound(c, v6);
		f = flow_lookup(c, IPPROTO_UDP, &gaddr, lst->guest_port,
				&raddr, rport);
		if (!f) {
			f = flow_new(c, IPPROTO_UDP, &gaddr, lst->guest_port,
				     &raddr, rport);
			if (!f)
				return true;
			f->inbound = true;
			f->fd = fd;
			c->cnt.udp_flows++;
		}
	}
	f->last = c->now.tv_sec;

	if ((size_t)n > lf.room) {
		/* More than the guest's MTU: its buffers may not hold it */
		out = tx_reserve(c, hlen + (size_t)n);
		if (!out) {
			c->cnt.drop_tx_full++;
			return true;
		}
		udp_spill_copy(&lf, spill, out + hlen, (size_t)n);
		lf.l2 = out;
		lf.slot = -1;
	} else if (lf.slot >= 0) {
		c->cnt.udp_in_place++;
	}

	out = lf.l2 + ip_l2l3_len(v6);
	wr16(out, f->rport);
	wr16(out + 2, f->gport);
	wr16(out + 4, (uint16_t)(UDP_HLEN + n));
	/* A guest that takes partial checksums sums the payload itself */
	ip_frame_fill_offload(c, lf.l2, &f->raddr, &f->gaddr, IPPROTO_UDP,
			      UDP_HLEN + n, &o);
	tx_commit_frame(c, &lf, (size_t)n, &o);
	return true;
}

/**
 * udp_flow_ready() - datagrams from the remote of a flow
 * @c:		execution context
 * @f:		flow
 */
void udp_flow_ready(struct ctx *c, struct flow *f)
{
	int i;

	for (i = 0; i < UDP_BATCH; i++)
		if (!udp_to_guest(c, f->fd, f, NULL))
			break;
}

/**
 * udp_listener_ready() - datagrams to a forwarded pod port
 * @c:		execution context
 * @idx:	listener index
 */
void udp_listener_ready(struct ctx *c, uint32_t idx)
{
	if (idx < udp_nlisteners)
		udp_listener_input(c, &udp_listeners[idx]);
}

/**
 * udp_listener_input() - datagrams to a forwarded pod port, for the guest
 * @c:		execution context
 * @l:		the listener: a -u one, or one that follows the namespace's
 *		bound sockets (fwd_auto.c)
 */
void udp_listener_input(struct ctx *c, const struct fwd_listener *l)
{
	char discard;
	int i;

	for (i = 0; i < UDP_BATCH; i++) {
		/* Namespace mode: a pod process writing to the pod's
		 * loopback has its datagrams relayed to the namespace's
		 * loopback, not framed (the tap drops loopback sources)
		 */
		int lo = udp_splice_peek_lo(c, l->fd);

		if (lo < 0)
			break;
		if (lo) {
			if (!udp_splice_take(c, l->fd, true, l->guest_port))
				break;
			continue;
		}
		/* No guest: drain, so the socket does not stay readable */
		if (!c->link.up) {
			if (recv(l->fd, &discard, 1, MSG_DONTWAIT) < 0)
				break;
			continue;
		}
		if (!udp_to_guest(c, l->fd, NULL, l))
			break;
	}
}
