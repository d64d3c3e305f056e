/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - read the pod's template interface through rtnetlink, and the
 * request-and-replies exchange every netlink user of netshim shares: the
 * rtnetlink socket, requests and links of nsconf.c are made here too
 */
#ifndef NETSHIM_NETLINK_H
#define NETSHIM_NETLINK_H

#include <stdint.h>
#include <libmnl/libmnl.h>

#include "conf.h"

/**
 * struct nl_ctx - an open rtnetlink socket
 * @sock:	libmnl socket
 * @portid:	our port id, to match replies
 * @seq:	sequence number of the last request
 */
struct nl_ctx {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
};

/**
 * struct nl_link - interface name and MTU
 * @ifindex:	interface index, from the reply
 * @name:	interface name, from the reply
 * @mtu:	MTU, 0 if not reported
 */
struct nl_link {
	unsigned int ifindex;
	char name[IF_NAMESIZE];
	unsigned int mtu;
};

int nl_open(struct nl_ctx *nl);
struct nlmsghdr *nl_put_request(struct nl_ctx *nl, char *buf,
				uint16_t type, uint16_t flags);
int nl_exchange(int fd, const struct nlmsghdr *nlh, unsigned int portid,
		mnl_cb_t cb, void *data);
int nl_run(struct nl_ctx *nl, const struct nlmsghdr *nlh,
	   mnl_cb_t cb, void *data);
int nl_link(struct nl_ctx *nl, unsigned int ifindex, const char *name,
	    struct nl_link *l);
struct in6_addr nl_inany(int family, const void *src);
int nl_template(struct conf *c);
int nl_template_copy(struct conf *c);

#endif /* NETSHIM_NETLINK_H */
