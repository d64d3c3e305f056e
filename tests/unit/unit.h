/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - common includes for the cmocka unit tests
 */
#ifndef NETSHIM_UNIT_H
#define NETSHIM_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "netshim/conf.h"

/**
 * unit_a4() - an IPv4 address literal, parsed
 * @s:		dotted quad
 *
 * Return: the address
 */
static inline struct in_addr unit_a4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/**
 * unit_a6() - an IPv6 address literal, parsed
 * @s:		address text
 *
 * Return: the address
 */
static inline struct in6_addr unit_a6(const char *s)
{
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

/**
 * unit_conf() - the reference pod every test starts from
 * @c:		configuration, filled in
 *
 * The topology of tests/lib/topo.sh: the guest 203.0.113.2/24 and
 * 2001:db8:1::2/64, the gateway 203.0.113.1 and fe80::1, DNS at
 * 203.0.113.1 and 2001:db8:1::1, search netshim.test, MTU 1500, and
 * netshim's own MAC address.  A test that needs another changes it after.
 */
static inline void unit_conf(struct conf *c)
{
	static const uint8_t our_mac[6] = { 0x02, 0x6e, 0x73, 0x68, 0x69,
					    0x6d };

	memset(c, 0, sizeof(*c));
	c->v4 = true;
	c->addr4 = unit_a4("203.0.113.2");
	c->prefix4 = 24;
	c->gw4 = unit_a4("203.0.113.1");
	c->dns4[0] = unit_a4("203.0.113.1");
	c->n_dns4 = 1;
	c->v6 = true;
	c->addr6 = unit_a6("2001:db8:1::2");
	c->prefix6 = 64;
	c->gw6 = unit_a6("fe80::1");
	c->our_ll6 = unit_a6("fe80::1");
	c->dns6[0] = unit_a6("2001:db8:1::1");
	c->n_dns6 = 1;
	strcpy(c->search[0], "netshim.test");
	c->n_search = 1;
	c->mtu = 1500;
	memcpy(c->our_mac, our_mac, sizeof(our_mac));
}

#endif
