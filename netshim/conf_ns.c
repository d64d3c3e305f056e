// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the command line's rules of namespace mode
 *
 * Once conf.c has read the options and taken the command or PID after
 * them: which options go with namespace mode (a command after "--", a
 * PID, or --netns) and which with a VM, refused when they are mixed, and
 * the user's shell, as pasta starts it, when namespace mode's options
 * come with neither a command, a namespace nor a VMM.
 */
#include <stdio.h>
#include <stdlib.h>

#include "conf_ns.h"

/**
 * conf_fwd_has_rule() - tell if a spec names at least one port to forward
 * @spec:	forwarding spec
 *
 * Return: true if one of its rules is not an exclusion
 */
static bool conf_fwd_has_rule(const struct fwd_spec *spec)
{
	int i;

	for (i = 0; i < spec->n; i++)
		if (!spec->rule[i].exclude)
			return true;
	return false;
}

/**
 * conf_ns_fwd_check() - what -T or -U may be given
 * @c:		configuration, the command after "--" known
 * @spec:	the -T or -U spec
 * @opt:	"-T" or "-U", for the message
 *
 * Return: 0 if the spec is served, -1 if not (reported)
 */
static int conf_ns_fwd_check(const struct conf *c, const struct fwd_spec *spec,
			     const char *opt)
{
	int i;

	if (spec->all || (spec->n && !conf_fwd_has_rule(spec))) {
		fprintf(stderr, "netshim: %s takes a list of ports or auto: all and exclusions alone are not implemented yet\n",
			opt);
		return -1;
	}
	for (i = 0; i < spec->n; i++) {
		if (IN6_IS_ADDR_UNSPECIFIED(&spec->rule[i].to_addr))
			continue;
		fprintf(stderr, "netshim: %s: a target address is for -t and -u: %s forwards to the pod's loopback\n",
			opt, opt);
		return -1;
	}
	if ((spec->n || spec->follow) && !conf_ns_mode(c)) {
		fprintf(stderr, "netshim: %s needs --netns or a command after --\n",
			opt);
		return -1;
	}
	return 0;
}

/**
 * conf_vmm_given() - tell if the command line names a VMM's link
 * @c:		configuration after the options
 *
 * Return: true with --socket, --fd, --one-off or --vhost-user
 */
static bool conf_vmm_given(const struct conf *c)
{
	return *c->sock_path || c->one_off || c->vhost_user || c->vmm_fd >= 0;
}

/**
 * conf_ns_only_opt() - an option given that only namespace mode has
 * @c:		configuration after the options
 * @st:		command line state
 *
 * Return: its name, for messages; NULL if there is none
 */
static const char *conf_ns_only_opt(const struct conf *c,
				    const struct conf_state *st)
{
	return *c->ns_ifname ? "--ns-ifname" :
	       c->no_netns_quit ? "--no-netns-quit" :
	       c->netns_only ? "--netns-only" :
	       *c->userns ? "--userns" :
	       c->config_net ? "--config-net" :
	       st->no_copy_routes ? "--no-copy-routes" :
	       st->no_copy_addrs ? "--no-copy-addrs" :
	       c->host_lo_to_ns_lo ? "--host-lo-to-ns-lo" :
	       c->ns_mac_set ? "--ns-mac-addr" :
	       c->tcp_ns_fwd.n || c->tcp_ns_fwd.follow ? "-T" :
	       c->udp_ns_fwd.n || c->udp_ns_fwd.follow ? "-U" :
	       c->udp_fwd.follow ? "-u auto" : NULL;
}

/**
 * conf_ns_shell() - pasta's options and no command: the user's shell
 * @c:		configuration: c->ns_cmd set to $SHELL, or /bin/sh
 *
 * As pasta, a login shell in a new namespace; netns.c runs it.
 */
static void conf_ns_shell(struct conf *c)
{
	const char *sh = getenv("SHELL");

	c->shell_argv[0] = (char *)(sh && *sh ? sh : "/bin/sh");
	c->shell_argv[1] = NULL;
	c->ns_cmd = c->shell_argv;
	c->ns_shell = true;
}
/**
 * conf_ns_check() - namespace mode: what makes no sense without a VMM,
 *		     and what a VMM's command line cannot have
 * @c:		configuration, c->ns_cmd set if there is a command
 * @st:		command line state
 * @dashes:	the options ended with "--"
 *
 * Options of namespace mode alone, with neither a command, a namespace
 * nor a VMM, start the user's shell in a new namespace, as pasta does.
 *
 * Return: 0 on success, -1 on error (reported)
 */
int conf_ns_check(struct conf *c, const struct conf_state *st, bool dashes)
{
	if (!conf_ns_mode(c) && !conf_vmm_given(c) && conf_ns_only_opt(c, st))
		conf_ns_shell(c);
	if (c->ns_cmd && *c->netns) {
		fprintf(stderr, "netshim: --netns and a command exclude each other\n");
		return -1;
	}
	if (c->netns_only && *c->userns) {
		fprintf(stderr, "netshim: --netns-only and --userns exclude each other\n");
		return -1;
	}
	if (c->ns_cmd && (c->netns_only || *c->userns)) {
		fprintf(stderr, "netshim: %s is for --netns, not a command\n",
			c->netns_only ? "--netns-only" : "--userns");
		return -1;
	}
	if (conf_ns_fwd_check(c, &c->tcp_ns_fwd, "-T") ||
	    conf_ns_fwd_check(c, &c->udp_ns_fwd, "-U"))
		return -1;
	if (!conf_ns_mode(c)) {
		const char *opt = conf_ns_only_opt(c, st);

		/* -t auto for a VM is the sk_lookup program's (fwd.c) */
		if (opt) {
			fprintf(stderr, "netshim: %s needs --netns or a command after --%s\n",
				opt, c->udp_fwd.follow && opt[1] == 'u' ?
				" (for a VM, only -t auto is implemented)" : "");
			return -1;
		}
		return 0;
	}
	if (conf_vmm_given(c)) {
		/* A VMM's command line with a stray word in it */
		if (c->ns_cmd && !dashes) {
			fprintf(stderr, "netshim: unexpected argument '%s'\n",
				c->ns_cmd[0]);
			return -1;
		}
		fprintf(stderr, "netshim: --%s is for a VMM, not namespace mode\n",
			*c->sock_path ? "socket" : c->vmm_fd >= 0 ? "fd" :
			c->one_off ? "one-off" : "vhost-user");
		return -1;
	}
	/* The command's exit status is ours: wait for it in the foreground */
	if (c->ns_cmd)
		c->foreground = true;
	return 0;
}

