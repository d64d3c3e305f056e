// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: arp_reply()
 *
 * The input is an ARP packet (Ethernet payload).  The reply goes to a heap
 * buffer of exactly ARP_LEN bytes, so a write past it is reported.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "net/eth.h"

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
	out = fuzz_setup_reply(&conf, ARP_LEN);
	return 0;
}

/**
 * LLVMFuzzerTestOneInput() - answer one ARP packet
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pkt arp = { data, size };
	size_t len;

	len = arp_reply(&conf, &arp, out);
	FUZZ_CHECK(len == 0 || len == ARP_LEN);
	if (!len)
		return 0;
	/* Never claim the guest's own address, never answer a non-request */
	FUZZ_CHECK(size >= ARP_LEN && data[6] == 0 && data[7] == 1);
	FUZZ_CHECK(memcmp(out + 14, &conf.addr4, 4));
	FUZZ_CHECK(!memcmp(out + 8, conf.our_mac, 6));
	return 0;
}
