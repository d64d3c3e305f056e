// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: ctlwire_parse(), a control socket client's bytes
 *
 * The input is what a client sends after the greeting: pesto's rule
 * tables, or a line of netshim-ctl's.  Whatever it is, the parser must
 * say "more", "bad" with a reason, or a request within the input; tables
 * it takes are then checked as the server checks them (every
 * capability on, so that each check is reached) and turned into the
 * lookups' specs; and every byte before a whole request must read as
 * "more".  The same bytes are also read as a server's listing
 * (netshim-ctl's side).
 */
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "common.h"
#include "netshim/ctlwire.h"
#include "netshim/fwdtable.h"

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
 * check_tables() - what a whole update holds, checked as the server does
 * @req:	the update
 */
static void check_tables(struct ctl_req *req)
{
	static struct fwd_spec spec;
	char why[512];
	unsigned int i, j;

	FUZZ_CHECK(req->n <= CTL_PIFS_MAX);
	for (i = 0; i < req->n; i++) {
		struct ctl_table *t = &req->table[i];

		FUZZ_CHECK(t->pif != CTL_PIF_NONE && t->n <= CTL_RULES_MAX);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(req->table[j].pif != t->pif);
		for (j = 0; j < t->n; j++)
			FUZZ_CHECK(memchr(t->rule[j].ifname, '\0',
					  CTL_IFNAMSIZ));
		t->caps = CTL_CAP_IPV4 | CTL_CAP_IPV6 | CTL_CAP_TCP |
			  CTL_CAP_UDP | CTL_CAP_SCAN | CTL_CAP_IFNAME;
		why[0] = '\0';
		if (ctlwire_table_check(t, why, sizeof(why))) {
			FUZZ_CHECK(why[0]);
			continue;
		}
		/* A table the server takes: its rules hold */
		for (j = 0; j < t->n; j++) {
			FUZZ_CHECK(t->rule[j].first && t->rule[j].to &&
				   t->rule[j].first <= t->rule[j].last);
		}
		FUZZ_CHECK(!fwdtable_to_spec(t, IPPROTO_TCP, &spec));
		FUZZ_CHECK(!fwdtable_to_spec(t, IPPROTO_UDP, &spec));
	}
}

/**
 * LLVMFuzzerTestOneInput() - a client's bytes, parsed as the server does
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctl_table listed[CTL_PIFS_MAX];
	static struct ctl_req req, prefix;
	const char *why = NULL;
	size_t used = 0;
	unsigned int n;
	uint8_t *buf;
	int rc;

	if (size > CTL_UPDATE_LEN_MAX + 64)
		return 0;
	/* A copy of the exact size: ASan sees a read past its end */
	buf = malloc(size ? size : 1);
	FUZZ_CHECK(buf);
	memcpy(buf, data, size);

	ctlwire_parse(buf, size, &req);
	switch (req.kind) {
	case CTL_REQ_MORE:
		break;
	case CTL_REQ_BAD:
		FUZZ_CHECK(req.why && *req.why);
		break;
	case CTL_REQ_TEXT:
		FUZZ_CHECK(req.len && req.len <= size &&
			   buf[req.len - 1] == '\n');
		FUZZ_CHECK(memchr(req.verb, '\0', sizeof(req.verb)) &&
			   memchr(req.arg, '\0', sizeof(req.arg)));
		break;
	case CTL_REQ_RULES:
		FUZZ_CHECK(req.len && req.len <= size &&
			   buf[req.len - 1] == CTL_PIF_NONE);
		check_tables(&req);
		break;
	default:
		FUZZ_CHECK(0);
	}
	if (req.kind == CTL_REQ_TEXT || req.kind == CTL_REQ_RULES) {
		ctlwire_parse(buf, req.len - 1, &prefix);
		FUZZ_CHECK(prefix.kind == CTL_REQ_MORE);
	}

	rc = ctlwire_listing_parse(buf, size, listed, CTL_PIFS_MAX, &n, &used,
				   &why);
	FUZZ_CHECK(rc >= -1 && rc <= 1 && n <= CTL_PIFS_MAX);
	FUZZ_CHECK(rc != 1 || (used <= size && used > CTL_HELLO_LEN));
	FUZZ_CHECK(rc != -1 || why);
	free(buf);
	return 0;
}
