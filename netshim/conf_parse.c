// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the whole configuration, built in order
 *
 * The command line (conf.c) first, the command or PID after it checked
 * against namespace mode's rules (conf_ns.c); then what it left unsaid,
 * from the pod (conf_pod.c); then a free socket path, and the upgrade's
 * and the repair helper's paths next to it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "conf.h"
#include "conf_internal.h"
#include "conf_ns.h"
#include "conf_pod.h"

/* Default socket paths tried, netshim-1.socket to this one */
#define SOCK_INDEX_MAX		1024

/**
 * conf_sock_path() - pick a free default socket path
 * @c:		configuration, c->sock_path set on success
 *
 * Return: 0 on success, -1 if none is free (reported)
 */
static int conf_sock_path(struct conf *c)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int i, n;

	if (!dir || !*dir || access(dir, W_OK))
		dir = "/tmp";

	for (i = 1; i <= SOCK_INDEX_MAX; i++) {
		n = snprintf(c->sock_path, sizeof(c->sock_path),
			     "%s/netshim-%d.socket", dir, i);
		if (n < 0 || n >= (int)sizeof(c->sock_path)) {
			dir = "/tmp";
			i = 0;
			continue;
		}
		if (lstat(c->sock_path, &st) && errno == ENOENT)
			return 0;
	}
	fprintf(stderr, "netshim: no free socket path in %s; give -s\n", dir);
	return -1;
}

/**
 * conf_upgrade_check() - what an upgrade in place needs of the command line
 * @c:		configuration after the command line
 *
 * The new netshim finds the running one at its --upgrade-path, named, or
 * next to the socket named: a default socket path is the first free one,
 * never the one in use.  A command netshim started (-- COMMAND) is its
 * child, and ends with it: such a netshim cannot hand over.
 *
 * Return: 0 if fine, -1 if not (reported)
 */
static int conf_upgrade_check(const struct conf *c)
{
	if (c->ns_cmd && (c->upgrade || *c->upgrade_path)) {
		fprintf(stderr, "netshim: --upgrade%s: a command netshim starts (-- COMMAND) ends with it, so it cannot hand over; serve its namespace with --netns\n",
			c->upgrade ? "" : "-path");
		return -1;
	}
	if (!c->upgrade)
		return 0;
	if (c->vmm_fd >= 0) {
		fprintf(stderr, "netshim: --upgrade takes the VMM connection from the running netshim: give --upgrade-path instead of --fd\n");
		return -1;
	}
	if (!*c->sock_path && !*c->upgrade_path) {
		fprintf(stderr, "netshim: --upgrade: give the running netshim's socket (-s) or its --upgrade-path\n");
		return -1;
	}
	return 0;
}

/**
 * conf_upgrade_path() - where a new netshim takes over from this one
 * @c:		configuration, the socket path picked
 *
 * Next to the socket, as the repair helper's: PATH.upgrade.  None if
 * that is too long for a UNIX socket: --upgrade-path names one then.
 */
static void conf_upgrade_path(struct conf *c)
{
	if (*c->upgrade_path || !*c->sock_path)
		return;
	if ((size_t)snprintf(c->upgrade_path, sizeof(c->upgrade_path),
			     "%s.upgrade", c->sock_path) >=
	    sizeof(c->upgrade_path))
		*c->upgrade_path = 0;
}

/**
 * conf_parse() - build the whole configuration
 * @c:		configuration, filled completely
 * @argc:	argument count
 * @argv:	arguments
 *
 * Command line first; then the pod (conf_pod()) for the addresses,
 * prefixes, gateways and MTU it did not give, and resolv.conf for DNS;
 * then a free socket path.
 *
 * Return: 0 on success, -1 on error (reported on stderr); exits with 0
 *	   after --help or --version
 */
int conf_parse(struct conf *c, int argc, char **argv)
{
	struct conf_state st = { 0 };

	conf_defaults(c);
	if (conf_getopt(c, &st, argc, argv) ||
	    conf_ns_check(c, &st, st.dashes))
		return -1;
	if (conf_pod(c, &st))
		return -1;
	if (conf_upgrade_check(c))
		return -1;
	/* Taking over, the socket is the running netshim's, if it has one */
	if (c->vmm_fd < 0 && !*c->sock_path && !conf_ns_mode(c) &&
	    !c->upgrade && conf_sock_path(c))
		return -1;
	conf_upgrade_path(c);
	/* The repair helper's socket, where passt has it: PATH.repair */
	if (c->vhost_user && !*c->repair_path && *c->sock_path &&
	    (size_t)snprintf(c->repair_path, sizeof(c->repair_path),
			     "%s.repair", c->sock_path) >= sizeof(c->repair_path))
		*c->repair_path = 0;
	if (!c->vhost_user)
		*c->repair_path = 0;
	return 0;
}
