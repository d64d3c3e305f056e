// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - userspace network backend for virtual machines in pods
 *
 * static/mnl.c - the functions of libmnl's API that netshim calls, for the
 * statically linked build (make static) only
 *
 * Debian ships libmnl as a shared library alone (libmnl-dev has no
 * libmnl.a), and the static binary must run in launcher images that have
 * no libmnl.so.0.  netshim uses a small part of that API, so the static
 * build links these definitions in its place; they follow the declarations
 * and the documented behaviour of <libmnl/libmnl.h> (return values, errno),
 * so that netshim/netlink.c and net/portwatch.c are the same source in
 * both builds; tests/unit/test_mnl.c compares the two on the same inputs.
 * Two differences are meant: the padding after an attribute is zeroed,
 * and attributes are read up to their message's length, never past it.
 * The dynamic build never compiles this file: it links the system's
 * libmnl.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>

/**
 * struct mnl_socket - a netlink socket and the address it is bound to
 * @fd:		socket
 * @addr:	local address, with the port id the kernel gave
 */
struct mnl_socket {
	int fd;
	struct sockaddr_nl addr;
};

/**
 * mnl_socket_open() - open a netlink socket
 * @bus:	netlink protocol (NETLINK_ROUTE, NETLINK_SOCK_DIAG...)
 *
 * Called at start-up only, before the loop's no-allocation rule applies.
 *
 * Return: the socket, NULL with errno set on failure
 */
struct mnl_socket *mnl_socket_open(int bus)
{
	struct mnl_socket *nl = calloc(1, sizeof(*nl));

	if (!nl)
		return NULL;
	nl->fd = socket(AF_NETLINK, SOCK_RAW, bus);
	if (nl->fd < 0) {
		free(nl);
		return NULL;
	}
	return nl;
}

/**
 * mnl_socket_bind() - bind a netlink socket, and learn its port id
 * @nl:		socket
 * @groups:	multicast groups to join
 * @pid:	port id, MNL_SOCKET_AUTOPID to let the kernel choose
 *
 * Return: 0 on success, -1 with errno set on failure
 */
int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	socklen_t len = sizeof(nl->addr);

	memset(&nl->addr, 0, sizeof(nl->addr));
	nl->addr.nl_family = AF_NETLINK;
	nl->addr.nl_groups = groups;
	nl->addr.nl_pid = pid;
	if (bind(nl->fd, (struct sockaddr *)&nl->addr, sizeof(nl->addr)) < 0)
		return -1;
	/* The kernel chose the port id: read it back */
	if (getsockname(nl->fd, (struct sockaddr *)&nl->addr, &len) < 0)
		return -1;
	if (len != sizeof(nl->addr) || nl->addr.nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/**
 * mnl_socket_close() - close a netlink socket and free it
 * @nl:		socket
 *
 * Return: close()'s return value
 */
int mnl_socket_close(struct mnl_socket *nl)
{
	int ret = close(nl->fd);

	free(nl);
	return ret;
}

/**
 * mnl_socket_get_fd() - the descriptor of a netlink socket
 * @nl:		socket
 *
 * Return: its descriptor
 */
int mnl_socket_get_fd(const struct mnl_socket *nl)
{
	return nl->fd;
}

/**
 * mnl_socket_get_portid() - the port id a netlink socket is bound to
 * @nl:		socket, bound
 *
 * Return: the port id, which replies to our requests carry
 */
unsigned int mnl_socket_get_portid(const struct mnl_socket *nl)
{
	return nl->addr.nl_pid;
}

/**
 * mnl_nlmsg_put_header() - start a message: a zeroed header at @buf
 * @buf:	buffer, at least MNL_SOCKET_BUFFER_SIZE bytes
 *
 * Return: the header, its length the header's own
 */
struct nlmsghdr *mnl_nlmsg_put_header(void *buf)
{
	struct nlmsghdr *nlh = buf;

	memset(buf, 0, MNL_NLMSG_HDRLEN);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	return nlh;
}

/**
 * mnl_nlmsg_put_extra_header() - append a zeroed protocol header
 * @nlh:	message
 * @size:	size of the protocol header (struct ifinfomsg...)
 *
 * Return: the protocol header, in the message
 */
void *mnl_nlmsg_put_extra_header(struct nlmsghdr *nlh, size_t size)
{
	char *p = (char *)nlh + nlh->nlmsg_len;

	memset(p, 0, MNL_ALIGN(size));
	nlh->nlmsg_len += MNL_ALIGN(size);
	return p;
}

/**
 * mnl_nlmsg_get_payload() - what follows a message's header
 * @nlh:	message
 *
 * Return: its payload
 */
void *mnl_nlmsg_get_payload(const struct nlmsghdr *nlh)
{
	return (char *)nlh + MNL_NLMSG_HDRLEN;
}

/**
 * mnl_nlmsg_get_payload_len() - length of a message's payload
 * @nlh:	message, its length at least its header's (mnl_nlmsg_ok())
 *
 * Return: bytes after the header
 */
size_t mnl_nlmsg_get_payload_len(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
}

/**
 * mnl_nlmsg_ok() - whether a whole message lies in @len bytes
 * @nlh:	message
 * @len:	bytes left in the buffer, from @nlh
 *
 * Return: true if the header and the length it states both fit
 */
bool mnl_nlmsg_ok(const struct nlmsghdr *nlh, int len)
{
	return len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)len;
}

/**
 * mnl_nlmsg_next() - the message after @nlh
 * @nlh:	message, checked with mnl_nlmsg_ok()
 * @len:	bytes left from @nlh, reduced by the message's aligned length
 *
 * Return: the next message, to be checked with mnl_nlmsg_ok() too
 */
struct nlmsghdr *mnl_nlmsg_next(const struct nlmsghdr *nlh, int *len)
{
	*len -= MNL_ALIGN(nlh->nlmsg_len);
	return (struct nlmsghdr *)((char *)nlh + MNL_ALIGN(nlh->nlmsg_len));
}

/**
 * mnl_attr_get_type() - an attribute's type, without its flag bits
 * @attr:	attribute
 *
 * Return: type
 */
uint16_t mnl_attr_get_type(const struct nlattr *attr)
{
	return attr->nla_type & NLA_TYPE_MASK;
}

/**
 * mnl_attr_get_payload_len() - length of an attribute's value
 * @attr:	attribute, checked with mnl_attr_ok()
 *
 * Return: bytes of its value
 */
uint16_t mnl_attr_get_payload_len(const struct nlattr *attr)
{
	return attr->nla_len - MNL_ATTR_HDRLEN;
}

/**
 * mnl_attr_get_payload() - an attribute's value
 * @attr:	attribute
 *
 * Return: the value's first byte
 */
void *mnl_attr_get_payload(const struct nlattr *attr)
{
	return (char *)attr + MNL_ATTR_HDRLEN;
}

/**
 * mnl_attr_get_u32() - an attribute's 32-bit value
 * @attr:	attribute, validated as MNL_TYPE_U32
 *
 * Return: value
 */
uint32_t mnl_attr_get_u32(const struct nlattr *attr)
{
	uint32_t v;

	memcpy(&v, mnl_attr_get_payload(attr), sizeof(v));
	return v;
}

/**
 * mnl_attr_get_str() - an attribute's string value
 * @attr:	attribute, validated as MNL_TYPE_NUL_STRING
 *
 * Return: the string, in the message
 */
const char *mnl_attr_get_str(const struct nlattr *attr)
{
	return mnl_attr_get_payload(attr);
}

/**
 * mnl_attr_put() - append an attribute to a message
 * @nlh:	message, with room for the attribute in its buffer
 * @type:	attribute type
 * @len:	length of the value
 * @data:	value
 */
void mnl_attr_put(struct nlmsghdr *nlh, uint16_t type, size_t len,
		  const void *data)
{
	struct nlattr *attr = (struct nlattr *)((char *)nlh +
						MNL_ALIGN(nlh->nlmsg_len));
	size_t alen = MNL_ATTR_HDRLEN + len;

	attr->nla_type = type;
	attr->nla_len = alen;
	if (len)	/* an empty value may come as NULL */
		memcpy(mnl_attr_get_payload(attr), data, len);
	/* Padding is part of the message: the kernel must read zeroes */
	memset((char *)attr + alen, 0, MNL_ALIGN(alen) - alen);
	nlh->nlmsg_len += MNL_ALIGN(alen);
}

/**
 * mnl_attr_put_u32() - append an attribute with a 32-bit value
 * @nlh:	message
 * @type:	attribute type
 * @data:	value
 */
void mnl_attr_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t data)
{
	mnl_attr_put(nlh, type, sizeof(data), &data);
}

/**
 * mnl_attr_put_strz() - append an attribute with a string and its NUL
 * @nlh:	message
 * @type:	attribute type
 * @data:	string
 */
void mnl_attr_put_strz(struct nlmsghdr *nlh, uint16_t type, const char *data)
{
	mnl_attr_put(nlh, type, strlen(data) + 1, data);
}

/**
 * mnl_attr_type_valid() - whether an attribute's type is one we know
 * @attr:	attribute
 * @max:	highest known type
 *
 * Return: 1 if it is, -1 with errno EOPNOTSUPP if not
 */
int mnl_attr_type_valid(const struct nlattr *attr, uint16_t max)
{
	if (mnl_attr_get_type(attr) > max) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 1;
}

/**
 * mnl_attr_validate2() - check an attribute's value against a type and
 *			  a length
 * @attr:	attribute
 * @type:	what its value must be
 * @len:	exact length of its value, 0 for any
 *
 * Return: 0 if it fits, -1 with errno ERANGE (wrong length) or EINVAL (a
 *	   string without its NUL, an unknown type)
 */
int mnl_attr_validate2(const struct nlattr *attr,
		       enum mnl_attr_data_type type, size_t len)
{
	uint16_t plen = mnl_attr_get_payload_len(attr);
	const char *p = mnl_attr_get_payload(attr);

	if (type >= MNL_TYPE_MAX) {
		errno = EINVAL;
		return -1;
	}
	/* Too short first, then what the type needs, then too long: the
	 * order libmnl reports them in
	 */
	if (plen < len) {
		errno = ERANGE;
		return -1;
	}
	switch (type) {
	case MNL_TYPE_FLAG:
		if (plen) {
			errno = ERANGE;
			return -1;
		}
		break;
	case MNL_TYPE_STRING:
		if (!plen) {
			errno = ERANGE;
			return -1;
		}
		break;
	case MNL_TYPE_NUL_STRING:
		if (!plen) {
			errno = ERANGE;
			return -1;
		}
		if (p[plen - 1]) {
			errno = EINVAL;
			return -1;
		}
		break;
	case MNL_TYPE_NESTED:
		/* Empty, or at least one attribute header inside */
		if (plen && plen < MNL_ATTR_HDRLEN) {
			errno = ERANGE;
			return -1;
		}
		break;
	default:
		break;
	}
	if (len && plen > len) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

/**
 * mnl_attr_validate() - check an attribute's value against a type
 * @attr:	attribute
 * @type:	what its value must be: integers have their exact length
 *
 * Return: 0 if it fits, -1 with errno set (see mnl_attr_validate2())
 */
int mnl_attr_validate(const struct nlattr *attr, enum mnl_attr_data_type type)
{
	size_t len = 0;

	switch (type) {
	case MNL_TYPE_U8:
		len = sizeof(uint8_t);
		break;
	case MNL_TYPE_U16:
		len = sizeof(uint16_t);
		break;
	case MNL_TYPE_U32:
		len = sizeof(uint32_t);
		break;
	case MNL_TYPE_U64:
	case MNL_TYPE_MSECS:
		len = sizeof(uint64_t);
		break;
	default:
		break;
	}
	return mnl_attr_validate2(attr, type, len);
}

/**
 * mnl_attr_ok() - whether a whole attribute lies in @len bytes
 * @attr:	attribute
 * @len:	bytes left from @attr
 *
 * Return: true if its header and the length it states both fit
 */
bool mnl_attr_ok(const struct nlattr *attr, int len)
{
	return len >= (int)sizeof(*attr) && attr->nla_len >= sizeof(*attr) &&
	       attr->nla_len <= len;
}

/**
 * mnl_attr_next() - the attribute after @attr
 * @attr:	attribute, checked with mnl_attr_ok()
 *
 * Return: the next one, to be checked with mnl_attr_ok() too
 */
struct nlattr *mnl_attr_next(const struct nlattr *attr)
{
	return (struct nlattr *)((char *)attr + MNL_ALIGN(attr->nla_len));
}

/**
 * mnl_attr_parse_payload() - call @cb for each attribute of a buffer
 * @payload:	first attribute
 * @len:	bytes of attributes
 * @cb:		callback, MNL_CB_OK to go on
 * @data:	its argument
 *
 * A truncated attribute ends the walk, as the kernel's own parsers do.
 *
 * Return: MNL_CB_OK after the last one, or the first return value of @cb
 *	   that is not MNL_CB_OK
 */
int mnl_attr_parse_payload(const void *payload, size_t len, mnl_attr_cb_t cb,
			   void *data)
{
	const struct nlattr *attr = payload;
	int left = len;
	int ret;

	while (mnl_attr_ok(attr, left)) {
		ret = cb(attr, data);
		if (ret <= MNL_CB_STOP)
			return ret;
		left -= MNL_ALIGN(attr->nla_len);
		attr = mnl_attr_next(attr);
	}
	return MNL_CB_OK;
}

/**
 * mnl_attr_parse() - call @cb for each attribute of a message
 * @nlh:	message
 * @offset:	length of the protocol header before the attributes
 * @cb:		callback, MNL_CB_OK to go on
 * @data:	its argument
 *
 * Return: as mnl_attr_parse_payload()
 */
int mnl_attr_parse(const struct nlmsghdr *nlh, unsigned int offset,
		   mnl_attr_cb_t cb, void *data)
{
	size_t start = MNL_NLMSG_HDRLEN + MNL_ALIGN(offset);

	if (nlh->nlmsg_len < start)
		return MNL_CB_OK;
	return mnl_attr_parse_payload((const char *)nlh + start,
				      nlh->nlmsg_len - start, cb, data);
}

/**
 * mnl_cb_error() - the outcome of an NLMSG_ERROR message
 * @nlh:	message
 *
 * Return: MNL_CB_STOP for an acknowledgement (error 0, errno 0),
 *	   MNL_CB_ERROR with errno the kernel's error, or EBADMSG if the
 *	   message is truncated
 */
static int mnl_cb_error(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	errno = e->error < 0 ? -e->error : e->error;
	return e->error ? MNL_CB_ERROR : MNL_CB_STOP;
}

/**
 * mnl_cb_run() - check each message of a reply and hand it on
 * @buf:	what one recv() returned
 * @numbytes:	its length
 * @seq:	sequence number of the request, 0 for any
 * @portid:	our port id, 0 for any
 * @cb_data:	callback for each data message, may be NULL
 * @data:	its argument
 *
 * Control messages are handled here: NLMSG_ERROR ends the reply (with the
 * kernel's error, or none for an acknowledgement), NLMSG_DONE ends a dump,
 * NLMSG_NOOP and NLMSG_OVERRUN are passed over.
 *
 * Return: MNL_CB_OK if more messages are to come (also when @buf holds
 *	   no whole message), MNL_CB_STOP at the end of the reply, MNL_CB_ERROR with errno set: the kernel's error,
 *	   ESRCH or EPROTO for a message of another socket or request, EINTR
 *	   for a dump the kernel interrupted (to be asked again)
 */
int mnl_cb_run(const void *buf, size_t numbytes, unsigned int seq,
	       unsigned int portid, mnl_cb_t cb_data, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int len = numbytes;
	int ret = MNL_CB_OK;

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (portid && nlh->nlmsg_pid && nlh->nlmsg_pid != portid) {
			errno = ESRCH;
			return MNL_CB_ERROR;
		}
		if (seq && nlh->nlmsg_seq && nlh->nlmsg_seq != seq) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			errno = EINTR;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
			ret = cb_data ? cb_data(nlh, data) : MNL_CB_OK;
		} else if (nlh->nlmsg_type == NLMSG_ERROR) {
			ret = mnl_cb_error(nlh);
		} else if (nlh->nlmsg_type == NLMSG_DONE) {
			ret = MNL_CB_STOP;
		} else {
			ret = MNL_CB_OK;
		}
		if (ret <= MNL_CB_STOP)
			return ret;
	}
	return ret;
}
