// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - what the libFuzzer targets share
 *
 * Every target sees the same pod: the addresses the integration tests use,
 * with DNS servers and search domains, so the reply builders write every
 * option they know.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "netshim/log.h"

/**
 * fuzz_conf_fill() - the configuration of a dual-stack pod, filled by hand
 * @c:		configuration, overwritten
 */
void fuzz_conf_fill(struct conf *c)
{
	static const uint8_t mac[ETH_ALEN_] = { 0x02, 0x6e, 0x73, 0x68, 0x69,
						0x6d };

	memset(c, 0, sizeof(*c));
	memcpy(c->our_mac, mac, sizeof(mac));
	strcpy(c->ifname, "eth0");
	c->ifindex = 2;
	c->mtu = 1500;

	c->v4 = true;
	inet_pton(AF_INET, "203.0.113.2", &c->addr4);
	inet_pton(AF_INET, "203.0.113.1", &c->gw4);
	c->prefix4 = 24;

	c->v6 = true;
	inet_pton(AF_INET6, "2001:db8:1::2", &c->addr6);
	inet_pton(AF_INET6, "fe80::1", &c->gw6);
	inet_pton(AF_INET6, "fe80::1", &c->our_ll6);
	c->prefix6 = 64;

	c->n_dns4 = 2;
	inet_pton(AF_INET, "198.51.100.53", &c->dns4[0]);
	inet_pton(AF_INET, "198.51.100.54", &c->dns4[1]);
	c->n_dns6 = 1;
	inet_pton(AF_INET6, "2001:db8:53::53", &c->dns6[0]);
	c->n_search = 2;
	strcpy(c->search[0], "pod.cluster.example");
	strcpy(c->search[1], "example");
	/* The Client FQDN options are built too, when a message asks */
	strcpy(c->hostname, "vm1");
	strcpy(c->fqdn, "vm1.pod.cluster.example");

	c->max_tcp = 64;
	c->max_flows = 64;
	c->udp_timeout = 180;
	c->ra_interval = 60;
}

/**
 * fuzz_logs_off() - send netshim's log messages to /dev/null
 *
 * Malformed input is logged by design; at thousands of inputs a second
 * that would drown libFuzzer's own reports.
 */
void fuzz_logs_off(void)
{
	log_open("/dev/null", true, true, false);
}

/**
 * fuzz_fail() - report a broken invariant and crash, so libFuzzer saves
 *		 the input
 * @file:	source file of the check
 * @line:	its line
 * @what:	the condition that did not hold
 */
void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

/**
 * fuzz_setup_reply() - the configuration, and a reply buffer of exactly the
 * size netshim gives the function under test, so ASan sees one byte more
 * @c:		configuration, filled in
 * @size:	reply buffer size
 *
 * Return: the buffer (never NULL)
 */
uint8_t *fuzz_setup_reply(struct conf *c, size_t size)
{
	uint8_t *out;

	fuzz_conf_fill(c);
	out = malloc(size);
	FUZZ_CHECK(out);
	return out;
}
