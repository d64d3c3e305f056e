// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: tcp_seg_parse(), header and SYN options
 *
 * The input is a TCP header and payload, as ip4_parse() hands it on.
 */
#include "common.h"
#include "tcp/segment.h"

/**
 * LLVMFuzzerInitialize() - nothing to set up
 * @argc:	libFuzzer's arguments, unused
 * @argv:	libFuzzer's arguments, unused
 *
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/**
 * LLVMFuzzerTestOneInput() - parse one segment, check what was accepted
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pkt l4 = { data, size };
	struct tcp_seg s;
	int rc;

	rc = tcp_seg_parse(&l4, &s);
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc)
		return 0;
	FUZZ_CHECK(size >= TCP_HLEN);
	FUZZ_CHECK(s.sport && s.dport);
	FUZZ_CHECK(!(s.flags & ~0x3f));
	FUZZ_CHECK(!s.has_ws || s.ws <= 14);
	FUZZ_CHECK(s.payload.data >= data + TCP_HLEN);
	FUZZ_CHECK(s.payload.data + s.payload.len == data + size);
	return 0;
}
