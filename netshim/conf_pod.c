// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the defaults worked out from the pod
 *
 * Everything the guest is handed defaults to what the pod has: addresses,
 * gateways and MTU of the template interface (read in netlink.c), and the
 * resolvers of /etc/resolv.conf.  The command line (conf.c) overrides any
 * of it: this file fills in only what it left unsaid.  When the command
 * line gives every address, prefix and gateway needed and names no
 * interface, the template is not read at all, so tests and unusual pods
 * do not depend on the pod's routes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "conf_pod.h"
#include "log.h"
#include "netlink.h"
#include "resolv.h"

#define RESOLV_CONF		"/etc/resolv.conf"

/**
 * conf_need_template() - tell if the template interface must be read
 * @c:		configuration after the command line; c->v4 and c->v6 say
 *		which families are wanted
 *
 * Return: true if -i was given, or an address, prefix or gateway of a
 *	   wanted family is missing (an IPv6 prefix defaults to 64)
 */
static bool conf_need_template(const struct conf *c)
{
	if (*c->ifname)
		return true;
	if (c->v4 && (!c->addr4.s_addr || c->prefix4 < 0 || !c->gw4.s_addr))
		return true;
	return c->v6 && (IN6_IS_ADDR_UNSPECIFIED(&c->addr6) ||
			 IN6_IS_ADDR_UNSPECIFIED(&c->gw6));
}

/**
 * conf_ll6_from_mac() - EUI-64 link-local address of a MAC address
 * @mac:	MAC address
 * @ll:		fe80::/64 address, output (RFC 4291 appendix A)
 */
static void conf_ll6_from_mac(const uint8_t *mac, struct in6_addr *ll)
{
	memset(ll, 0, sizeof(*ll));
	ll->s6_addr[0] = 0xfe;
	ll->s6_addr[1] = 0x80;
	ll->s6_addr[8] = mac[0] ^ 0x02;
	ll->s6_addr[9] = mac[1];
	ll->s6_addr[10] = mac[2];
	ll->s6_addr[11] = 0xff;
	ll->s6_addr[12] = 0xfe;
	ll->s6_addr[13] = mac[3];
	ll->s6_addr[14] = mac[4];
	ll->s6_addr[15] = mac[5];
}

/**
 * conf_finish_v4() - check IPv4 settings once defaults are in
 * @c:		configuration, c->v4 set
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_finish_v4(struct conf *c)
{
	const char *ifname = *c->ifname ? c->ifname : "(no interface)";

	if (c->prefix4 < 0) {
		fprintf(stderr, "netshim: no IPv4 prefix length known for %s; give -n\n",
			ifname);
		return -1;
	}
	if (!c->gw4.s_addr) {
		fprintf(stderr, "netshim: no IPv4 default gateway on %s; give -g, or -6\n",
			ifname);
		return -1;
	}
	if (c->gw4.s_addr == c->addr4.s_addr) {
		fprintf(stderr, "netshim: IPv4 guest address and gateway are the same\n");
		return -1;
	}
	return 0;
}

/**
 * conf_finish_v6() - complete IPv6 settings once defaults are in
 * @c:		configuration, c->v6 set
 *
 * The guest's router is always netshim: without a known IPv6 gateway,
 * netshim's own link-local address serves as one.  Our link-local
 * address, the source of router advertisements and so the guest's
 * default route, is the gateway's when that is link-local, else the
 * template's own link-local address, as passt and pasta take them, else
 * the EUI-64 address of our MAC.
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_finish_v6(struct conf *c)
{
	if (c->prefix6 < 0)
		c->prefix6 = 64;
	if (IN6_IS_ADDR_LINKLOCAL(&c->gw6))
		c->our_ll6 = c->gw6;
	else if (IN6_IS_ADDR_LINKLOCAL(&c->tmpl_ll6))
		c->our_ll6 = c->tmpl_ll6;
	else
		conf_ll6_from_mac(c->our_mac, &c->our_ll6);
	if (IN6_IS_ADDR_UNSPECIFIED(&c->gw6))
		c->gw6 = c->our_ll6;
	if (IN6_ARE_ADDR_EQUAL(&c->gw6, &c->addr6)) {
		fprintf(stderr, "netshim: IPv6 guest address and gateway are the same\n");
		return -1;
	}
	return 0;
}

/**
 * conf_local() - local mode: the pod has no default route to copy
 * @c:		configuration
 *
 * As passt since 2024-11, the guest still gets a link, an address by
 * DHCP and a gateway that answers: 169.254.2.1/16 (link-local, so that no
 * guest takes it for a way out), the gateway 169.254.2.2, which stands
 * for the pod's loopback unless --map-host-loopback says otherwise, so
 * that the guest reaches what the pod serves there, and inbound
 * forwarding works as ever.  IPv6, as passt's: no address, the gateway
 * fe80::1, which stands for the pod's ::1, and inbound flows go to the
 * link-local address the guest speaks from; no prefix in router
 * advertisements and no DHCPv6, with no address to give.
 */
static void conf_local(struct conf *c, bool v6)
{
	c->local_mode = true;
	c->v4 = true;
	c->v6 = v6;
	c->addr4.s_addr = htonl(0xa9fe0201);	/* 169.254.2.1 */
	c->gw4.s_addr = htonl(0xa9fe0202);	/* 169.254.2.2 */
	c->prefix4 = 16;
	memset(&c->addr6, 0, sizeof(c->addr6));
	memset(&c->gw6, 0, sizeof(c->gw6));
	c->prefix6 = 0;
	if (!c->map_host_lo4) {
		c->host_lo4 = c->gw4;
		c->map_host_lo4 = true;
	}
	if (v6) {
		c->gw6.s6_addr[0] = 0xfe;
		c->gw6.s6_addr[1] = 0x80;
		c->gw6.s6_addr[15] = 1;		/* fe80::1 */
		c->our_ll6 = c->gw6;
		c->no_dhcpv6 = true;
		if (!c->map_host_lo6) {
			c->host_lo6 = c->gw6;
			c->map_host_lo6 = true;
		}
	}
	warn("no default route in the pod: local mode, the guest gets "
	     "169.254.2.1/16 and a gateway, 169.254.2.2, that stands for the "
	     "pod's loopback%s", v6 ? "; for IPv6, fe80::1 for ::1" : "");
}

/**
 * conf_addresses() - fill addresses from the template, pick families
 * @c:		configuration after the command line
 * @st:		command line state
 *
 * A family is enabled when it is wanted (no -4 or -6 against it) and an
 * address of it is known, given or found.
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_addresses(struct conf *c, const struct conf_state *st)
{
	bool addr4_given = c->addr4.s_addr;

	c->v4 = !st->v6_only;
	c->v6 = !st->v4_only;
	if (conf_need_template(c) && nl_template(c))
		return -1;

	/* An IPv6-only pod may still have IPv4 addresses: no use without
	 * a route, and no reason to fail either, unless -a asked for IPv4
	 */
	if (c->v4 && c->addr4.s_addr && !c->gw4.s_addr && !addr4_given &&
	    c->v6 && !IN6_IS_ADDR_UNSPECIFIED(&c->addr6)) {
		warn("no IPv4 default route on %s: IPv4 disabled", c->ifname);
		c->v4 = false;
	}
	c->v4 = c->v4 && c->addr4.s_addr;
	c->v6 = c->v6 && !IN6_IS_ADDR_UNSPECIFIED(&c->addr6);
	if (!c->v4 && !c->v6 && !addr4_given && !*c->ifname &&
	    !st->v6_only && !c->gw4.s_addr && c->prefix4 < 0) {
		conf_local(c, !st->v4_only);
		return 0;
	}
	if (!c->v4 && !c->v6) {
		if (*c->ifname)
			fprintf(stderr, "netshim: no usable addresses on %s; give -a\n",
				c->ifname);
		else
			fprintf(stderr, "netshim: no default route found; give -i, or -a with -n and -g\n");
		return -1;
	}

	if (c->v4 && conf_finish_v4(c))
		return -1;
	if (c->v6 && conf_finish_v6(c))
		return -1;
	if (!c->v4) {
		memset(&c->addr4, 0, sizeof(c->addr4));
		memset(&c->gw4, 0, sizeof(c->gw4));
		c->prefix4 = 0;
	}
	if (!c->v6) {
		memset(&c->addr6, 0, sizeof(c->addr6));
		memset(&c->gw6, 0, sizeof(c->gw6));
		c->prefix6 = 0;
	}
	return 0;
}

/**
 * conf_mtu() - settle the MTU
 * @c:		configuration: c->mtu from -m, or 0
 *
 * Without -m, a VM gets the largest MTU, whatever the pod's interface has,
 * as passt does: its link ends at netshim, whose TCP goes through the
 * pod's sockets (segmented by the pod's kernel for the pod's link), and
 * each frame to or from the guest costs about the same whatever its size,
 * so fewer, larger frames move more.  A namespace (namespace mode) gets
 * the pod interface's MTU instead: at 65520 its uploads measured a third
 * slower and its downloads no faster (both measured in the man page).
 */
static void conf_mtu(struct conf *c)
{
	if (!c->mtu && conf_ns_mode(c) && c->tmpl_mtu)
		c->mtu = c->tmpl_mtu;
	if (!c->mtu || c->mtu > MTU_MAX)
		c->mtu = MTU_MAX;
	if (c->mtu < MTU_MIN)
		c->mtu = MTU_MIN;
	if (c->v6 && c->mtu < 1280)
		warn("MTU %u is below IPv6's minimum of 1280", c->mtu);
}

/**
 * conf_ephemeral() - leave the pod's ephemeral ports out of -t/-u "all"
 * @c:		configuration
 *
 * Bound by forwarding listeners, they would be taken from the pod's own
 * outbound connections and flows, netshim's included: with a descriptor
 * limit as high as containerd's default (1048576), "-u all" binds every
 * UDP port, and then no guest UDP flow whose source port the pod has not
 * free, nor any pod process, gets a port at all.  passt leaves them out
 * the same way.  The range is the pod's net.ipv4.ip_local_port_range,
 * which the kernel applies to IPv6 too; unreadable, nothing is left out.
 */
static void conf_ephemeral(struct conf *c)
{
	unsigned int first, last;
	FILE *f;
	int n;

	f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	if (!f)
		return;
	n = fscanf(f, "%u %u", &first, &last);
	fclose(f);
	if (n != 2 || !first || first > last || last > 65535)
		return;
	c->tcp_fwd.eph_first = c->udp_fwd.eph_first = (uint16_t)first;
	c->tcp_fwd.eph_last = c->udp_fwd.eph_last = (uint16_t)last;
}

/**
 * conf_names() - DNS servers and search domains from resolv.conf for
 *		  what the command line did not give
 * @c:		configuration
 * @st:		command line state
 */
static void conf_names(struct conf *c, const struct conf_state *st)
{
	struct conf saved;

	if (st->dns && st->search)
		return;

	memcpy(saved.dns4, c->dns4, sizeof(c->dns4));
	memcpy(saved.dns6, c->dns6, sizeof(c->dns6));
	memcpy(saved.search, c->search, sizeof(c->search));
	saved.n_dns4 = c->n_dns4;
	saved.n_dns6 = c->n_dns6;
	saved.n_search = c->n_search;

	if (resolv_read(c, RESOLV_CONF))
		warn("cannot read %s: %s; no DNS from it", RESOLV_CONF,
		     strerror(errno));

	if (st->dns) {
		memcpy(c->dns4, saved.dns4, sizeof(c->dns4));
		memcpy(c->dns6, saved.dns6, sizeof(c->dns6));
		c->n_dns4 = saved.n_dns4;
		c->n_dns6 = saved.n_dns6;
	}
	if (st->search) {
		memcpy(c->search, saved.search, sizeof(c->search));
		c->n_search = saved.n_search;
	}
}

/**
 * conf_map_gw() - --map-gw: the gateway stands for the pod's loopback
 * @c:		configuration, addresses complete
 *
 * passt's default: guest traffic to the gateway goes to the host.  The
 * same as --map-host-loopback with the gateway's address, for a family
 * that --map-host-loopback did not map already, a link-local IPv6
 * gateway (netshim's own link-local address then) too, as passt maps it.
 */
static void conf_map_gw(struct conf *c)
{
	if (c->v4 && !c->map_host_lo4) {
		c->host_lo4 = c->gw4;
		c->map_host_lo4 = true;
	}
	if (c->v6 && !c->map_host_lo6) {
		c->host_lo6 = c->gw6;
		c->map_host_lo6 = true;
	}
}

/**
 * conf_copy_what() - what --config-net copies from the template, as pasta:
 *		      every address and route of a family, unless
 *		      --no-copy-addrs, --no-copy-routes, or -a or -g gave
 *		      that family's own
 * @c:		configuration after the command line, before the template
 * @st:		command line state
 */
static void conf_copy_what(struct conf *c, const struct conf_state *st)
{
	struct conf_copy *cp = &c->ns_copy;

	cp->addrs4 = !st->no_copy_addrs && !c->addr4.s_addr;
	cp->addrs6 = !st->no_copy_addrs && IN6_IS_ADDR_UNSPECIFIED(&c->addr6);
	cp->routes4 = !st->no_copy_routes && !c->gw4.s_addr;
	cp->routes6 = !st->no_copy_routes && IN6_IS_ADDR_UNSPECIFIED(&c->gw6);
}

/**
 * conf_pod() - fill in from the pod what the command line left unsaid
 * @c:		configuration after the command line
 * @st:		command line state
 *
 * The template interface (netlink) for the addresses, prefixes, gateways
 * and MTU, and with --config-net what it copies; the pod's ephemeral
 * ports; resolv.conf for DNS.
 *
 * Return: 0 on success, -1 on error (reported on stderr)
 */
int conf_pod(struct conf *c, const struct conf_state *st)
{
	conf_copy_what(c, st);
	if (conf_addresses(c, st))
		return -1;
	if (conf_ns_mode(c) && c->config_net && !c->local_mode &&
	    c->ifindex && nl_template_copy(c))
		return -1;
	if (st->map_gw)
		conf_map_gw(c);
	conf_mtu(c);
	conf_ephemeral(c);
	conf_names(c, st);
	/* A namespace shares the pod's resolv.conf: pasta hands it none, so
	 * that its DHCP client leaves that file as it is
	 */
	if (st->dhcp_dns == CONF_HAND_NO ||
	    (st->dhcp_dns == CONF_HAND_DEFAULT && conf_ns_mode(c)))
		c->n_dns4 = c->n_dns6 = 0;
	if (st->dhcp_search == CONF_HAND_NO ||
	    (st->dhcp_search == CONF_HAND_DEFAULT && conf_ns_mode(c)))
		c->n_search = 0;
	return 0;
}
