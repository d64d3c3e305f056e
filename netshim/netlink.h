/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - read the pod's template interface through rtnetlink
 */
#ifndef NETSHIM_NETLINK_H
#define NETSHIM_NETLINK_H

#include "conf.h"

int nl_template(struct conf *c);

#endif /* NETSHIM_NETLINK_H */
