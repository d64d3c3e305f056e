/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - configure the served namespace through rtnetlink
 */
#ifndef NETSHIM_NSCONF_H
#define NETSHIM_NSCONF_H

#include <stdint.h>

#include "conf.h"

int nl_ns_configure(const struct conf *c, const char *ifname,
		    const uint8_t *mac);

#endif /* NETSHIM_NSCONF_H */
