// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: dhcp6_reply(), DHCPv6 parsing and reply building
 *
 * The input is a UDP payload sent to port 547.  The reply goes to a heap
 * buffer of exactly the size udp.c gives it, so ASan sees any write past
 * the end.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dhcp/dhcp.h"

#define REPLY_SIZE	1400	/* as udp_local_input() */

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
 * LLVMFuzzerTestOneInput() - answer one DHCPv6 message
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pkt msg = { data, size };
	size_t len;

	len = dhcp6_reply(&conf, &msg, out, REPLY_SIZE);
	FUZZ_CHECK(len <= REPLY_SIZE);
	if (len) {
		/* ADVERTISE or REPLY, with the client's transaction ID */
		FUZZ_CHECK(len >= 4 && (out[0] == 2 || out[0] == 7));
		FUZZ_CHECK(size >= 4 && !memcmp(out + 1, data + 1, 3));
	}
	return 0;
}
