// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: ndp_reply(), Router and Neighbour Solicitations
 *
 * The input is the IPv6 source address (16 bytes), the destination address
 * (16 bytes), then the ICMPv6 message.  The reply goes to a heap buffer of
 * exactly the size icmp.c gives it.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ndp/ndp.h"

#define REPLY_SIZE	1280	/* NDP_MAX in icmp.c */

static const struct in6_addr all_nodes = {
	.s6_addr = { 0xff, 0x02, [15] = 1 }
};
static struct conf conf;
static uint8_t *out;

/**
 * LLVMFuzzerInitialize() - configuration and the reply buffer
 * @argc:	libFuzzer's arguments, unused
 * @argv:	libFuzzer's arguments, unused
 *
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	out = fuzz_setup_reply(&conf, REPLY_SIZE);
	return 0;
}

/**
 * LLVMFuzzerTestOneInput() - answer one solicitation
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in6_addr src, dst, reply_dst;
	struct pkt icmp;
	size_t len;

	if (size < 32)
		return 0;
	memcpy(&src, data, 16);
	memcpy(&dst, data + 16, 16);
	icmp.data = data + 32;
	icmp.len = size - 32;

	len = ndp_reply(&conf, &src, &dst, &icmp, out, REPLY_SIZE, &reply_dst);
	FUZZ_CHECK(len <= REPLY_SIZE);
	if (len) {
		/* an advertisement, back to the sender or to all nodes;
		 * never one that claims the guest's own address
		 */
		FUZZ_CHECK(out[0] == 134 || out[0] == 136);
		FUZZ_CHECK(IN6_ARE_ADDR_EQUAL(&reply_dst, &src) ||
			   IN6_ARE_ADDR_EQUAL(&reply_dst, &all_nodes));
		FUZZ_CHECK(out[0] != 136 || len < 24 ||
			   memcmp(out + 8, &conf.addr6, 16));
	}
	return 0;
}
