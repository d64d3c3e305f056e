// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: ip4_parse(), ip6_parse(), ip_l4_csum_ok()
 *
 * The input is an Ethernet payload.  Both parsers see it (each must reject
 * the other's version); what they accept must point inside the input, and
 * the checksum of what they accept is computed over it.
 */
#include "common.h"
#include "net/ip.h"

/**
 * check_l4() - the layer-4 view lies inside the packet; checksum it
 * @p:		packet given to the parser
 * @m:		what the parser learnt
 * @l4:		layer-4 view the parser returned
 */
static void check_l4(const struct pkt *p, const struct l4_meta *m,
		     const struct pkt *l4)
{
	FUZZ_CHECK(l4->data >= p->data);
	FUZZ_CHECK(l4->data <= p->data + p->len);
	FUZZ_CHECK(l4->len <= (size_t)(p->data + p->len - l4->data));
	ip_l4_csum_ok(m, l4);
}

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
 * LLVMFuzzerTestOneInput() - parse one packet as IPv4 and as IPv6
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pkt p = { data, size };
	struct l4_meta m;
	struct pkt l4;
	int rc;

	rc = ip4_parse(&p, &m, &l4);
	FUZZ_CHECK(rc <= 0 && rc >= -3);
	if (!rc) {
		FUZZ_CHECK(!m.v6 && size >= IP4_HLEN);
		check_l4(&p, &m, &l4);
	}

	rc = ip6_parse(&p, &m, &l4);
	FUZZ_CHECK(rc <= 0 && rc >= -2);
	if (!rc) {
		FUZZ_CHECK(m.v6 && size >= IP6_HLEN);
		check_l4(&p, &m, &l4);
	}
	return 0;
}
