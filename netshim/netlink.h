/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - read the pod's template interface through rtnetlink
 */
#ifndef NETSHIM_NETLINK_H
#define NETSHIM_NETLINK_H

#include <stdint.h>

#include "conf.h"

int nl_template(struct conf *c);
int nl_ns_configure(const struct conf *c, const char *ifname,
		    const uint8_t *mac);

#endif /* NETSHIM_NETLINK_H */
