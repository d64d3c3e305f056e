// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: dhcp4_reply(), DHCPv4 parsing and reply building
 *
 * The input is a UDP payload sent to port 67.  The reply goes to a heap
 * buffer of exactly the size udp.c gives it, so ASan sees any write past
 * the end.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dhcp/dhcp.h"

#define REPLY_SIZE	1500	/* as udp_local_input() */

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
 * LLVMFuzzerTestOneInput() - answer one DHCPv4 message
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pkt msg = { data, size };
	struct dhcp4_dest dest;
	size_t len;

	len = dhcp4_reply(&conf, &msg, out, REPLY_SIZE, &dest);
	FUZZ_CHECK(len <= REPLY_SIZE);
	if (len) {
		/* a BOOTREPLY (op 2) with the client's transaction ID */
		FUZZ_CHECK(len >= 240 && out[0] == 2);
		FUZZ_CHECK(size >= 8 && !memcmp(out + 4, data + 4, 4));
	}
	return 0;
}
