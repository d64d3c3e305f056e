// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - sockets of local flows in the served namespace, made inside it
 *
 * Local flows of namespace mode need sockets on the namespace's own
 * loopback and addresses, which netshim, staying in the pod's namespaces,
 * cannot open itself after isolate().  A helper process started inside the
 * namespace before the sandbox (nssock_start()) opens each one on request
 * and passes it back over a UNIX socket (SCM_RIGHTS).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "ctx.h"
#include "isolate.h"
#include "log.h"
#include "inany.h"
#include "nssock.h"

/**
 * struct nssock_req - a request to the helper: a socket of a local flow in
 *		      the namespace
 * @v6:		IPv6 rather than IPv4 (listening: ::1 rather than 127.0.0.1)
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @listen:	bind @port (and listen on it, for TCP) rather than connect
 * @port:	port to connect to, or to bind
 * @sport:	UDP, connecting: the source port to keep if it is free there,
 *		0 for any
 * @dst:	connecting: the address (v4-mapped for IPv4), :: for loopback
 */
struct nssock_req {
	uint8_t v6;
	uint8_t type;
	uint8_t listen;
	uint16_t port;
	uint16_t sport;
	struct in6_addr dst;
};

/**
 * nssock_bufs() - ask for the largest socket buffers the pod allows on
 *		       a socket of a local flow
 * @fd:		the socket (a listener passes them to what it accepts)
 *
 * The kernel caps the request at net.core.rmem_max and wmem_max (and
 * doubles it).  Two effects, both measured with iperf3 through -T and -U
 * against pasta, which sets the same: the window a listener's connections
 * offer at once is large, so a peer's MSS is not held to half of a 64 KiB
 * window (iperf3 sizes its UDP datagrams from its control connection's
 * MSS: 32 KiB instead of 64 KiB halved the bytes per system call), and a
 * relayed UDP burst waits in a buffer instead of being dropped.
 */
void nssock_bufs(int fd)
{
	int v = INT_MAX / 2;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

/**
 * nssock_make() - in the helper: make the socket a request asks for
 * @req:	the request
 *
 * Return: the socket, or -1 with errno set
 */
static int nssock_make(const struct nssock_req *req)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr *sa = req->v6 ? (struct sockaddr *)&a6 :
					(struct sockaddr *)&a4;
	socklen_t sl = req->v6 ? sizeof(a6) : sizeof(a4);
	int s, e, one = 1;

	s = socket(req->v6 ? AF_INET6 : AF_INET,
		   req->type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	nssock_bufs(s);
	if (req->listen) {
		a6.sin6_port = a4.sin_port = htons(req->port);
		if (req->type == SOCK_STREAM)
			setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
		if (bind(s, sa, sl) ||
		    (req->type == SOCK_STREAM && listen(s, 128)))
			goto fail;
		return s;
	}
	/* Not to loopback: from any address of the namespace's */
	if (!IN6_IS_ADDR_UNSPECIFIED(&req->dst)) {
		a6.sin6_addr = in6addr_any;
		a4.sin_addr.s_addr = htonl(INADDR_ANY);
	}
	if (req->sport) {
		/* The namespace's server sees the client's own port where
		 * it is free, as pasta does; any port otherwise
		 */
		a6.sin6_port = a4.sin_port = htons(req->sport);
		bind(s, sa, sl);
	}
	if (!IN6_IS_ADDR_UNSPECIFIED(&req->dst)) {
		a6.sin6_addr = req->dst;
		a4.sin_addr = inany_to4(&req->dst);
	}
	a6.sin6_port = a4.sin_port = htons(req->port);
	if (connect(s, sa, sl) && errno != EINPROGRESS)
		goto fail;
	return s;
fail:
	e = errno;
	close(s);
	errno = e;
	return -1;
}

/**
 * nssock_loop() - in the helper: answer requests until netshim goes
 * @fd:		our end of the socket pair
 *
 * Each answer is an errno value, with the socket (non-blocking, its
 * connect() under way, or bound) attached when it is 0.
 */
static void __attribute__((noreturn)) nssock_loop(int fd)
{
	struct nssock_req req;

	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u = { 0 };
		int e = 0, s;
		struct iovec iov = { &e, sizeof(e) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct cmsghdr *cm;

		if (recv(fd, &req, sizeof(req), 0) != sizeof(req))
			_exit(0);
		s = nssock_make(&req);
		if (s < 0) {
			e = errno;
		} else {
			mh.msg_control = u.buf;
			mh.msg_controllen = sizeof(u.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &s, sizeof(int));
		}
		if (sendmsg(fd, &mh, 0) < 0)
			_exit(0);
		if (s >= 0)
			close(s);
	}
}

/**
 * nssock_start() - a process inside the namespace that opens sockets
 * @c:		execution context: c->ns.helper_fd set
 *
 * Local flows need sockets in the namespace while the loop runs, when
 * netshim itself can no longer enter it.  The helper enters it now, keeps
 * nothing but its end of a socket pair, drops every capability and runs
 * under the same system call filter as netshim: it can only make sockets
 * there and hand them over.  It dies with netshim.
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int nssock_start(struct ctx *c)
{
	struct netns *ns = &c->ns;
	int sp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp)) {
		err("socket pair for the namespace helper: %m");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		err("fork: %m");
		return -1;
	}
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if ((ns->user_fd >= 0 && setns(ns->user_fd, CLONE_NEWUSER)) ||
		    setns(ns->net_fd, CLONE_NEWNET)) {
			err("namespace helper: cannot join the namespace: %m");
			_exit(1);
		}
		/* Its messages go to stderr: the log's descriptor may be the
		 * number its end of the pair takes now
		 */
		log_open(NULL, true, false, false);
		if (dup2(sp[1], 3) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
		if (isolate_caps() || isolate_seccomp(false, false))
			_exit(1);
		nssock_loop(3);
	}
	close(sp[1]);
	ns->helper_fd = sp[0];
	return 0;
}

/**
 * nssock_ask() - a round trip to the helper for one socket
 * @c:		execution context
 * @req:	what to make
 *
 * Return: the socket, or -1 with errno set
 */
static int nssock_ask(struct ctx *c, const struct nssock_req *req)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int e = 0, fd = -1;
	struct iovec iov = { &e, sizeof(e) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;

	if (c->ns.helper_fd < 0) {
		errno = ENOTCONN;
		return -1;
	}
	if (send(c->ns.helper_fd, req, sizeof(*req), 0) != sizeof(*req) ||
	    recvmsg(c->ns.helper_fd, &mh, MSG_CMSG_CLOEXEC) != sizeof(e))
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!e && cm && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fd < 0) {
		errno = e ? e : EPROTO;
		return -1;
	}
	return fd;
}

/**
 * nssock_local_dst() - where a pod's local flow goes in the namespace
 * @c:		execution context
 * @v6:		the flow's family
 * @dst:	a target address of a -u rule, NULL or :: for none
 * @out:	the address to connect to (v4-mapped), :: for loopback
 *
 * As pasta: the namespace's own address, so that a server the namespace
 * keeps on its loopback stays its own; its loopback with
 * --host-lo-to-ns-lo, or where the namespace has no address of the family.
 */
static void nssock_local_dst(const struct ctx *c, bool v6,
			     const struct in6_addr *dst, struct in6_addr *out)
{
	const struct conf *conf = &c->conf;

	*out = in6addr_any;
	if (dst && !IN6_IS_ADDR_UNSPECIFIED(dst))
		*out = *dst;
	else if (conf->host_lo_to_ns_lo)
		return;
	else if (!v6 && conf->v4 && conf->addr4.s_addr)
		*out = inany_from4(conf->addr4);
	else if (v6 && conf->v6)
		*out = conf->addr6;
}

/**
 * nssock_connect_local() - a TCP socket connecting, in the namespace, to
 *			    the server of a pod's local flow
 * @c:		execution context
 * @v6:		IPv6 rather than IPv4
 * @port:	port
 *
 * The helper connects a non-blocking socket to the namespace's address
 * (nssock_local_dst()), which is local there: it completes or fails at
 * once.
 *
 * Return: the socket, its connect() under way, or -1 with errno set
 */
int nssock_connect_local(struct ctx *c, bool v6, uint16_t port)
{
	struct nssock_req req = { .v6 = v6, .type = SOCK_STREAM,
				 .port = port };

	nssock_local_dst(c, v6, NULL, &req.dst);
	return nssock_ask(c, &req);
}

/**
 * nssock_udp_local() - a UDP socket connected, in the namespace, to the
 *			server of a pod's local flow
 * @c:		execution context
 * @v6:		IPv6 rather than IPv4
 * @sport:	source port to keep if it is free in the namespace, 0 for any
 * @dst:	the -u rule's target address (v4-mapped), NULL or :: for none:
 *		then as nssock_local_dst() says
 * @port:	destination port
 *
 * Return: the socket, or -1 with errno set
 */
int nssock_udp_local(struct ctx *c, bool v6, uint16_t sport,
		     const struct in6_addr *dst, uint16_t port)
{
	struct nssock_req req = { .v6 = v6, .type = SOCK_DGRAM,
				 .port = port, .sport = sport };

	nssock_local_dst(c, v6, dst, &req.dst);
	return nssock_ask(c, &req);
}

/**
 * nssock_listen_lo() - a socket bound to a port of the namespace's loopback
 * @c:		execution context
 * @type:	SOCK_STREAM (then listening) or SOCK_DGRAM
 * @v6:		::1 rather than 127.0.0.1
 * @port:	port
 *
 * Return: the socket, or -1 with errno set (EADDRINUSE: a process of the
 * namespace holds the port)
 */
int nssock_listen_lo(struct ctx *c, int type, bool v6, uint16_t port)
{
	struct nssock_req req = { .v6 = v6, .type = (uint8_t)type,
				 .listen = 1, .port = port };

	return nssock_ask(c, &req);
}
