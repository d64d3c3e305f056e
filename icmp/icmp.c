// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - ICMP and ICMPv6: echo through ping sockets, NDP
 *
 * Echo requests leave through unprivileged ping sockets (SOCK_DGRAM with
 * IPPROTO_ICMP or IPPROTO_ICMPV6): no CAP_NET_RAW.  The kernel picks the
 * echo identifier of such a socket, so replies get the guest's identifier
 * back before they are queued.  Ping sockets exist only for the groups in
 * net.ipv4.ping_group_range; without them, echo requests are dropped and the
 * operator is told once.
 *
 * Neighbour Discovery is answered here from ndp/, and router advertisements
 * are repeated every --ra-interval seconds.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>

#include "icmp.h"
#include "link/link.h"
#include "ndp/ndp.h"
#include "net/gaddr.h"
#include "net/outbound.h"
#include "netshim/checksum.h"
#include "netshim/inany.h"
#include "netshim/log.h"

#define ICMP_ECHO_REQUEST	8
#define ICMP_ECHO_REPLY		0
#define MLD2_LISTENER_REPORT	143	/* RFC 3810; not in <netinet/icmp6.h> */
#define ICMP_ECHO_HLEN		8
#define ICMP_MAX		(FRAME_MAX - ETH_HLEN_ - 40)
#define NDP_MAX			1280

static const uint8_t mac_all_nodes[6] = { 0x33, 0x33, 0, 0, 0, 1 };

/**
 * icmp_ping_socket() - open the ping socket of a new echo flow
 * @c:		execution context
 * @f:		flow, key set
 * @id:		echo identifier to bind if the pod has it free (the guest's
 *		own for a new flow, the source's for a migrated one), else any
 *
 * Return: 0 on success, -1 on failure (flow freed, logged once if denied)
 */
int icmp_ping_socket(struct ctx *c, struct flow *f, uint16_t id)
{
	bool v6 = f->proto == IPPROTO_ICMPV6_;
	bool *denied = v6 ? &c->ping6_denied : &c->ping4_denied;
	struct sockaddr_storage sa, src_sa;
	struct in6_addr src;
	socklen_t sl, src_sl;

	f->fd = socket(v6 ? AF_INET6 : AF_INET,
		       SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	if (f->fd < 0) {
		if ((errno == EACCES || errno == EPERM) && !*denied) {
			warn("ping sockets are not permitted for this group "
			     "(net.ipv4.ping_group_range): dropping %s echo "
			     "requests from the guest", v6 ? "ICMPv6" : "ICMP");
			*denied = true;
		}
		c->cnt.drop_ping_denied++;
		flow_free(c, f);
		return -1;
	}
	outbound_sockaddr(c, &f->raddr, 0, &sa, &sl);
	if (outbound_prepare(c, f->fd, &sa, &src)) {
		c->cnt.drop_sock++;
		flow_free(c, f);
		return -1;
	}
	/* The identifier is a ping socket's port: keep it where it is free,
	 * so that replies still on their way after a migration find the
	 * flow's socket here
	 */
	src_sl = inany_sockaddr(&src_sa, &src, id);
	if (bind(f->fd, (struct sockaddr *)&src_sa, src_sl)) {
		src_sl = inany_sockaddr(&src_sa, &src, 0);
		bind(f->fd, (struct sockaddr *)&src_sa, src_sl);
	}
	if (connect(f->fd, (struct sockaddr *)&sa, sl) ||
	    flow_sock_errors_on(f) || flow_watch(c, f)) {
		c->cnt.drop_sock++;
		flow_free(c, f);
		return -1;
	}
	c->cnt.icmp_flows++;
	return 0;
}

/**
 * icmp_echo_local() - answer an echo request to netshim's link-local address
 * @c:		execution context
 * @m:		addresses
 * @l4:		the echo request
 */
static void icmp_echo_local(struct ctx *c, const struct l4_meta *m,
			    const struct pkt *l4)
{
	uint8_t *out = ip_tx_l4(c, m->qp, true, l4->len);

	if (!out)
		return;
	memcpy(out, l4->data, l4->len);
	out[0] = ICMP6_ECHO_REPLY;
	ip_tx_send(c, out, &m->dst, &m->src, IPPROTO_ICMPV6_, l4->len, NULL);
}

/**
 * icmp_ndp_input() - Neighbour Discovery from the guest
 * @c:		execution context
 * @m:		addresses
 * @l4:		the ICMPv6 message
 */
static void icmp_ndp_input(struct ctx *c, const struct l4_meta *m,
			   const struct pkt *l4)
{
	struct in6_addr dst, src = c->conf.our_ll6;
	uint8_t *out;
	size_t len;

	if (m->hop != 255) {	/* RFC 4861: off-link, never trusted */
		c->cnt.drop_icmp++;
		return;
	}
	/* A guest that only serves speaks first from a new address here */
	if (ndp_dad_probe(&m->src, &m->dst, l4, &dst)) {
		gaddr_seen6(c, &dst);
		return;
	}
	out = ip_tx_l4(c, m->qp, true, NDP_MAX);
	if (!out)
		return;
	len = ndp_reply(&c->conf, &m->src, &m->dst, l4, out, NDP_MAX, &dst);
	if (!len)
		return;
	/* A neighbour advertisement speaks from the address it advertises */
	if (out[0] == ND_NEIGHBOR_ADVERT)
		memcpy(&src, out + 8, 16);
	ip_tx_send(c, out, &src, &dst, IPPROTO_ICMPV6_, len,
		   IN6_IS_ADDR_MULTICAST(&dst) ? mac_all_nodes : NULL);
	c->cnt.ndp_replies++;
}

/**
 * icmp_ndp_probe() - ask the guest for its MAC address (NDP solicitation)
 * @c:		execution context
 *
 * The IPv6 side of arp_probe_guest(), to the solicited-node multicast
 * address of the guest's address as inbound traffic would use it; on the
 * first queue pair, as that.
 */
void icmp_ndp_probe(struct ctx *c)
{
	struct in6_addr target = gaddr_inbound(c, true), dst = {
		.s6_addr = { 0xff, 0x02, [11] = 1, [12] = 0xff },
	};
	uint8_t mac[6] = { 0x33, 0x33, 0xff };
	uint8_t *out;
	size_t len;

	if (!c->conf.v6 || c->conf.no_ndp)
		return;
	out = ip_tx_l4(c, 0, true, NDP_MAX);
	if (!out)
		return;
	len = ndp_ns_build(&c->conf, &target, out, NDP_MAX);
	if (!len)
		return;
	memcpy(dst.s6_addr + 13, target.s6_addr + 13, 3);
	memcpy(mac + 3, target.s6_addr + 13, 3);
	ip_tx_send(c, out, &c->conf.our_ll6, &dst, IPPROTO_ICMPV6_, len, mac);
	c->cnt.guest_probes++;
}

/**
 * icmp6_link_msg() - whether an ICMPv6 type is for the guest's link alone
 * @type:	ICMPv6 type
 *
 * Return: true for MLD and for router and neighbour advertisements and
 *	   redirects
 */
static bool icmp6_link_msg(uint8_t type)
{
	switch (type) {
	case MLD_LISTENER_QUERY:
	case MLD_LISTENER_REPORT:
	case MLD_LISTENER_REDUCTION:
	case MLD2_LISTENER_REPORT:
	case ND_ROUTER_ADVERT:
	case ND_NEIGHBOR_ADVERT:
	case ND_REDIRECT:
		return true;
	}
	return false;
}

/**
 * icmp_input() - an ICMP or ICMPv6 message from the guest
 * @c:		execution context
 * @m:		addresses and protocol
 * @l4:		the message (checksum already verified)
 */
void icmp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4)
{
	const uint8_t *h = pkt_get(l4, 0, ICMP_ECHO_HLEN);
	uint8_t echo = m->v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO_REQUEST;
	struct flow *f;
	uint16_t id;

	if (!h) {
		c->cnt.drop_icmp++;
		return;
	}
	if (m->v6 &&
	    (h[0] == ND_ROUTER_SOLICIT || h[0] == ND_NEIGHBOR_SOLICIT)) {
		icmp_ndp_input(c, m, l4);
		return;
	}
	/* What a guest says to its link as it comes up and answers our
	 * probes (MLD reports and queries, RFC 3810 and 2710; router and
	 * neighbour advertisements, redirects, RFC 4861): nothing to
	 * forward, nothing wrong either
	 */
	if (m->v6 && icmp6_link_msg(h[0])) {
		c->cnt.icmp6_link++;
		return;
	}
	if (h[0] != echo || h[1] != 0) {
		c->cnt.drop_icmp++;
		return;
	}
	/* --no-icmp: echo requests only; NDP above still works */
	if (c->conf.no_icmp) {
		c->cnt.drop_disabled++;
		return;
	}
	if (m->v6 && inany_eq(&m->dst, &c->conf.our_ll6)) {
		icmp_echo_local(c, m, l4);
		return;
	}
	if (!outbound_reachable(c, &m->src, &m->dst)) {
		c->cnt.drop_link_only++;
		return;
	}

	id = rd16(h + 4);
	f = flow_lookup(c, m->proto, &m->src, id, &m->dst, 0);
	if (!f) {
		f = flow_new(c, m->proto, &m->src, id, &m->dst, 0);
		if (!f || icmp_ping_socket(c, f, id))
			return;
		if (m->v6)
			gaddr_seen6(c, &m->src);
	}
	f->last = c->now.tv_sec;
	f->qp = m->qp;		/* its replies follow the guest's CPU */
	flow_hop(f, m->hop);
	if (send(f->fd, l4->data, l4->len, MSG_DONTWAIT) < 0)
		c->cnt.drop_sock++;
	else
		f->from_guest += l4->len;
}

/**
 * icmp_flow_ready() - echo replies, or errors, on a ping socket
 * @c:		execution context
 * @f:		flow
 * @events:	epoll events of its socket
 */
void icmp_flow_ready(struct ctx *c, struct flow *f, uint32_t events)
{
	bool v6 = f->proto == IPPROTO_ICMPV6_;
	uint8_t *out;
	ssize_t n;
	int i;

	if (events & EPOLLERR)
		icmp_sock_errors(c, f);
	for (i = 0; i < 16; i++) {
		out = ip_tx_l4(c, f->qp, v6, ICMP_MAX);
		if (!out) {
			uint8_t discard[64];

			recv(f->fd, discard, sizeof(discard), MSG_DONTWAIT);
			return;
		}
		n = recv(f->fd, out, ICMP_MAX, MSG_DONTWAIT);
		if (n < ICMP_ECHO_HLEN)
			return;
		wr16(out + 4, f->gport);
		ip_tx_send(c, out, &f->raddr, &f->gaddr, f->proto, n, NULL);
		f->last = c->now.tv_sec;
		f->to_guest += (size_t)n;
	}
}

/* The most of the guest's packet an error quotes, past its first 8 layer-4
 * bytes: what fits in 576 bytes of IPv4 (RFC 1812, 4.3.2.3) or in the
 * IPv6 minimum MTU (RFC 4443, 2.4 (c)), as a router quotes it
 */
#define ICMP4_QUOTE_MAX		(576 - IP4_HLEN - 8 - IP4_HLEN - 8)
#define ICMP6_QUOTE_MAX		(1280 - IP6_HLEN - 8 - IP6_HLEN - 8)

/**
 * struct icmp_quote - the guest's packet an error is about
 * @gaddr:	its source, the guest's address
 * @raddr:	its destination
 * @proto:	its layer-4 protocol
 * @hop:	the TTL or hop limit it was sent with, 0 if not known
 * @l4:		its first 8 layer-4 bytes (ports, and for TCP the sequence)
 * @data:	what followed them, as far as the error quoted it
 * @dlen:	length of @data
 * @qp:		the queue pair it came in on, or its flow's: the error
 *		goes back on it
 */
struct icmp_quote {
	const struct in6_addr *gaddr;
	const struct in6_addr *raddr;
	uint8_t proto;
	uint8_t hop;
	uint8_t l4[8];
	const uint8_t *data;
	size_t dlen;
	uint8_t qp;
};

/**
 * icmp_quote_l4() - the quoted layer-4 header's length and checksum fields
 * @q:		the guest's packet
 * @out:	its layer-4 header in the error, followed by @q->data
 * @dlen:	how much of @q->data follows it
 *
 * What the guest itself wrote there, for a whole datagram or echo
 * request: tools that read errors on a raw socket (busybox's traceroute6)
 * match the quote against what they sent.  A TCP segment keeps its first
 * 8 bytes only, which hold no checksum.
 */
static void icmp_quote_l4(const struct icmp_quote *q, uint8_t *out,
			  size_t dlen)
{
	bool v6 = !inany_is4(q->raddr);
	uint16_t len = (uint16_t)(8 + dlen);
	uint32_t sum = 0;
	uint16_t ck;

	if (q->proto == IPPROTO_UDP) {
		wr16(out + 4, len);
		wr16(out + 6, 0);
	} else if (q->proto == IPPROTO_ICMP || q->proto == IPPROTO_ICMPV6_) {
		wr16(out + 2, 0);
	} else {
		return;
	}
	if (v6)
		sum = csum_pseudo6(q->gaddr, q->raddr, q->proto, len);
	else if (q->proto == IPPROTO_UDP)
		sum = csum_pseudo4(inany_to4(q->gaddr), inany_to4(q->raddr),
				   q->proto, len);
	ck = csum_l4(sum, out, len);
	if (q->proto == IPPROTO_UDP)	/* 0 would mean none (RFC 768) */
		wr16(out + 6, ck ? ck : 0xffff);
	else
		wr16(out + 2, ck);
}

/**
 * icmp_error() - an ICMP or ICMPv6 error to the guest about its packet
 * @c:		execution context
 * @from:	source of the error: the router or host that sent it
 * @q:		the guest's packet
 * @type:	ICMP or ICMPv6 type
 * @code:	its code
 * @mtu:	next-hop MTU of a fragmentation-needed or packet-too-big
 *		message, else 0
 *
 * The message quotes a rebuilt copy of the guest's packet, as a router
 * would quote the packet itself: netshim keeps no copy of it, but the
 * pod's kernel hands back what the router quoted past the headers.
 */
static void icmp_error(struct ctx *c, const struct in6_addr *from,
		       const struct icmp_quote *q, uint8_t type, uint8_t code,
		       uint32_t mtu)
{
	bool v6 = !inany_is4(q->raddr);
	size_t iphl = v6 ? IP6_HLEN : IP4_HLEN;
	size_t dlen = v6 ? ICMP6_QUOTE_MAX : ICMP4_QUOTE_MAX;
	uint8_t hop = q->hop ? q->hop : 64;
	uint8_t *out, *ip;
	size_t len;

	if (q->dlen < dlen)
		dlen = q->dlen;
	len = 8 + iphl + 8 + dlen;
	out = ip_tx_l4(c, q->qp, v6, len);
	if (!out)
		return;
	memset(out, 0, 8 + iphl);
	out[0] = type;
	out[1] = code;
	ip = out + 8;
	if (v6) {
		wr32(out + 4, mtu);		/* packet too big: the MTU */
		wr32(ip, 6u << 28);
		wr16(ip + 4, (uint16_t)(8 + dlen));
		ip[6] = q->proto;
		ip[7] = hop;
		memcpy(ip + 8, q->gaddr, 16);
		memcpy(ip + 24, q->raddr, 16);
	} else {
		struct in_addr s4 = inany_to4(q->gaddr);
		struct in_addr d4 = inany_to4(q->raddr);

		wr16(out + 6, (uint16_t)mtu);	/* RFC 1191 next-hop MTU */
		ip[0] = 0x45;
		wr16(ip + 2, (uint16_t)(IP4_HLEN + 8 + dlen));
		ip[8] = hop;
		ip[9] = q->proto;
		memcpy(ip + 12, &s4, 4);
		memcpy(ip + 16, &d4, 4);
		wr16(ip + 10, csum_ip4_header(ip, IP4_HLEN));
	}
	memcpy(ip + iphl, q->l4, 8);
	if (dlen)
		memcpy(ip + iphl + 8, q->data, dlen);
	icmp_quote_l4(q, ip + iphl, dlen);
	ip_tx_send(c, out, from, q->gaddr,
		   v6 ? IPPROTO_ICMPV6_ : IPPROTO_ICMP, len, NULL);
	c->cnt.icmp_errors++;
}

/**
 * icmp_unreach() - tell the guest a destination cannot be reached
 * @c:		execution context
 * @qp:		queue pair of the failed packet, or of its flow
 * @gaddr:	guest address, the source of the failed packet
 * @raddr:	destination of the failed packet
 * @proto:	its layer-4 protocol
 * @l4:		its first 8 layer-4 bytes (ports, and for TCP the sequence)
 * @data:	what followed them, NULL for nothing
 * @dlen:	length of @data
 * @port:	port unreachable (else host unreachable)
 *
 * From the guest's gateway, which stands for the pod's network here.
 */
void icmp_unreach(struct ctx *c, uint8_t qp, const struct in6_addr *gaddr,
		  const struct in6_addr *raddr, uint8_t proto,
		  const uint8_t l4[8], const uint8_t *data, size_t dlen,
		  bool port)
{
	bool v6 = !inany_is4(raddr);
	struct in6_addr from = v6 ? c->conf.our_ll6 : inany_from4(c->conf.gw4);
	struct icmp_quote q = { .gaddr = gaddr, .raddr = raddr,
				.proto = proto, .data = data, .dlen = dlen,
				.qp = qp };

	memcpy(q.l4, l4, 8);
	if (v6)		/* destination unreachable: port, or address */
		icmp_error(c, &from, &q, 1, port ? 4 : 3, 0);
	else		/* destination unreachable: port, or host */
		icmp_error(c, &from, &q, 3, port ? 3 : 1, 0);
}

/**
 * icmp_error_wanted() - whether the guest gets an ICMP error of a kind
 * @v6:		ICMPv6 (else ICMP)
 * @type:	its type
 * @code:	its code
 *
 * Destination unreachable, fragmentation needed or packet too big, and
 * time exceeded: what a guest's stack and traceroute act on.  Parameter
 * problems point into a packet netshim rebuilt, and source quench and
 * redirects mean nothing past the pod.
 *
 * Return: true if it is relayed
 */
static bool icmp_error_wanted(bool v6, uint8_t type, uint8_t code)
{
	if (v6)
		return (type == 1 && code <= 6) || type == 2 ||
		       (type == 3 && code <= 1);
	return (type == 3 && code <= 15) || (type == 11 && code <= 1);
}

/**
 * icmp_error_source() - the address an error reaches the guest from
 * @c:		execution context
 * @f:		flow the error is about
 * @off:	the error's sender, as the kernel gives it (SO_EE_OFFENDER)
 * @from:	filled in
 *
 * The flow's destination itself speaks as the guest knows it (so through
 * --map-host-loopback); an error the pod's own stack made (a neighbour
 * that never answered) speaks as the guest's gateway, since the pod's
 * address is the guest's own; any other router speaks as itself.
 */
static void icmp_error_source(const struct ctx *c, const struct flow *f,
			      const struct sockaddr_storage *off,
			      struct in6_addr *from)
{
	bool v6 = !inany_is4(&f->raddr);
	struct sockaddr_storage dst;
	struct in6_addr d;
	uint16_t port;
	socklen_t dl;

	if (off->ss_family != (v6 ? AF_INET6 : AF_INET)) {
		*from = f->raddr;
		return;
	}
	inany_from_sockaddr(off, from, &port);
	outbound_sockaddr(c, &f->raddr, f->rport, &dst, &dl);
	inany_from_sockaddr(&dst, &d, &port);
	if (inany_eq(from, &d))
		*from = f->raddr;
	else if (inany_eq(from, &f->gaddr) ||
		 (v6 ? IN6_IS_ADDR_LOOPBACK(from) :
		       inany_to4(from).s_addr == htonl(INADDR_LOOPBACK)))
		*from = v6 ? c->conf.our_ll6 : inany_from4(c->conf.gw4);
}

/**
 * icmp_sock_errors() - the ICMP errors a flow's socket got, relayed to the
 *			guest
 * @c:		execution context
 * @f:		flow, UDP or echo, its socket with IP_RECVERR (IPV6_RECVERR)
 *
 * The kernel queues each error with the start of what the socket sent
 * (the UDP payload, or the echo message) and the address of the router or
 * host that answered.  The guest gets the same error from that address,
 * quoting its own packet as the router quoted it, so that traceroute,
 * tracepath, ping -t and path MTU discovery in the guest see the path the
 * pod's packets take, and a UDP application sees its port refused.
 * Reading the queue also clears the socket's pending error.
 */
void icmp_sock_errors(struct ctx *c, const struct flow *f)
{
	static uint8_t data[1500];
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err) +
				    sizeof(struct sockaddr_in6))];
		struct cmsghdr align;
	} cm;
	bool v6 = !inany_is4(&f->raddr);
	struct iovec iov = { data, sizeof(data) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sock_extended_err *ee;
	struct icmp_quote q;
	struct in6_addr from;
	struct cmsghdr *h;
	ssize_t n;
	int i;

	for (i = 0; i < 16; i++) {
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		n = recvmsg(f->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (n < 0)
			return;
		ee = NULL;
		for (h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h)) {
			if ((h->cmsg_level == IPPROTO_IP &&
			     h->cmsg_type == IP_RECVERR) ||
			    (h->cmsg_level == IPPROTO_IPV6 &&
			     h->cmsg_type == IPV6_RECVERR))
				ee = (struct sock_extended_err *)CMSG_DATA(h);
		}
		if (!ee || ee->ee_origin != (v6 ? SO_EE_ORIGIN_ICMP6 :
						  SO_EE_ORIGIN_ICMP) ||
		    !icmp_error_wanted(v6, ee->ee_type, ee->ee_code)) {
			c->cnt.icmp_errors_other++;
			continue;
		}

		q = (struct icmp_quote){ .gaddr = &f->gaddr,
					 .raddr = &f->raddr,
					 .proto = f->proto, .hop = f->hop,
					 .qp = f->qp };
		if (f->proto == IPPROTO_UDP) {
			/* The payload, as far as the router quoted it */
			wr16(q.l4, f->gport);
			wr16(q.l4 + 2, f->rport);
			q.data = data;
			q.dlen = (size_t)n;
		} else if (n >= ICMP_ECHO_HLEN) {
			/* The echo request as the guest sent it: the
			 * quoted one with the guest's own identifier
			 */
			memcpy(q.l4, data, ICMP_ECHO_HLEN);
			wr16(q.l4 + 4, f->gport);
			q.data = data + ICMP_ECHO_HLEN;
			q.dlen = (size_t)n - ICMP_ECHO_HLEN;
		} else {
			q.l4[0] = v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO_REQUEST;
			wr16(q.l4 + 4, f->gport);
		}
		icmp_error_source(c, f, (const struct sockaddr_storage *)
				  SO_EE_OFFENDER(ee), &from);
		icmp_error(c, &from, &q, ee->ee_type, ee->ee_code,
			   (v6 ? ee->ee_type == 2 : ee->ee_code == 4) ?
			   ee->ee_info : 0);
	}
}

/**
 * icmp_ra_timer() - unsolicited router advertisement, every --ra-interval
 * @c:		execution context
 */
void icmp_ra_timer(struct ctx *c)
{
	struct in6_addr all_nodes = { .s6_addr = { 0xff, 0x02, [15] = 1 } };
	uint8_t *out;
	size_t len;

	if (!link_up(c) || !c->conf.v6 || c->conf.no_ra ||
	    c->now.tv_sec - c->last_ra < (time_t)c->conf.ra_interval)
		return;
	c->last_ra = c->now.tv_sec;
	/* No flow's: on the first queue pair */
	out = ip_tx_l4(c, 0, true, NDP_MAX);
	if (!out)
		return;
	len = ndp_ra_build(&c->conf, out, NDP_MAX);
	if (!len)
		return;
	ip_tx_send(c, out, &c->conf.our_ll6, &all_nodes, IPPROTO_ICMPV6_, len,
		   mac_all_nodes);
	c->cnt.ndp_replies++;
}
