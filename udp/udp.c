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
 * so the client sees its answers come from the port it wrote to.  A client
 * in the pod itself is presented to the guest as passt presents it
 * (fwd_inbound_peer()), and its flow keeps its real address for the
 * replies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "udp.h"
#include "splice.h"
#include "dhcp/dhcp.h"
#include "icmp/icmp.h"
#include "link/link.h"
#include "net/fwd.h"
#include "net/gaddr.h"
#include "net/outbound.h"
#include "netshim/inany.h"
#include "netshim/iov.h"
#include "netshim/log.h"

#define UDP_HLEN		8
/* What fits a frame to the guest, IPv6 being the larger header */
#define UDP_MAX_PAYLOAD		(FRAME_MAX - ETH_HLEN_ - 40 - UDP_HLEN)
#define UDP_BATCH		64
/* Datagrams one recvmmsg() takes straight into the guest's buffers */
#define UDP_MMSG		16


/**
 * udp_init() - open the sockets of -u
 * @c:		execution context
 *
 * Return: 0 on success, -1 if an explicitly forwarded port cannot be bound
 */
int udp_init(struct ctx *c)
{
	return fwd_listen(c, &c->conf.udp_fwd, SOCK_DGRAM, EPREF_UDP_LISTEN,
			  &c->udp_lst, &c->udp_n);
}

/**
 * udp_flow_open() - open the host socket of an outbound flow
 * @c:		execution context
 * @f:		flow, key set
 * @port:	pod port to bind if the pod has it free (the guest's source
 *		port for a new flow, the source's one for a migrated flow),
 *		else any
 *
 * Return: 0 on success, -1 on failure (flow freed)
 */
int udp_flow_open(struct ctx *c, struct flow *f, uint16_t port)
{
	bool v6 = !inany_is4(&f->raddr);
	struct sockaddr_storage sa, dst;
	struct in6_addr src;
	socklen_t sl, dl;

	f->fd = socket(v6 ? AF_INET6 : AF_INET,
		       SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->fd < 0)
		goto fail;

	outbound_sockaddr(c, &f->raddr, f->rport, &dst, &dl);
	if (outbound_prepare(c, f->fd, &dst, &src))
		goto fail;
	/* Keep the guest's source port if the pod has it free */
	sl = inany_sockaddr(&sa, &src, port);
	if (bind(f->fd, (struct sockaddr *)&sa, sl)) {
		sl = inany_sockaddr(&sa, &src, 0);
		if (bind(f->fd, (struct sockaddr *)&sa, sl))
			goto fail;
	}
	if (connect(f->fd, (struct sockaddr *)&dst, dl) ||
	    flow_sock_errors_on(f) || flow_watch(c, f))
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

		out = ip_tx_l4(c, m->qp, false, UDP_HLEN + 1500);
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
		out = ip_tx_l4(c, m->qp, true, UDP_HLEN + 1400);
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
 * udp_inbound_answer() - the inbound flow a guest answers from another of
 *			  its IPv6 addresses
 * @c:		execution context
 * @m:		addresses of the guest's datagram, which matched no flow
 * @sport:	its source port
 * @dport:	its destination port
 *
 * An inbound datagram goes to the guest's address of gaddr_inbound().  A
 * server bound to no address answers from the one its source address
 * selection picks for the client (RFC 6724), which can be another of the
 * guest's: its DHCPv6 address beside a SLAAC one, say, with the longer
 * prefix in common with the client.  That is the same conversation, and
 * the client expects it back from the port it wrote to, not from a new
 * flow's.  The flow stays under the address its datagrams go to, where
 * the next ones find it.
 *
 * Return: the flow, NULL if there is none
 */
static struct flow *udp_inbound_answer(struct ctx *c, const struct l4_meta *m,
				       uint16_t sport, uint16_t dport)
{
	struct in6_addr gaddr = gaddr_inbound(c, true);
	struct flow *f;

	if (!m->v6 || inany_eq(&gaddr, &m->src) ||
	    IN6_IS_ADDR_LINKLOCAL(&m->src))
		return NULL;
	f = flow_lookup(c, IPPROTO_UDP, &gaddr, sport, &m->dst, dport);
	return f && f->inbound ? f : NULL;
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

	/* A flow's first datagram said whether and where it may leave:
	 * answers to an inbound flow from the pod itself, addressed to
	 * netshim's link-local address (fwd_inbound_peer()), are that
	 * flow's
	 */
	f = flow_lookup(c, IPPROTO_UDP, &m->src, sport, &m->dst, dport);
	if (!f)
		f = udp_inbound_answer(c, m, sport, dport);
	if (!f) {
		if (!outbound_reachable(c, &m->src, &m->dst)) {
			/* netshim's own link-local address, where the pod
			 * has no gateway to stand for: no port open there
			 */
			if (m->v6 && inany_eq(&m->dst, &c->conf.our_ll6))
				icmp_unreach(c, m->qp, &m->src, &m->dst,
					     IPPROTO_UDP, h, payload.data,
					     payload.len, true);
			c->cnt.drop_link_only++;
			return;
		}
		f = flow_new(c, IPPROTO_UDP, &m->src, sport, &m->dst, dport);
		if (!f || udp_flow_open(c, f, sport))
			return;
		if (m->v6)
			gaddr_seen6(c, &m->src);
	}
	f->last = c->now.tv_sec;
	f->qp = m->qp;		/* its answers follow the guest's CPU */

	if (f->inbound) {
		/* The listener's socket is every client's: its TTL stays.
		 * On a socket of both families, an IPv4 destination is
		 * written as one all the same: the kernel takes it there.
		 */
		const struct in6_addr *to = IN6_IS_ADDR_UNSPECIFIED(&f->paddr) ?
					    &f->raddr : &f->paddr;
		struct sockaddr_storage sa;
		socklen_t sl = inany_sockaddr(&sa, to, f->rport);

		n = sendto(f->fd, payload.data, payload.len, MSG_DONTWAIT,
			   (struct sockaddr *)&sa, sl);
	} else {
		flow_hop(f, m->hop);
		n = send(f->fd, payload.data, payload.len, MSG_DONTWAIT);
	}
	if (n < 0)
		c->cnt.drop_sock++;
	else
		f->from_guest += (size_t)n;
}

/**
 * udp_room() - payload a datagram to the guest has room for in the
 *		guest's own buffers: what its MTU lets through
 * @c:		execution context
 * @v6:		IPv6 (else IPv4)
 *
 * Return: bytes, 0 if the MTU leaves none
 */
static size_t udp_room(const struct ctx *c, bool v6)
{
	size_t l3l4 = ip_l2l3_len(v6) - ETH_HLEN_ + UDP_HLEN;

	if (c->conf.mtu <= l3l4)
		return 0;
	return c->conf.mtu - l3l4 < UDP_MAX_PAYLOAD ? c->conf.mtu - l3l4 :
						      UDP_MAX_PAYLOAD;
}

/**
 * udp_copy_out() - copy a datagram received in the guest's buffers into a
 *		    frame of the queue
 * @lf:		the frame in the guest's buffers, @lf->room bytes of room
 * @spill:	what of the datagram did not fit there
 * @out:	payload of the queued frame, @n bytes of room
 * @n:		datagram length
 *
 * The guest may rewrite its buffers meanwhile: it only garbles what it
 * gets itself, and no checksum is computed here over it (the frame in
 * place had a partial one, so has this one).
 */
static void udp_copy_out(const struct link_frame *lf, const uint8_t *spill,
			 uint8_t *out, size_t n)
{
	size_t done = iov_to_buf(lf->iov, lf->niov, 0, out,
				 lf->room < n ? lf->room : n);

	if (n > done)
		memcpy(out + done, spill, n - done);
}

/**
 * udp_iov() - where a datagram is received: the frame's payload room, then
 *	       the spill-over buffer if the room is less than any datagram
 * @lf:		frame reserved
 * @spill:	spill-over buffer, UDP_MAX_PAYLOAD - @lf->room bytes
 * @iov:	filled in, LINK_FRAME_IOV + 1 entries
 *
 * Return: entries of @iov used
 */
static size_t udp_iov(const struct link_frame *lf, uint8_t *spill,
		      struct iovec *iov)
{
	size_t n = lf->niov;

	memcpy(iov, lf->iov, n * sizeof(*iov));
	if (lf->room < UDP_MAX_PAYLOAD) {
		iov[n].iov_base = spill;
		iov[n++].iov_len = UDP_MAX_PAYLOAD - lf->room;
	}
	return n;
}

/**
 * udp_frame_out() - write the headers of a received datagram's frame and
 *		     hand it over
 * @c:		execution context
 * @f:		flow
 * @lf:		its frame, the datagram received at @lf->iov (and @spill)
 * @spill:	what did not fit the frame's room
 * @n:		datagram length
 * @queue:	go through the queue even if the frame is in place
 *
 * Return: true if the frame went through the queue
 */
static bool udp_frame_out(struct ctx *c, const struct flow *f,
			  struct link_frame *lf, const uint8_t *spill,
			  size_t n, bool queue)
{
	bool v6 = !inany_is4(&f->raddr), queued = link_frame_queued(lf);
	struct link_offload o = { 0 };
	struct link_frame q;
	uint8_t *out;

	if (n > lf->room || (queue && !queued)) {
		/* More than the guest's MTU, or behind such a datagram: its
		 * buffers may not hold it, and order is kept
		 */
		if (!tx_reserve_queued(c, lf->qp, lf->hlen, n, &q)) {
			c->cnt.drop_tx_full++;
			return true;
		}
		udp_copy_out(lf, spill, q.iov[0].iov_base, n);
		lf = &q;
		queued = true;
	} else if (!queued) {
		c->cnt.udp_in_place++;
	}

	out = lf->l2 + ip_l2l3_len(v6);
	wr16(out, f->rport);
	wr16(out + 2, f->gport);
	wr16(out + 4, (uint16_t)(UDP_HLEN + n));
	/* A guest that takes partial checksums sums the payload itself;
	 * else it is summed here, where it lies
	 */
	ip_frame_fill_offload(c, lf, &f->raddr, &f->gaddr, IPPROTO_UDP,
			      UDP_HLEN + n, &o);
	tx_commit_frame(c, lf, n, &o);
	return queued;
}

/**
 * udp_to_guest() - receive a datagram for the guest, in its frame
 * @c:		execution context
 * @fd:		socket to receive from
 * @f:		flow, or NULL to take the source from the datagram (listener)
 * @lst:	listener, when @f is NULL
 * @qp:		queue pair the datagram goes to: @f's, or for a listener's
 *		one of the listener's (link_spread() of its port), which a
 *		new flow then keeps
 * @v6:		the datagram's family: @f's, or on a listener of both
 *		families the one its source was seen in
 *
 * The datagram is received straight into the guest's own receive
 * buffers when the link has them
 * (tx_reserve_frames()), with room for what its MTU lets through: a
 * larger one spills over into a buffer of ours and is queued, copied.
 * Otherwise it is received into a frame of the queue, as large as any.
 * Return: true if a datagram was moved, false when the socket is empty or
 * the queue to the VMM is full
 */
static bool udp_to_guest(struct ctx *c, int fd, struct flow *f,
			 const struct fwd_listener *lst, uint8_t qp, bool v6)
{
	static uint8_t spill[UDP_MAX_PAYLOAD];
	static struct link_frame lf;
	size_t hlen = ip_l2l3_len(v6) + UDP_HLEN, room = udp_room(c, v6);
	struct iovec iov[LINK_FRAME_IOV + 1];
	struct sockaddr_storage sa;
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = iov,
	};
	struct in6_addr raddr, paddr, gaddr;
	uint16_t rport;
	ssize_t n;

	if (!(room && tx_reserve_frames(c, qp, hlen, room, 1, &lf) == 1 &&
	      !link_frame_queued(&lf)) &&
	    !tx_reserve_queued(c, qp, hlen, UDP_MAX_PAYLOAD, &lf)) {
		/* The VMM is not reading: drop as a full NIC queue would,
		 * rather than spin on a readable socket.
		 */
		if (recv(fd, spill, sizeof(spill), MSG_DONTWAIT) < 0)
			return false;
		c->cnt.drop_tx_full++;
		return true;
	}
	mh.msg_iovlen = udp_iov(&lf, spill, iov);
	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || !f)
			return false;
		/* An ICMP error came back (refused, unreachable, time
		 * exceeded): the guest hears of it, then reading goes on
		 */
		icmp_sock_errors(c, f);
		return true;
	}

	if (!f) {
		inany_from_sockaddr(&sa, &raddr, &rport);
		/* The frame was laid out for the family its peek saw */
		if (inany_is4(&raddr) == v6) {
			c->cnt.drop_sock++;
			return true;
		}
		paddr = raddr;
		gaddr = gaddr_inbound(c, v6);
		if (!fwd_inbound_peer(c, &raddr))
			paddr = in6addr_any;
		else if (v6)
			gaddr = gaddr_inbound_ll(c);
		if (!IN6_IS_ADDR_UNSPECIFIED(&lst->to_addr))
			gaddr = lst->to_addr;
		f = flow_lookup(c, IPPROTO_UDP, &gaddr, lst->guest_port,
				&raddr, rport);
		if (!f) {
			f = flow_new(c, IPPROTO_UDP, &gaddr, lst->guest_port,
				     &raddr, rport);
			if (!f)
				return true;
			f->inbound = true;
			f->fd = fd;
			f->qp = qp;
			c->cnt.udp_flows++;
		}
		/* Two clients of the pod the guest sees as one: the
		 * latest gets the answers
		 */
		f->paddr = paddr;
	}
	f->last = c->now.tv_sec;
	f->to_guest += (size_t)n;
	udp_frame_out(c, f, &lf, spill, (size_t)n, false);
	return true;
}

/**
 * udp_to_guest_batch() - receive the datagrams of a flow straight into the
 *			  guest's buffers, several in one call
 * @c:		execution context
 * @f:		flow, with its own connected socket
 *
 * Frames are reserved in the guest's buffers as far as each takes its
 * buffers whole (a frame committed short must not leave some unused in
 * front of the next), then recvmmsg() fills them.  Once a datagram
 * larger than the MTU's room had to be queued, the rest of the batch is
 * queued behind it, in order: the queue was empty when the guest's
 * buffers were reserved (tx_reserve_frames()) and a batch queues less
 * than it holds, so nothing flushes it meanwhile and the buffers not
 * yet copied stay ours.
 *
 * Return: datagrams moved, 0 if the socket is empty, -1 if the guest's
 * buffers cannot take them now: udp_to_guest() then does, one by one
 */
static int udp_to_guest_batch(struct ctx *c, struct flow *f)
{
	static uint8_t spill[UDP_MMSG][UDP_MAX_PAYLOAD];
	static struct iovec iov[UDP_MMSG][LINK_FRAME_IOV + 1];
	static struct link_frame lf[UDP_MMSG];
	bool v6 = !inany_is4(&f->raddr), queue = false;
	size_t hlen = ip_l2l3_len(v6) + UDP_HLEN, room = udp_room(c, v6);
	struct mmsghdr mm[UDP_MMSG];
	int n, k, i;

	if (!room)
		return -1;
	n = tx_reserve_frames(c, f->qp, hlen, room, UDP_MMSG, lf);
	if (n < 1 || link_frame_queued(&lf[0]))
		return -1;
	for (k = 0; k < n && lf[k].whole; k++)
		;
	n = k < n ? k + 1 : n;
	if (n < 2)
		return -1;

	memset(mm, 0, sizeof(mm));
	for (i = 0; i < n; i++) {
		mm[i].msg_hdr.msg_iov = iov[i];
		mm[i].msg_hdr.msg_iovlen = udp_iov(&lf[i], spill[i], iov[i]);
	}
	n = recvmmsg(f->fd, mm, (unsigned int)n, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EAGAIN)
			return 0;
		icmp_sock_errors(c, f);
		return 1;
	}
	if (n)
		f->last = c->now.tv_sec;
	for (i = 0; i < n; i++) {
		f->to_guest += mm[i].msg_len;
		queue |= udp_frame_out(c, f, &lf[i], spill[i],
				       mm[i].msg_len, queue);
	}
	return n;
}

/**
 * udp_flow_ready() - datagrams, or ICMP errors, from the remote of a flow
 * @c:		execution context
 * @f:		flow
 * @events:	epoll events of its socket
 */
void udp_flow_ready(struct ctx *c, struct flow *f, uint32_t events)
{
	int i, n;

	if (events & EPOLLERR)
		icmp_sock_errors(c, f);
	for (i = 0; i < UDP_BATCH; i += n) {
		n = udp_to_guest_batch(c, f);
		if (!n)
			break;
		if (n < 0) {
			if (!udp_to_guest(c, f->fd, f, NULL, f->qp,
					  !inany_is4(&f->raddr)))
				break;
			n = 1;
		}
	}
}

/**
 * udp_listener_fd() - the -u listener an inbound flow to a guest address
 *		       and port replies through
 * @c:		execution context
 * @gaddr:	the flow's guest address
 * @guest_port:	the flow's guest port
 *
 * Return: the socket of the listener forwarding to @gaddr itself, else of
 *	   one forwarding to the guest's own address in that family (or in
 *	   both), -1 if no -u listener forwards to @guest_port
 */
int udp_listener_fd(const struct ctx *c, const struct in6_addr *gaddr,
		    uint16_t guest_port)
{
	bool v6 = !inany_is4(gaddr);
	int fd = -1;
	uint32_t i;

	for (i = 0; i < c->udp_n; i++) {
		const struct fwd_listener *l = &c->udp_lst[i];

		if (l->fd < 0 || (l->v6 != v6 && !l->dual) || l->any_port ||
		    l->guest_port != guest_port)
			continue;
		if (inany_eq(&l->to_addr, gaddr))
			return l->fd;
		if (fd < 0 && IN6_IS_ADDR_UNSPECIFIED(&l->to_addr))
			fd = l->fd;
	}
	return fd;
}

/**
 * udp_peek_src() - the source of the next datagram on a socket
 * @fd:		the socket
 * @src:	filled in (v4-mapped for IPv4, also on an IPv6 socket)
 *
 * Return: 0 on success, -1 if the socket is empty
 */
static int udp_peek_src(int fd, struct in6_addr *src)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	uint16_t port;

	if (recvfrom(fd, NULL, 0, MSG_PEEK | MSG_DONTWAIT,
		     (struct sockaddr *)&sa, &sl) < 0)
		return -1;
	inany_from_sockaddr(&sa, src, &port);
	return 0;
}

/**
 * udp_listener_ready() - datagrams to a forwarded pod port
 * @c:		execution context
 * @idx:	listener index
 */
void udp_listener_ready(struct ctx *c, uint32_t idx)
{
	if (idx < c->udp_n)
		udp_listener_input(c, &c->udp_lst[idx]);
}

/**
 * udp_listener_pool() - where the -u listeners are kept, for the control
 *			 socket to change them at run time (ctl_fwd.c)
 * @lst:	set to the array's pointer: index i is EPREF_UDP_LISTEN's i
 * @n:		set to its count's
 */
void udp_listener_pool(struct ctx *c, struct fwd_listener ***lst,
		       uint32_t **n)
{
	*lst = &c->udp_lst;
	*n = &c->udp_n;
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
		bool v6 = l->v6;

		/* The next datagram's source, where it matters before the
		 * datagram is received (as passt looks at every one): on a
		 * socket of both families, its family lays the frame out;
		 * in namespace mode, a pod process writing to the pod's
		 * loopback has its datagrams relayed to the namespace's
		 * loopback, or to the rule's target address there, not
		 * framed (the tap drops loopback sources)
		 */
		if (l->dual || c->udp_splice) {
			struct in6_addr src;

			if (udp_peek_src(l->fd, &src))
				break;
			v6 = !inany_is4(&src);
			if (c->udp_splice && inany_is_loopback(&src)) {
				if (!udp_splice_take(c, l->fd, true,
						     &l->to_addr,
						     l->guest_port))
					break;
				continue;
			}
		}
		/* No guest: drain, so the socket does not stay readable */
		if (!link_up(c)) {
			if (recv(l->fd, &discard, 1, MSG_DONTWAIT) < 0)
				break;
			continue;
		}
		if (!udp_to_guest(c, l->fd, NULL, l,
				  link_spread(l->guest_port), v6))
			break;
	}
}

/**
 * udp_fwd_listeners() - the sockets of -u, for an upgrade in place
 * @n:		set to their number
 *
 * Return: the listeners
 */
const struct fwd_listener *udp_fwd_listeners(const struct ctx *c,
					      uint32_t *n)
{
	*n = c->udp_n;
	return c->udp_lst;
}
