/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - read the pod's template interface through rtnetlink, and the
 * request-and-replies exchange every netlink user of netshim shares
 */
#ifndef NETSHIM_NETLINK_H
#define NETSHIM_NETLINK_H

#include <stdint.h>
#include <libmnl/libmnl.h>

#include "conf.h"

int nl_exchange(int fd, const struct nlmsghdr *nlh, unsigned int portid,
		mnl_cb_t cb, void *data);
int nl_template(struct conf *c);
int nl_template_copy(struct conf *c);
int nl_ns_configure(const struct conf *c, const char *ifname,
		    const uint8_t *mac);

#endif /* NETSHIM_NETLINK_H */
