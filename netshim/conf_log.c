// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the configuration in the log, as an operator needs to see it
 *
 * One summary at start: where the guest's names, addresses and routes came
 * from and what they are, what is forwarded, and what of passt's defaults
 * netshim does otherwise.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "conf.h"
#include "fwdspec.h"
#include "log.h"

/**
 * conf_log_names() - log DNS servers and search domains
 * @c:		configuration
 */
static void conf_log_names(const struct conf *c)
{
	char buf[1024], a[INET6_ADDRSTRLEN];
	size_t len = 0;
	int i;

	*buf = '\0';
	for (i = 0; i < c->n_dns4; i++)
		log_buf_add(buf, sizeof(buf), &len, " %s",
			inet_ntop(AF_INET, &c->dns4[i], a, sizeof(a)));
	for (i = 0; i < c->n_dns6; i++)
		log_buf_add(buf, sizeof(buf), &len, " %s",
			inet_ntop(AF_INET6, &c->dns6[i], a, sizeof(a)));
	info("DNS:%s", len ? buf : " none");

	len = 0;
	*buf = '\0';
	for (i = 0; i < c->n_search; i++)
		log_buf_add(buf, sizeof(buf), &len, " %s", c->search[i]);
	info("DNS search:%s", len ? buf : " none");
}

/**
 * conf_log_addresses() - log what the guest is given, per family
 * @c:		configuration
 */
static void conf_log_addresses(const struct conf *c)
{
	char a[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN], l[INET6_ADDRSTRLEN];

	if (c->v4)
		info("IPv4: address %s/%d, gateway %s",
		     inet_ntop(AF_INET, &c->addr4, a, sizeof(a)), c->prefix4,
		     inet_ntop(AF_INET, &c->gw4, g, sizeof(g)));
	else
		info("IPv4: disabled");
	if (c->v6 && IN6_IS_ADDR_UNSPECIFIED(&c->addr6))
		info("IPv6: no address but the guest's link-local one, "
		     "gateway %s", inet_ntop(AF_INET6, &c->gw6, g, sizeof(g)));
	else if (c->v6)
		info("IPv6: address %s/%d, gateway %s, our link-local %s",
		     inet_ntop(AF_INET6, &c->addr6, a, sizeof(a)), c->prefix6,
		     inet_ntop(AF_INET6, &c->gw6, g, sizeof(g)),
		     inet_ntop(AF_INET6, &c->our_ll6, l, sizeof(l)));
	else
		info("IPv6: disabled");
	if (c->map_host_lo4)
		info("guest traffic to %s goes to the pod's 127.0.0.1",
		     inet_ntop(AF_INET, &c->host_lo4, a, sizeof(a)));
	if (c->map_host_lo6)
		info("guest traffic to %s goes to the pod's ::1",
		     inet_ntop(AF_INET6, &c->host_lo6, a, sizeof(a)));
}

/**
 * conf_log_passt() - log what passt's options changed, when given
 * @c:		configuration
 */
static void conf_log_passt(const struct conf *c)
{
	char a[INET6_ADDRSTRLEN];

	if (*c->hostname || *c->fqdn)
		info("guest host name: %s, FQDN: %s",
		     *c->hostname ? c->hostname : "none",
		     *c->fqdn ? c->fqdn : "none");
	if (c->out4_set || *c->out_if4)
		info("IPv4 outbound sockets: from %s, interface %s",
		     c->out4_set ? inet_ntop(AF_INET, &c->out4, a, sizeof(a)) :
				   "any",
		     *c->out_if4 ? c->out_if4 : "any");
	if (c->out6_set || *c->out_if6)
		info("IPv6 outbound sockets: from %s, interface %s",
		     c->out6_set ? inet_ntop(AF_INET6, &c->out6, a, sizeof(a)) :
				   "any",
		     *c->out_if6 ? c->out_if6 : "any");
	if (c->no_tcp || c->no_udp || c->no_icmp)
		info("guest traffic dropped:%s%s%s", c->no_tcp ? " TCP" : "",
		     c->no_udp ? " UDP (but DHCP)" : "",
		     c->no_icmp ? " ICMP echo" : "");
}

/**
 * conf_log_summary() - log the configuration an operator needs to see
 * @c:		configuration
 */
void conf_log_summary(const struct conf *c)
{
	const uint8_t *m = c->guest_mac;
	char buf[1024];

	if (*c->ifname)
		info("template interface: %s (index %u)", c->ifname,
		     c->ifindex);
	else if (c->local_mode)
		info("template interface: none (local mode)");
	else
		info("template interface: none, all given on the command line");
	info("MTU: %u", c->mtu);
	if (c->guest_mac_set)
		info("guest MAC: %02x:%02x:%02x:%02x:%02x:%02x",
		     m[0], m[1], m[2], m[3], m[4], m[5]);
	conf_log_addresses(c);
	conf_log_names(c);
	conf_log_passt(c);
	fwdspec_format(&c->tcp_fwd, buf, sizeof(buf));
	info("TCP ports forwarded: %s", buf);
	fwdspec_format(&c->udp_fwd, buf, sizeof(buf));
	info("UDP ports forwarded: %s", buf);
}
