/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - what the configuration's files share and no other file needs:
 * the MTU's bounds, what the command line said beyond struct conf
 * (conf.c fills it in, conf_ns.c and conf_pod.c read it), and the steps
 * conf_parse.c takes
 */
#ifndef NETSHIM_CONF_INTERNAL_H
#define NETSHIM_CONF_INTERNAL_H

#include <stdbool.h>

#define MTU_MIN			68
#define MTU_MAX			65520

/**
 * enum conf_hand - whether something is handed to the guest by DHCP and NDP
 * @CONF_HAND_DEFAULT:	not said: yes for a VM, no for a namespace
 * @CONF_HAND_YES:	--dhcp-dns, --dhcp-search
 * @CONF_HAND_NO:	--no-dhcp-dns, --no-dhcp-search
 */
enum conf_hand {
	CONF_HAND_DEFAULT = 0,
	CONF_HAND_YES,
	CONF_HAND_NO,
};

/**
 * struct conf_state - what the command line said, beyond struct conf
 * @v4_only:	-4 given
 * @v6_only:	-6 given
 * @dns:	-D given: resolv.conf nameservers are not used
 * @search:	-S given: resolv.conf search domains are not used
 * @map_gw:	--map-gw: the gateway stands for the pod's loopback
 * @dhcp_dns:	DNS servers handed to the guest: CONF_HAND_DEFAULT,
 *		--dhcp-dns (CONF_HAND_YES) or --no-dhcp-dns (CONF_HAND_NO)
 * @dhcp_search:	the search list, likewise
 * @no_copy_routes:	--no-copy-routes
 * @no_copy_addrs:	--no-copy-addrs
 * @dashes:	the options ended with "--"
 */
struct conf_state {
	bool v4_only, v6_only;
	bool dns, search;
	bool map_gw;
	enum conf_hand dhcp_dns, dhcp_search;
	bool no_copy_routes, no_copy_addrs;
	bool dashes;
};

struct conf;
void conf_defaults(struct conf *c);
int conf_getopt(struct conf *c, struct conf_state *st, int argc,
		char **argv);

#endif /* NETSHIM_CONF_INTERNAL_H */
