// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - test hooks: what the integration tests may ask of the daemon
 *	     that no user may
 *
 * Linked into build/netshim-allocguard only, which the integration tests
 * run against; build/netshim has none of this.  Each hook is a weak
 * symbol of the daemon, called if linked.
 */
#include <stdlib.h>

unsigned int netshim_test_sockmap_delay_ms(void);

/**
 * netshim_test_sockmap_delay_ms() - how long tcp/splice.c waits between
 *				     the last check of a local flow and its
 *				     move to the sockmap
 *
 * t_netns_sockmap.sh sets NETSHIM_TEST_SOCKMAP_DELAY_MS, so that bytes do
 * arrive in between, as they may by chance.
 *
 * Return: milliseconds, at most 1000; 0 without the variable
 */
unsigned int netshim_test_sockmap_delay_ms(void)
{
	const char *env = getenv("NETSHIM_TEST_SOCKMAP_DELAY_MS");

	return env ? (unsigned int)strtoul(env, NULL, 10) % 1001 : 0;
}
