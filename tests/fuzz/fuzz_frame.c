// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: guest_frames_up(), the whole frame dispatcher
 *
 * The input is one control byte, then one Ethernet frame from the guest.
 * Bit 0 of the control byte asks for the IPv4 header checksum and the
 * layer-4 checksum to be set right before the frame goes in: a mutated
 * packet almost never has a valid checksum, and without this the fuzzer
 * would hardly get past ip_l4_csum_ok().  Inputs without the bit still
 * test the checksum checks themselves.  Bit 1 puts a virtio-net header
 * (VNET_HDR_BASE_LEN bytes, after the control byte) in front of the
 * frame, checked by vnet_hdr_parse() as vhost-user does with every
 * offload negotiated, and the frame goes in with its offloads: partial
 * checksums are not verified, TSO frames may be up to 64 KiB of IP
 * packet.  The frame goes through
 * Ethernet, ARP, IPv4/IPv6, UDP (DHCP, DHCPv6), ICMP (echo, NDP) and TCP
 * exactly as in the daemon, with a context set up as main.c's setup() does
 * it but without the VMM's socket: the link is one end of a socketpair.
 *
 * Guest SYNs, datagrams and echo requests make netshim open real sockets
 * towards addresses taken from the input.  A fuzzer must send nothing, so
 * this target refuses to start unless every network interface it can see
 * is down: run it inside a fresh network namespace (run.sh uses
 * `unshare -n`), where every connect() and send() fails locally.
 *
 * Every frame netshim queues for the guest in answer is checked: framing,
 * source MAC, IP header and layer-4 checksums.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "netshim/checksum.h"
#include "common.h"
#include "netshim/ctx.h"
#include "net/eth.h"
#include "net/flow.h"
#include "daemon/guest.h"
#include "netshim/inany.h"
#include "net/ip.h"
#include "link/link.h"
#include "link/framing.h"
#include "link/vnet.h"
#include "tcp/tcp.h"

#define FUZZ_FIX_CSUM		0x01
#define FUZZ_VNET_HDR		0x02
/* A TSO frame from a vhost-user guest: 64 KiB of IPv6 payload */
#define FUZZ_FRAME_IN_MAX	(ETH_HLEN_ + 40 + 65535)
/* Empty the connection and flow tables this often, as a VMM reconnect does */
#define FUZZ_GUEST_GONE_EVERY	64
/* Room for every reply one frame can cause, several times over */
#define FUZZ_TX_SIZE		(8 * (STREAM_HDR_LEN + FRAME_MAX))
#define FUZZ_RX_SIZE		(STREAM_HDR_LEN + FRAME_MAX)

static struct ctx ctx;
static int vmm_fd = -1;

/**
 * network_isolated() - tell if no interface is up, so nothing can leave
 *
 * Return: true if every interface in this network namespace is down
 */
static bool network_isolated(void)
{
	struct if_nameindex *ifs, *i;
	bool isolated = true;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ifs = if_nameindex();
	if (fd < 0 || !ifs) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	for (i = ifs; i->if_index; i++) {
		struct ifreq ifr = { 0 };

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->if_name);
		if (ioctl(fd, SIOCGIFFLAGS, &ifr) || (ifr.ifr_flags & IFF_UP)) {
			fprintf(stderr, "fuzz_frame: interface %s is up\n",
				i->if_name);
			isolated = false;
		}
	}
	if_freenameindex(ifs);
	close(fd);
	return isolated;
}

/**
 * link_setup() - a socketpair for the link, buffers sized once
 * @c:		execution context
 */
static void link_setup(struct ctx *c)
{
	int sv[2];

	FUZZ_CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, 0, sv));
	vmm_fd = sv[1];
	c->signal_fd = -1;
	c->timer_fd = -1;
	c->pcap_fd = -1;

	c->link.ops = &link_stream_ops;
	c->link.listen_fd = c->link.fd = -1;
	c->link.rx.size = FUZZ_RX_SIZE;
	c->link.rx.buf = malloc(c->link.rx.size);
	c->link.tx.size = FUZZ_TX_SIZE;
	c->link.tx.buf = malloc(c->link.tx.size);
	c->link.in = calloc(LINK_IN_MAX, sizeof(*c->link.in));
	FUZZ_CHECK(c->link.rx.buf && c->link.tx.buf && c->link.in);
	FUZZ_CHECK(!c->link.ops->adopt(c, sv[0]));
}

/**
 * LLVMFuzzerInitialize() - set up the context as main.c's setup() does
 * @argc:	libFuzzer's arguments, unused
 * @argv:	libFuzzer's arguments, unused
 *
 * Return: 0 (exits if the network namespace is not isolated)
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ctx *c = &ctx;

	(void)argc;
	(void)argv;
	if (!network_isolated()) {
		fprintf(stderr, "fuzz_frame: guest frames open real sockets: "
			"run me where every interface is down, e.g. "
			"`unshare -n %s ...` (tests/fuzz/run.sh does)\n",
			(*argv)[0]);
		exit(1);
	}
	fuzz_logs_off();
	signal(SIGPIPE, SIG_IGN);

	fuzz_conf_fill(&c->conf);
	clock_gettime(CLOCK_MONOTONIC, &c->now);
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	FUZZ_CHECK(c->epfd >= 0);
	link_setup(c);
	FUZZ_CHECK(!flow_init(c));
	FUZZ_CHECK(!tcp_init(c));
	return 0;
}

/**
 * fix_csums() - make the IPv4 header and layer-4 checksums of a frame right
 * @f:		the Ethernet frame, writable
 * @len:	its length
 *
 * Frames too malformed to have a layer 4 are left as they are.
 */
static void fix_csums(uint8_t *f, size_t len)
{
	struct pkt ip = { f + ETH_HLEN_, len - ETH_HLEN_ }, l4;
	uint16_t type = rd16(f + 12);
	struct l4_meta m;
	size_t ihl, off;
	uint8_t *p;
	uint32_t sum;

	if (type == ETHERTYPE_IPV4_ && ip.len >= IP4_HLEN) {
		ihl = (size_t)(f[ETH_HLEN_] & 0x0f) * 4;
		if (ihl >= IP4_HLEN && ihl <= ip.len) {
			wr16(f + ETH_HLEN_ + 10, 0);
			wr16(f + ETH_HLEN_ + 10,
			     csum_ip4_header(f + ETH_HLEN_, ihl));
		}
		if (ip4_parse(&ip, &m, &l4))
			return;
	} else if (type != ETHERTYPE_IPV6_ || ip6_parse(&ip, &m, &l4)) {
		return;
	}

	off = ip_l4_csum_offset(m.proto);
	if (l4.len < off + 2)
		return;
	p = f + (l4.data - f);		/* the same bytes, writable */
	wr16(p + off, 0);
	if (m.v6)
		sum = csum_pseudo6(&m.src, &m.dst, m.proto, (uint32_t)l4.len);
	else if (m.proto == IPPROTO_ICMP)
		sum = 0;
	else
		sum = csum_pseudo4(inany_to4(&m.src), inany_to4(&m.dst),
				   m.proto, (uint16_t)l4.len);
	wr16(p + off, csum_l4(sum, p, l4.len));
	if (m.proto == IPPROTO_UDP && !m.v6 && !rd16(p + off))
		wr16(p + off, 0xffff);
}

/**
 * zeros() - whether bytes are all zero
 * @p:		bytes
 * @n:		how many
 *
 * Return: true if every byte is zero
 */
static bool zeros(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/**
 * check_ip_frame() - a frame to the guest has valid IP and checksums
 * @f:		the Ethernet frame
 * @v6:		IPv6 (else IPv4)
 */
static void check_ip_frame(const struct pkt *f, bool v6)
{
	struct pkt ip = { f->data + ETH_HLEN_, f->len - ETH_HLEN_ };
	struct l4_meta m;
	struct pkt l4;

	FUZZ_CHECK((v6 ? ip6_parse(&ip, &m, &l4) : ip4_parse(&ip, &m, &l4)) == 0);
	/* The IP length is the frame's, but for zeros padding it to 60 */
	FUZZ_CHECK(l4.data + l4.len == f->data + f->len ||
		   (f->len == ETH_ZLEN_ && l4.data + l4.len < f->data + f->len &&
		    zeros(l4.data + l4.len,
			  (size_t)(f->data + f->len - (l4.data + l4.len)))));
	FUZZ_CHECK(ip_l4_csum_ok(&m, &l4));
}

/**
 * check_tx() - every queued frame is well formed
 * @c:		execution context
 */
static void check_tx(const struct ctx *c)
{
	const struct tx *tx = &c->link.tx;
	size_t off = tx->head;
	struct pkt f;

	FUZZ_CHECK(tx->head <= tx->tail && tx->tail <= tx->size);
	while (off < tx->tail) {
		FUZZ_CHECK(stream_next(tx->buf, tx->tail, &off, FRAME_MAX,
				       &f) == STREAM_FRAME);
		FUZZ_CHECK(!memcmp(f.data + 6, c->conf.our_mac, 6));
		switch (rd16(f.data + 12)) {
		case ETHERTYPE_ARP_:
			/* Padded with zeros to the Ethernet minimum */
			FUZZ_CHECK(f.len == ETH_ZLEN_ &&
				   zeros(f.data + ETH_HLEN_ + ARP_LEN,
					 ETH_ZLEN_ - ETH_HLEN_ - ARP_LEN));
			break;
		case ETHERTYPE_IPV4_:
			check_ip_frame(&f, false);
			break;
		case ETHERTYPE_IPV6_:
			check_ip_frame(&f, true);
			break;
		default:
			FUZZ_CHECK(!"frame of an unknown ethertype to the guest");
		}
	}
}

/**
 * drain_vmm() - read whatever reached the VMM's end, so the link never fills
 */
static void drain_vmm(void)
{
	static uint8_t buf[65536];

	while (recv(vmm_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/**
 * LLVMFuzzerTestOneInput() - one frame from the guest
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vnet_accept all = { true, true, true, true };
	static unsigned int inputs;
	struct ctx *c = &ctx;
	struct link_offload o;
	size_t skip = 1;
	struct pkt frame;
	uint8_t *f;

	if (size && (data[0] & FUZZ_VNET_HDR)) {
		struct pkt h = { data + 1, size - 1 };

		if (size < 1 + VNET_HDR_BASE_LEN ||
		    vnet_hdr_parse(&h, size - 1 - VNET_HDR_BASE_LEN, &all,
				   &o))
			return 0;
		skip += VNET_HDR_BASE_LEN;
	}
	/* What link_input() lets through, and vhost-user with TSO */
	if (size < skip + STREAM_MIN_FRAME ||
	    size > skip + ((data[0] & FUZZ_VNET_HDR) ? FUZZ_FRAME_IN_MAX :
			   FRAME_MAX))
		return 0;

	/* A copy of the exact size: ASan sees any read past the frame */
	frame.len = size - skip;
	f = malloc(frame.len);
	FUZZ_CHECK(f);
	memcpy(f, data + skip, frame.len);
	if (data[0] & FUZZ_FIX_CSUM)
		fix_csums(f, frame.len);
	frame.data = f;

	/* As a back-end does, then the loop: gathered guest data points
	 * into the frame until the batch is done
	 */
	link_frame_in(c, &frame, frame.len, (data[0] & FUZZ_VNET_HDR) ? &o : NULL,
		      0);
	guest_frames_up(c);
	free(f);
	FUZZ_CHECK(c->link.up);
	tcp_flush_acks(c, false);
	check_tx(c);
	c->link.tx.head = c->link.tx.tail = 0;
	drain_vmm();

	if (++inputs % FUZZ_GUEST_GONE_EVERY == 0) {
		tcp_guest_gone(c);
		flow_guest_gone(c);
	}
	return 0;
}
