// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - namespace mode: the namespace we serve, and its tap device
 *
 * Instead of a VMM, netshim can serve a network namespace in the pod: a
 * sandbox, a nested container, a test harness.  Either it makes one,
 * "netshim [OPTIONS] -- COMMAND": a child process unshares a new user and
 * network namespace, where it is root, and runs COMMAND once the namespace
 * is ready; or it joins one, "netshim --netns PATH|PID".
 *
 * netshim itself never leaves the pod's namespaces: every socket it opens
 * later must be the pod's.  The work inside the namespace (creating the
 * tap, configuring it through netlink) is done by a short-lived clone of
 * netshim that shares its memory and descriptor table and enters the
 * namespace with setns(): the tap descriptor it opens is netshim's when it
 * exits.  It joins the namespace's user namespace first when that is not
 * ours: that is where it has CAP_NET_ADMIN, so no capability is needed
 * outside the namespace it made.
 *
 * All of this happens before isolate(): the clone, setns() and the files
 * under /proc need what the sandbox takes away.
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
#include <linux/if_tun.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ctx.h"
#include "isolate.h"
#include "log.h"
#include "netlink.h"
#include "netns.h"

/* Stack of the clone that enters the namespace: libmnl and the netlink
 * helpers keep their buffers on it
 */
#define NETNS_STACK_SIZE	(256 << 10)

static char netns_stack[NETNS_STACK_SIZE] __attribute__((aligned(16)));

/* Exit status of a child that could not run the command, as env(1) */
#define NETNS_EXIT_SETUP	125
#define NETNS_EXIT_NOEXEC	127

/**
 * struct netns_call - what the clone inside the namespace does
 * @c:		execution context (shared memory: results go there)
 * @fn:		the work, returning 0 on success
 */
struct netns_call {
	struct ctx *c;
	int (*fn)(struct ctx *c);
};

/**
 * netns_enter() - in the clone: join the namespace, do the work
 * @arg:	struct netns_call
 *
 * Return: 0 on success, 1 on failure (the clone's exit status)
 */
static int netns_enter(void *arg)
{
	const struct netns_call *call = arg;
	struct netns *ns = &call->c->ns;

	if (ns->user_fd >= 0 && setns(ns->user_fd, CLONE_NEWUSER)) {
		err("cannot join the namespace's user namespace: %m");
		return 1;
	}
	if (setns(ns->net_fd, CLONE_NEWNET)) {
		err("cannot join the network namespace: %m");
		return 1;
	}
	return call->fn(call->c) ? 1 : 0;
}

/**
 * netns_call() - run @fn inside the namespace, in a clone of ourselves
 * @c:		execution context
 * @fn:		the work
 *
 * CLONE_VM and CLONE_FILES: what @fn stores in @c and the descriptors it
 * opens are ours when it returns.  Not CLONE_FS: setns() into a user
 * namespace refuses a process sharing its filesystem information.
 * CLONE_VFORK: we sleep until it is done, so nothing runs concurrently.
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int netns_call(struct ctx *c, int (*fn)(struct ctx *c))
{
	struct netns_call call = { .c = c, .fn = fn };
	int status;
	pid_t pid;

	pid = clone(netns_enter, netns_stack + sizeof(netns_stack),
		    CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD, &call);
	if (pid < 0) {
		err("cannot clone into the namespace: %m");
		return -1;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

/**
 * netns_write() - write a short string to a file of /proc
 * @path:	file
 * @s:		string
 *
 * Return: 0 on success, -1 with errno set
 */
static int netns_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) == (ssize_t)strlen(s))
		rc = 0;
	close(fd);
	return rc;
}

/**
 * netns_map_ids() - map root of the child's user namespace to our ids
 * @pid:	the child, which has just unshared its user namespace
 *
 * The command runs as root in its namespace (it owns it, so it may set
 * up its network), and as us outside it.  Without CAP_SETGID, a group
 * mapping needs setgroups() denied first (user_namespaces(7)).
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int netns_map_ids(pid_t pid)
{
	char path[64], map[64];

	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	snprintf(map, sizeof(map), "0 %u 1", geteuid());
	if (netns_write(path, map)) {
		err("cannot map uid %u in the new user namespace: %m",
		    geteuid());
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
	if (getegid() && netns_write(path, "deny"))
		debug("setgroups in the new user namespace: %m");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	snprintf(map, sizeof(map), "0 %u 1", getegid());
	if (netns_write(path, map)) {
		err("cannot map gid %u in the new user namespace: %m",
		    getegid());
		return -1;
	}
	return 0;
}

/**
 * netns_child() - the command's process: unshare, wait, exec
 * @argv:	command and arguments
 * @ready_fd:	written once the namespaces exist
 * @go_fd:	read: a byte means the network is ready, end of file that
 *		netshim failed
 */
static void __attribute__((noreturn)) netns_child(char **argv, int ready_fd,
						  int go_fd)
{
	sigset_t all;
	char b;

	/* Without its network, the command has no reason to outlive us */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		err("cannot create user and network namespaces: %m");
		_exit(NETNS_EXIT_SETUP);
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(NETNS_EXIT_SETUP);
	close(ready_fd);
	if (read(go_fd, &b, 1) != 1)
		_exit(NETNS_EXIT_SETUP);
	close(go_fd);

	/* What netshim blocked and ignored for its own loop */
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	err("cannot run %s: %m", argv[0]);
	_exit(NETNS_EXIT_NOEXEC);
}

/**
 * netns_open_ns() - open the namespaces of a process
 * @ns:		net_fd and user_fd set
 * @pid:	the process, as text
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int netns_open_ns(struct netns *ns, const char *pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s/ns/net", pid);
	ns->net_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%s/ns/user", pid);
	ns->user_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->net_fd < 0 || ns->user_fd < 0) {
		err("cannot open the namespaces of process %s: %m", pid);
		return -1;
	}
	return 0;
}

/**
 * netns_user_is_ours() - tell if a user namespace is the one we are in
 * @fd:		the user namespace
 *
 * Return: true if it is: then there is nothing to join
 */
static bool netns_user_is_ours(int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat("/proc/self/ns/user", &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/**
 * netns_spawn() - make a user and network namespace for a command
 * @c:		execution context: c->ns filled in
 * @argv:	command and arguments, run once netns_release() is called
 *
 * Return: 0 on success, -1 on failure (reported; no child is left)
 */
int netns_spawn(struct ctx *c, char **argv)
{
	struct netns *ns = &c->ns;
	int ready[2], go[2];
	char pid[16], b;

	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC)) {
		err("pipe: %m");
		return -1;
	}
	ns->child = fork();
	if (ns->child < 0) {
		err("fork: %m");
		return -1;
	}
	if (!ns->child) {
		close(ready[0]);
		close(go[1]);
		netns_child(argv, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	ns->go_fd = go[1];
	snprintf(pid, sizeof(pid), "%d", ns->child);

	if (read(ready[0], &b, 1) != 1 || netns_map_ids(ns->child) ||
	    netns_open_ns(ns, pid)) {
		close(ready[0]);
		close(ns->go_fd);
		ns->go_fd = -1;
		waitpid(ns->child, NULL, 0);
		ns->child = 0;
		return -1;
	}
	close(ready[0]);
	info("namespace of %s: process %d", argv[0], ns->child);
	return 0;
}

/**
 * netns_join() - serve an existing network namespace
 * @c:		execution context: c->ns filled in
 * @target:	a PID (its namespaces), or the path of a network namespace
 *		(its user namespace is the one owning it)
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int netns_join(struct ctx *c, const char *target)
{
	struct netns *ns = &c->ns;

	if (target[0] && strspn(target, "0123456789") == strlen(target)) {
		if (netns_open_ns(ns, target))
			return -1;
	} else {
		ns->net_fd = open(target, O_RDONLY | O_CLOEXEC);
		if (ns->net_fd < 0) {
			err("cannot open network namespace %s: %m", target);
			return -1;
		}
		ns->user_fd = ioctl(ns->net_fd, NS_GET_USERNS);
		if (ns->user_fd < 0) {
			err("%s is not a network namespace: %m", target);
			return -1;
		}
	}
	if (netns_user_is_ours(ns->user_fd)) {
		close(ns->user_fd);
		ns->user_fd = -1;
	}
	return 0;
}

/**
 * netns_tap_in() - inside the namespace: make the tap, configure it
 * @c:		execution context: c->ns.tap_fd, ifname and mac set
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int netns_tap_in(struct ctx *c)
{
	struct netns *ns = &c->ns;
	struct ifreq ifr = { 0 };
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err("cannot open /dev/net/tun: %m");
		return -1;
	}
	/* Every frame behind a virtio-net header (10 bytes, the default
	 * size): the namespace's TCP then hands over TSO frames and partial
	 * checksums, and takes ours (link/tap.c)
	 */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ns->ifname);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		err("cannot create tap device %s: %m", ns->ifname);
		close(fd);
		return -1;
	}
	if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)) {
		err("cannot set the offloads of %s: %m", ns->ifname);
		close(fd);
		return -1;
	}
	snprintf(ns->ifname, sizeof(ns->ifname), "%s", ifr.ifr_name);
	if (c->conf.guest_mac_set) {
		memcpy(ns->mac, c->conf.guest_mac, sizeof(ns->mac));
	} else if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		err("cannot read the MAC address of %s: %m", ns->ifname);
		close(fd);
		return -1;
	} else {
		memcpy(ns->mac, ifr.ifr_hwaddr.sa_data, sizeof(ns->mac));
	}
	if (nl_ns_configure(&c->conf, ns->ifname,
			    c->conf.guest_mac_set ? ns->mac : NULL)) {
		close(fd);
		return -1;
	}
	ns->tap_fd = fd;
	return 0;
}

/**
 * netns_tap() - make the namespace's tap device, with the pod's addresses
 * @c:		execution context, after netns_spawn() or netns_join();
 *		c->ns.tap_fd and c->ns.mac set, and the guest's MAC is known
 *
 * The tap is named like the pod's template interface, unless --ns-ifname.
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int netns_tap(struct ctx *c)
{
	struct netns *ns = &c->ns;
	const char *name = *c->conf.ns_ifname ? c->conf.ns_ifname :
			   *c->conf.ifname ? c->conf.ifname : "tap0";

	snprintf(ns->ifname, sizeof(ns->ifname), "%s", name);
	ns->tap_fd = -1;
	if (netns_call(c, netns_tap_in))
		return -1;
	memcpy(c->guest_mac, ns->mac, sizeof(c->guest_mac));
	memcpy(c->conf.guest_mac, ns->mac, sizeof(c->conf.guest_mac));
	c->conf.guest_mac_set = c->guest_mac_known = true;
	info("namespace interface %s: %02x:%02x:%02x:%02x:%02x:%02x, MTU %u",
	     ns->ifname, ns->mac[0], ns->mac[1], ns->mac[2], ns->mac[3],
	     ns->mac[4], ns->mac[5], c->conf.mtu);
	return 0;
}

/**
 * netns_release() - let the command start: its network is ready
 * @c:		execution context
 *
 * Return: 0 on success or without a command, -1 if it is already gone
 */
int netns_release(struct ctx *c)
{
	struct netns *ns = &c->ns;
	ssize_t n;

	if (ns->go_fd < 0)
		return 0;
	n = write(ns->go_fd, "g", 1);
	close(ns->go_fd);
	ns->go_fd = -1;
	return n == 1 ? 0 : -1;
}

/**
 * netns_reap() - on SIGCHLD: has the command exited
 * @c:		execution context: c->ns.status set if it has
 *
 * Return: true if the command has exited (netshim then exits too, with
 *	   its status, or 128 plus the signal that killed it, as a shell does)
 */
bool netns_reap(struct ctx *c)
{
	struct netns *ns = &c->ns;
	int status;

	if (!ns->child || ns->exited)
		return ns->exited;
	if (waitpid(ns->child, &status, WNOHANG) != ns->child)
		return false;
	ns->exited = true;
	if (WIFEXITED(status))
		ns->status = WEXITSTATUS(status);
	else
		ns->status = 128 + WTERMSIG(status);
	return true;
}

/**
 * struct netns_req - a request to the helper: a socket on the namespace's
 *		      loopback
 * @v6:		::1 rather than 127.0.0.1
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @listen:	bind @port (and listen on it, for TCP) rather than connect
 * @port:	port to connect to, or to bind
 * @sport:	UDP, connecting: the source port to keep if it is free there,
 *		0 for any
 */
struct netns_req {
	uint8_t v6;
	uint8_t type;
	uint8_t listen;
	uint16_t port;
	uint16_t sport;
};

/**
 * netns_sock_bufs() - ask for the largest socket buffers the pod allows on
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
void netns_sock_bufs(int fd)
{
	int v = INT_MAX / 2;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

/**
 * netns_helper_sock() - in the helper: make the socket a request asks for
 * @req:	the request
 *
 * Return: the socket, or -1 with errno set
 */
static int netns_helper_sock(const struct netns_req *req)
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
	netns_sock_bufs(s);
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
	if (req->sport) {
		/* The namespace's server sees the client's own port where
		 * it is free, as pasta does; any port otherwise
		 */
		a6.sin6_port = a4.sin_port = htons(req->sport);
		bind(s, sa, sl);
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
 * netns_helper_loop() - in the helper: answer requests until netshim goes
 * @fd:		our end of the socket pair
 *
 * Each answer is an errno value, with the socket (non-blocking, its
 * connect() under way, or bound) attached when it is 0.
 */
static void __attribute__((noreturn)) netns_helper_loop(int fd)
{
	struct netns_req req;

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
		s = netns_helper_sock(&req);
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
 * netns_helper_start() - a process inside the namespace that opens sockets
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
int netns_helper_start(struct ctx *c)
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
		if (dup2(sp[1], 3) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
		if (isolate_caps() || isolate_seccomp(false, false))
			_exit(1);
		netns_helper_loop(3);
	}
	close(sp[1]);
	ns->helper_fd = sp[0];
	return 0;
}

/**
 * netns_helper_ask() - a round trip to the helper for one socket
 * @c:		execution context
 * @req:	what to make
 *
 * Return: the socket, or -1 with errno set
 */
static int netns_helper_ask(struct ctx *c, const struct netns_req *req)
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
 * netns_connect_lo() - a TCP socket connecting to the namespace's loopback
 * @c:		execution context
 * @v6:		::1 rather than 127.0.0.1
 * @port:	port
 *
 * The helper connects a non-blocking socket on its loopback, which
 * completes or fails at once, and returns it.
 *
 * Return: the socket, its connect() under way, or -1 with errno set
 */
int netns_connect_lo(struct ctx *c, bool v6, uint16_t port)
{
	struct netns_req req = { .v6 = v6, .type = SOCK_STREAM,
				 .port = port };

	return netns_helper_ask(c, &req);
}

/**
 * netns_udp_lo() - a UDP socket connected to the namespace's loopback
 * @c:		execution context
 * @v6:		::1 rather than 127.0.0.1
 * @sport:	source port to keep if it is free in the namespace, 0 for any
 * @port:	destination port
 *
 * Return: the socket, or -1 with errno set
 */
int netns_udp_lo(struct ctx *c, bool v6, uint16_t sport, uint16_t port)
{
	struct netns_req req = { .v6 = v6, .type = SOCK_DGRAM,
				 .port = port, .sport = sport };

	return netns_helper_ask(c, &req);
}

/**
 * netns_listen_lo() - a socket bound to a port of the namespace's loopback
 * @c:		execution context
 * @type:	SOCK_STREAM (then listening) or SOCK_DGRAM
 * @v6:		::1 rather than 127.0.0.1
 * @port:	port
 *
 * Return: the socket, or -1 with errno set (EADDRINUSE: a process of the
 * namespace holds the port)
 */
int netns_listen_lo(struct ctx *c, int type, bool v6, uint16_t port)
{
	struct netns_req req = { .v6 = v6, .type = (uint8_t)type,
				 .listen = 1, .port = port };

	return netns_helper_ask(c, &req);
}
