// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - namespace mode: the namespace we serve, and its tap device
 *
 * Instead of a VMM, netshim can serve a network namespace in the pod: a
 * sandbox, a nested container, a test harness.  Either it makes one,
 * "netshim [OPTIONS] -- COMMAND": a child process unshares a new user and
 * network namespace, where it is root, and runs COMMAND once the namespace
 * is ready; or it joins one, "netshim --netns PATH|NAME|PID".
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
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "ctx.h"
#include "fdpool.h"
#include "log.h"
#include "nsconf.h"
#include "netns.h"
#include "userns.h"

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
 * netns_map_ids() - map root of the child's user namespace to our ids
 * @pid:	the child, which has just unshared its user namespace
 *
 * The command runs as root in its namespace (it owns it, so it may set
 * up its network), and as us outside it.
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int netns_map_ids(pid_t pid)
{
	if (userns_map_uid(pid, 0)) {
		err("cannot map uid %u in the new user namespace: %m",
		    geteuid());
		return -1;
	}
	if (userns_map_gid(pid, 0)) {
		err("cannot map gid %u in the new user namespace: %m",
		    getegid());
		return -1;
	}
	return 0;
}

/**
 * netns_exec_shell() - run the user's shell as a login shell, as pasta does
 *			without a command
 * @path:	the shell
 *
 * Return: only on failure, with errno set
 */
static void netns_exec_shell(const char *path)
{
	char arg0[PATH_MAX + 1];
	char *argv[] = { arg0, NULL };

	/* A leading '-' in its name tells a shell it is a login shell */
	if ((size_t)snprintf(arg0, sizeof(arg0), "-%s", path) >= sizeof(arg0)) {
		errno = ENAMETOOLONG;
		return;
	}
	execv(path, argv);
}

/**
 * netns_child() - the command's process: unshare, wait, exec
 * @argv:	command and arguments
 * @shell:	@argv[0] is the user's shell, run as a login shell
 * @ready_fd:	written once the namespaces exist
 * @go_fd:	read: a byte means the network is ready, end of file that
 *		netshim failed
 */
static void __attribute__((noreturn)) netns_child(char **argv, bool shell,
						  int ready_fd, int go_fd)
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
	if (shell)
		netns_exec_shell(argv[0]);
	else
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
		netns_child(argv, c->conf.ns_shell, ready[1], go[0]);
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
 *		(its user namespace is the one owning it), or --userns;
 *		the user namespace is joined only where it is not ours, and
 *		never with --netns-only
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int netns_join(struct ctx *c, const char *target)
{
	struct netns *ns = &c->ns;

	if (conf_netns_is_pid(target)) {
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
	if (*c->conf.userns) {
		close(ns->user_fd);
		ns->user_fd = open(c->conf.userns, O_RDONLY | O_CLOEXEC);
		if (ns->user_fd < 0) {
			err("cannot open user namespace %s: %m",
			    c->conf.userns);
			return -1;
		}
		if (ioctl(ns->user_fd, NS_GET_NSTYPE) != CLONE_NEWUSER) {
			err("%s is not a user namespace", c->conf.userns);
			return -1;
		}
	}
	if (c->conf.netns_only || netns_user_is_ours(ns->user_fd)) {
		close(ns->user_fd);
		ns->user_fd = -1;
	}
	return 0;
}

/**
 * netns_tap_in() - inside the namespace: make the tap, bring loopback
 *		    up, and with --config-net configure the tap
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
 * netns_tap_adopt() - the tap a running netshim handed over (--upgrade)
 * @c:		execution context: c->ns.tap_fd, ifname and mac set
 * @fd:		the tap, configured in the namespace long ago
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int netns_tap_adopt(struct ctx *c, int fd)
{
	struct netns *ns = &c->ns;
	struct ifreq ifr = { 0 };

	if (ioctl(fd, TUNGETIFF, &ifr) || ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		err("the tap handed over: %m");
		close(fd);
		return -1;
	}
	snprintf(ns->ifname, sizeof(ns->ifname), "%s", ifr.ifr_name);
	memcpy(ns->mac, ifr.ifr_hwaddr.sa_data, sizeof(ns->mac));
	ns->tap_fd = fd;
	return 0;
}

/**
 * netns_tap() - make the namespace's tap device, with the pod's addresses
 *		 with --config-net
 * @c:		execution context, after netns_spawn() or netns_join();
 *		c->ns.tap_fd and c->ns.mac set: the tap's MAC address,
 *		which the caller fixes as the guest's (guest_mac_fixed())
 *
 * The tap is named like the pod's template interface, unless --ns-ifname.
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int netns_tap(struct ctx *c)
{
	const struct conf_copy *cp = &c->conf.ns_copy;
	struct netns *ns = &c->ns;
	const char *name = *c->conf.ns_ifname ? c->conf.ns_ifname :
			   *c->conf.ifname ? c->conf.ifname : "tap0";
	int fd;

	snprintf(ns->ifname, sizeof(ns->ifname), "%s", name);
	ns->tap_fd = -1;
	/* Taking over from a running netshim: its tap, as it is */
	fd = fdpool_take(FDPOOL_TAP);
	if (fd >= 0 ? netns_tap_adopt(c, fd) : netns_call(c, netns_tap_in))
		return -1;
	info("namespace interface %s: %02x:%02x:%02x:%02x:%02x:%02x, MTU %u%s",
	     ns->ifname, ns->mac[0], ns->mac[1], ns->mac[2], ns->mac[3],
	     ns->mac[4], ns->mac[5], c->conf.mtu,
	     c->conf.config_net ? "" : ", left down for the namespace's own "
	     "DHCP and SLAAC (--config-net sets it up)");
	if (c->conf.config_net && (cp->n_addr || cp->n_route))
		info("--config-net: %d addresses and %d routes of %s copied",
		     cp->n_addr, cp->n_route, c->conf.ifname);
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
 * netns_pid_of() - the process a --netns argument names, if it does
 * @target:	a PID, or a path; /proc/PID/ns/net names PID too
 * @pid:	the process, output
 *
 * Return: true if @target names a process
 */
static bool netns_pid_of(const char *target, pid_t *pid)
{
	unsigned long v;
	int end = 0;

	if (conf_netns_is_pid(target))
		v = strtoul(target, NULL, 10);
	else if (sscanf(target, "/proc/%lu/ns/net%n", &v, &end) != 1 ||
		 !end || target[end])
		return false;
	if (!v || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

/**
 * netns_watch() - with --netns, exit once the namespace is gone, as pasta
 * @c:		execution context, after netns_join(); c->ns.gone_fd set
 *
 * A namespace joined by path lives as long as something holds it, and
 * netshim does: its tap and its helper would keep it, and netshim itself,
 * alive for ever once "ip netns del" removed its file.  So the file's
 * directory is watched (inotify, which works after isolate(): the watch
 * is on the directory, not a path), or for a process (PID, or a path
 * under /proc/PID/ns/) the process (a pidfd, readable once it ends).
 * Nothing to do for a command after "--": its exit ends netshim.
 *
 * Return: 0 on success or when the namespace cannot be watched (said:
 *	   netshim then serves it until stopped), -1 if it is gone already
 */
int netns_watch(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(EPREF_NETNS, 0) };
	struct netns *ns = &c->ns;
	const char *t = c->conf.netns, *base;
	char dir[PATH_MAX];
	struct stat st;
	pid_t pid;

	ns->gone_fd = -1;
	*ns->gone_name = '\0';
	if (!*t || c->conf.no_netns_quit)
		return 0;
	if (netns_pid_of(t, &pid)) {
		ns->gone_fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (ns->gone_fd < 0 && errno == ESRCH) {
			err("namespace %s: process %d is gone", t, pid);
			return -1;
		}
	} else {
		base = strrchr(t, '/');
		/* conf.c made a name a path: there is a slash */
		snprintf(dir, sizeof(dir), "%.*s",
			 base == t ? 1 : (int)(base - t), t);
		snprintf(ns->gone_name, sizeof(ns->gone_name), "%s", base + 1);
		ns->gone_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ns->gone_fd >= 0 &&
		    inotify_add_watch(ns->gone_fd, dir, IN_DELETE |
				      IN_MOVED_FROM | IN_DELETE_SELF) < 0) {
			close(ns->gone_fd);
			ns->gone_fd = -1;
		}
		/* Removed before the watch began: no event will come */
		if (ns->gone_fd >= 0 && stat(t, &st)) {
			err("namespace %s is gone", t);
			return -1;
		}
	}
	if (ns->gone_fd < 0 ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, ns->gone_fd, &ev)) {
		warn("cannot watch namespace %s (%m): netshim will serve it "
		     "until stopped (--no-netns-quit says that is meant)", t);
		if (ns->gone_fd >= 0)
			close(ns->gone_fd);
		ns->gone_fd = -1;
		*ns->gone_name = '\0';
	}
	return 0;
}

/**
 * netns_gone() - the watch of netns_watch() reported: is the namespace gone
 * @c:		execution context
 *
 * Return: true if the namespace's file was removed (or its directory), or
 *	   its process ended (said)
 */
bool netns_gone(struct ctx *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct netns *ns = &c->ns;
	bool gone = false;
	ssize_t n;

	if (!*ns->gone_name) {	/* a pidfd is only readable once it ended */
		info("namespace %s: its process ended, exiting",
		     c->conf.netns);
		return true;
	}
	while ((n = read(ns->gone_fd, buf, sizeof(buf))) > 0) {
		const struct inotify_event *e;
		const char *p;

		for (p = buf; p < buf + n; p += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)p;
			if (e->mask & (IN_DELETE_SELF | IN_IGNORED) ||
			    (e->len && !strcmp(e->name, ns->gone_name)))
				gone = true;
		}
	}
	if (gone)
		info("namespace %s was removed: exiting", c->conf.netns);
	return gone;
}
