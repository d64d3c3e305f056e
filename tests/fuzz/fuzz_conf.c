// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: fwdspec_parse(), the -t and -u port specs
 *
 * The input is one or more specs, one a line, parsed into the same
 * forwarding spec as repeated -t options are; then every port is looked
 * up.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "netshim/fwdspec.h"

#define SPEC_MAX	4096

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
 * check_rules() - what was parsed is within bounds
 * @spec:	forwarding spec
 */
static void check_rules(const struct fwd_spec *spec)
{
	int i;

	FUZZ_CHECK(spec->n >= 0 && spec->n <= CONF_MAX_FWD);
	for (i = 0; i < spec->n; i++) {
		FUZZ_CHECK(spec->rule[i].first <= spec->rule[i].last);
		FUZZ_CHECK(memchr(spec->rule[i].bind, '\0',
				  sizeof(spec->rule[i].bind)));
		FUZZ_CHECK(memchr(spec->rule[i].dev, '\0',
				  sizeof(spec->rule[i].dev)));
	}
}

/**
 * check_lookup() - a forwarded port goes to a real guest port
 * @spec:	forwarding spec
 * @port:	pod port
 */
static void check_lookup(const struct fwd_spec *spec, uint32_t port)
{
	uint16_t to;

	if (port <= 65535 && fwdspec_lookup(spec, (uint16_t)port, &to))
		FUZZ_CHECK(to != 0);
}

/**
 * check_lookups() - look up the ports where rules begin and end
 * @spec:	forwarding spec
 *
 * Every port would be slow; the edges of each rule are where an
 * off-by-one would be.
 */
static void check_lookups(const struct fwd_spec *spec)
{
	const struct fwd_rule *r;
	int i;

	check_lookup(spec, 1);
	check_lookup(spec, 65535);
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		check_lookup(spec, r->first - 1u);
		check_lookup(spec, r->first);
		check_lookup(spec, r->last);
		check_lookup(spec, r->last + 1u);
	}
}

/**
 * LLVMFuzzerTestOneInput() - parse each line of the input as a spec
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fwd_spec spec;
	char *buf, *line, *next;

	/* A copy of the exact size: ASan sees a read past the NUL */
	if (size > SPEC_MAX)
		return 0;
	buf = malloc(size + 1);
	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	buf[size] = '\0';
	memset(&spec, 0, sizeof(spec));

	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		fwdspec_parse(&spec, line);
		check_rules(&spec);
	}
	check_lookups(&spec);
	free(buf);
	return 0;
}
