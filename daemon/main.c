// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - userspace network backend for virtual machines in pods
 *
 * Start-up sizes every table and buffer; the loop then only moves bytes
 * between the VMM's socket and host sockets, allocating nothing.
 *
 * The loop is epoll's, waited for through io_uring with --io-uring where
 * the pod allows it (netshim/uring.c): the RuntimeDefault seccomp profiles
 * of containerd and Docker refuse io_uring_setup, so a backend that
 * needed io_uring would not start in the pods it is for.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include "ctl.h"
#include "ctl_fwd.h"
#include "fwd_auto.h"
#include "fwd_ns.h"
#include "guest.h"
#include "upgrade.h"
#include "bpf/bpf.h"
#include "bpf/sk_lookup.h"
#include "icmp/icmp.h"
#include "link/link.h"
#include "net/flow.h"
#include "net/fwd.h"
#include "net/podwatch.h"
#include "netshim/conf.h"
#include "netshim/ctx.h"
#include "netshim/fdpool.h"
#include "netshim/isolate.h"
#include "netshim/log.h"
#include "netshim/netns.h"
#include "netshim/nssock.h"
#include "netshim/pcap.h"
#include "netshim/uring.h"
#include "tcp/splice.h"
#include "tcp/tcp.h"
#include "udp/splice.h"
#include "udp/udp.h"

#define EVENTS_MAX	256
#define TICK_MS		50
/* Local flows at once, in namespace mode: four descriptors each, pipes */
#define SPLICE_MAX	256
/* UDP local flows at once: each holds a socket */
#define UDP_SPLICE_MAX	4096

/**
 * counters_log() - log every counter, on SIGUSR1
 * @c:		execution context
 */
static void counters_log(struct ctx *c)
{
	splice_counters(c);
	info("counters: %u TCP connections, %u UDP/ICMP flows open",
	     tcp_count(c), flow_count(c));
	if (c->splice)
		info("  local flows open: %u TCP, %u UDP", splice_count(c),
		     udp_splice_count(c));
#define COUNTER_LOG(name, desc)						\
	info("  %-18s %10llu  %s", #name,				\
	     (unsigned long long)c->cnt.name, desc);
	COUNTERS(COUNTER_LOG)
#undef COUNTER_LOG
	if (c->sk_lookup)
		info("  %-18s %10llu  %s", "sk_lookup",
		     (unsigned long long)sk_lookup_assigned(c),
		     "TCP connections handed over by eBPF sk_lookup");
}

/**
 * setup_signals() - take SIGTERM, SIGINT, SIGUSR1 through a signalfd
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure
 */
static int setup_signals(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(EPREF_SIGNAL, 0) };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	c->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->signal_fd < 0)
		return -1;
	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->signal_fd, &ev);
}

/**
 * setup_timer() - periodic tick for protocol timers
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure
 */
static int setup_timer(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(EPREF_TIMER, 0) };
	struct itimerspec it = {
		.it_interval = { 0, TICK_MS * 1000000L },
		.it_value = { 0, TICK_MS * 1000000L },
	};

	c->timer_fd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->timer_fd < 0 || timerfd_settime(c->timer_fd, 0, &it, NULL))
		return -1;
	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->timer_fd, &ev);
}

/**
 * signal_input() - act on a pending signal
 * @c:		execution context
 */
static void signal_input(struct ctx *c)
{
	struct signalfd_siginfo si;

	while (read(c->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {
			counters_log(c);
		} else if (si.ssi_signo == SIGCHLD) {
			if (netns_reap(c)) {
				info("command exited (status %d): exiting",
				     c->ns.status);
				c->quit = true;
			}
		} else if (si.ssi_signo != SIGHUP) {
			info("signal %u: exiting", si.ssi_signo);
			c->quit = true;
		}
	}
}

/**
 * timer_input() - run protocol timers on a tick
 * @c:		execution context
 */
static void timer_input(struct ctx *c)
{
	uint64_t expirations;
	static time_t last_second;

	if (read(c->timer_fd, &expirations, sizeof(expirations)) < 0)
		return;
	tcp_timer(c);
	splice_timer(c);
	ctl_timer(c);
	/* No VMM within --connect-timeout: done */
	if (link_client_timer(c))
		c->quit = true;
	if (c->now.tv_sec != last_second) {
		last_second = c->now.tv_sec;
		flow_timer(c);
		icmp_ra_timer(c);
		fwd_auto_timer(c);
		fwd_lookup_timer(c);
		udp_splice_timer(c);
	}
}

/**
 * dispatch() - hand one epoll event to its owner
 * @c:		execution context
 * @ev:		the event
 */
static void dispatch(struct ctx *c, const struct epoll_event *ev)
{
	uint32_t idx = (uint32_t)ev->data.u64;
	struct flow *f;

	switch ((enum epref_type)(ev->data.u64 >> 32)) {
	case EPREF_LINK_LISTEN:
		link_accept(c);
		break;
	case EPREF_REPAIR_LISTEN:
		repair_accept(c);
		break;
	case EPREF_REPAIR:
		repair_event(c);
		break;
	case EPREF_UPGRADE_LISTEN:
		upgrade_accept(c);
		break;
	case EPREF_UPGRADE:
		upgrade_event(c, ev->events);
		break;
	case EPREF_NETNS:
		if (netns_gone(c))
			c->quit = true;
		break;
	case EPREF_LINK:
		guest_link_event(c, idx, ev->events);
		break;
	case EPREF_SIGNAL:
		signal_input(c);
		break;
	case EPREF_TIMER:
		timer_input(c);
		break;
	case EPREF_FLOW:
		f = flow_at(c, idx);
		if (!f)
			break;
		if (f->proto == IPPROTO_UDP)
			udp_flow_ready(c, f, ev->events);
		else
			icmp_flow_ready(c, f, ev->events);
		break;
	case EPREF_UDP_LISTEN:
		udp_listener_ready(c, idx);
		break;
	case EPREF_TCP:
		tcp_sock_ready(c, idx, ev->events);
		break;
	case EPREF_TCP_LISTEN:
		tcp_listener_ready(c, idx);
		break;
	case EPREF_TCP_AUTO:
		fwd_auto_ready(c, false, idx);
		break;
	case EPREF_UDP_AUTO:
		fwd_auto_ready(c, true, idx);
		break;
	case EPREF_SPLICE:
		splice_ready(c, idx, ev->events);
		break;
	case EPREF_TCP_NS:
		fwd_ns_ready(c, idx);
		break;
	case EPREF_UDP_NS:
		fwd_ns_udp_ready(c, idx);
		break;
	case EPREF_UDP_SPLICE:
		udp_splice_ready(c, idx);
		break;
	case EPREF_TCP_NS_AUTO:
		fwd_auto_ns_ready(c, false, idx);
		break;
	case EPREF_UDP_NS_AUTO:
		fwd_auto_ns_ready(c, true, idx);
		break;
	case EPREF_CTL_LISTEN:
		ctl_listen_ready(c, false);
		break;
	case EPREF_METRICS_LISTEN:
		ctl_listen_ready(c, true);
		break;
	case EPREF_CTL:
		ctl_ready(c, idx, ev->events);
		break;
	}
}

/**
 * loop() - the event loop: no allocation from here on
 * @c:		execution context
 */
static void loop(struct ctx *c)
{
	struct epoll_event ev[EVENTS_MAX];
	bool acks_held = false;
	int n, i, timeout;

	while (!c->quit) {
		/* Don't sleep while frames or senders wait for a VMM that
		 * can take them.
		 */
		bool busy = link_up(c) && !link_blocked(c) &&
			    (link_pending(c) || tcp_tx_waiting(c));

		timeout = busy ? 0 : acks_held ? TCP_ACK_HOLD_MS : -1;

		/* Just before the wait: with io_uring, submitted with it */
		tcp_drop_pending(c, true);
		if (uring_on(c))
			n = uring_wait(c, ev, EVENTS_MAX, timeout);
		else
			n = epoll_wait(c->epfd, ev, EVENTS_MAX, timeout);
		if (n < 0 && errno != EINTR) {
			err("%s: %m", uring_on(c) ? "io_uring" : "epoll_wait");
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &c->now);
		tcp_drop_failed(c);
		for (i = 0; i < n && !c->quit; i++) {
			dispatch(c, &ev[i]);
			guest_news(c);
		}
		/* Handed over: every socket is the new netshim's now */
		if (c->up.done)
			break;
		/* What a capture to a control client caught goes out: the
		 * frames of this pass's flush at the next, a tick at most
		 */
		ctl_after(c);

		if (!link_up(c))
			continue;
		acks_held = tcp_flush_acks(c, false);
		if (link_pending(c))
			link_flush(c);
		/* Senders that waited for room, if the link has it now */
		if (link_up(c) && !link_blocked(c) && tcp_tx_waiting(c))
			tcp_tx_resume(c);
		guest_news(c);
	}
}

/**
 * raise_nofile() - allow as many sockets as the hard limit permits
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/**
 * daemonize() - go to the background unless -f
 * @c:		execution context
 * @ready:	set to the pipe the daemon reports its start on, or -1
 *
 * Everything is set up before, so that a failure still reaches the
 * launcher as an exit status.  The parent exits only once the daemon
 * reported through @ready (daemon_ready()) that its PID file is written
 * and it is isolated: launchers (libvirt, QEMU's -netdev passt) read the
 * PID file as soon as the process they started exits.  The signalfd is
 * made again: epoll watches a signalfd through the wait queue of the
 * process that added it, and signals to the child would never wake the
 * loop.
 *
 * Return: 0 in the daemon, -1 on failure
 */
static int daemonize(struct ctx *c, int *ready)
{
	int fd, pipefd[2];
	char ok = 0;
	ssize_t n;
	pid_t pid;

	*ready = -1;
	if (c->conf.foreground)
		return 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(pipefd[1]);
		do
			n = read(pipefd[0], &ok, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && ok == 1 ? 0 : 1);
	}
	close(pipefd[0]);
	*ready = pipefd[1];
	setsid();
	log_forked();
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->signal_fd, NULL);
	close(c->signal_fd);
	if (setup_signals(c)) {
		err("signals in the daemon: %m");
		return -1;
	}
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		/* -e: messages keep going to the launcher's stderr */
		if (!c->conf.log_stderr)
			dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	return 0;
}

/**
 * daemon_ready() - let the parent exit with success: the daemon runs
 * @ready:	pipe from daemonize(), -1 in the foreground
 */
static void daemon_ready(int ready)
{
	char ok = 1;

	if (ready < 0)
		return;
	if (write(ready, &ok, 1) != 1)
		warn("cannot report the start to the launcher: %m");
	close(ready);
}

/**
 * pid_file_open() - open the PID file for the launcher, not emptied yet
 * @c:		execution context
 * @fd:		set to its descriptor, -1 if no file is wanted
 *
 * Taking over (--upgrade), the old netshim's PID stays there until it
 * let go: the file is written only then (pid_file_write()), after the
 * sandbox, through this descriptor.
 *
 * Return: 0 on success or no file wanted, -1 on failure
 */
static int pid_file_open(struct ctx *c, int *fd)
{
	*fd = -1;
	if (!*c->conf.pid_file)
		return 0;
	*fd = open(c->conf.pid_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		err("cannot write PID file %s: %m", c->conf.pid_file);
		return -1;
	}
	return 0;
}

/**
 * pid_file_write() - record our PID for the launcher
 * @fd:		the PID file, from pid_file_open(), closed; -1 for none
 *
 * Return: 0 on success or no file wanted, -1 on failure
 */
static int pid_file_write(int fd)
{
	char buf[32];
	int n, rc = 0;

	if (fd < 0)
		return 0;
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (ftruncate(fd, 0) || write(fd, buf, n) != n)
		rc = -1;
	close(fd);
	return rc;
}

/**
 * setup_ns() - namespace mode: make or join the namespace, make its tap
 * @c:		execution context
 *
 * Return: 0 on success or outside namespace mode, -1 on failure (logged)
 */
static int setup_ns(struct ctx *c)
{
	c->ns.net_fd = c->ns.user_fd = c->ns.go_fd = c->ns.tap_fd = -1;
	c->ns.helper_fd = c->ns.gone_fd = -1;
	if (c->conf.ns_cmd) {
		if (netns_spawn(c, c->conf.ns_cmd))
			return -1;
	} else if (*c->conf.netns) {
		if (netns_join(c, c->conf.netns) || netns_watch(c))
			return -1;
	} else {
		return 0;
	}
	if (netns_tap(c))
		return -1;
	/* The tap's address is the guest's, as if given with --mac-addr */
	guest_mac_fixed(c, c->ns.mac);
	return fwd_auto_init(c) || fwd_ns_init(c) ||
	       splice_init(c, SPLICE_MAX) ||
	       udp_splice_init(c, UDP_SPLICE_MAX);
}

/**
 * setup() - size everything, open every socket
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int setup(struct ctx *c)
{
	int rc;

	c->pcap_fd = -1;
	c->link.fd = c->link.listen_fd = -1;
	c->repair.listen_fd = c->repair.fd = -1;
	c->up.listen_fd = -1;
	if (!c->conf.upgrade)
		c->up.fd = -1;
	if (c->conf.guest_mac_set)
		guest_mac_fixed(c, c->conf.guest_mac);
	clock_gettime(CLOCK_MONOTONIC, &c->now);

	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0 || setup_signals(c) || setup_timer(c)) {
		err("event loop set-up: %m");
		return -1;
	}
	if (flow_init(c)) {
		err("cannot size the flow and connection tables: %m");
		return -1;
	}
	/* Before any pod socket is opened: each is noted as ours */
	if (podwatch_init(c))
		return -1;
	if (tcp_init(c))		/* says why itself */
		return -1;
	if (udp_init(c))
		return -1;
	if (*c->conf.pcap_file && pcap_open(c, c->conf.pcap_file))
		return -1;
	if (setup_ns(c))
		return -1;
	/* -c and --metrics: once every forwarding socket is open */
	if (ctl_fwd_init(c) || ctl_init(c))
		return -1;
	/* Namespace mode: netns_tap() made the tap before */
	if (c->ns.net_fd >= 0)
		rc = link_init(c, &link_tap_ops);
	else if (c->conf.vhost_user)
		rc = repair_listen(c) || link_init(c, &link_vu_ops);
	else
		rc = link_init(c, &link_stream_ops);
	return rc || upgrade_listen(c);
}

/* The allocation guard of tests/alloc/ arms itself here; elsewhere this
 * is a null weak symbol.
 */
extern void netshim_loop_starts(void) __attribute__((weak));

/**
 * main() - configure, set up, detach and drop privileges, run the loop
 * @argc:	argument count
 * @argv:	options (see --help and doc/netshim.1)
 *
 * Return: 0 after a clean exit, 1 on a bad command line or a failed start
 */
int main(int argc, char **argv)
{
	static struct ctx ctx;
	struct ctx *c = &ctx;
	struct isolate_path sock_k = { .dirfd = -1 }, pid_k = { .dirfd = -1 };
	struct isolate_path up_k = { .dirfd = -1 };
	int rc = 0, ready, pid_fd = -1;
	unsigned int left;

	if (conf_parse(&c->conf, argc, argv))
		return 1;
	/* Taking over: the running netshim's lines stay in the file */
	log_set_append(c->conf.upgrade);
	log_open(c->conf.log_file, c->conf.foreground || c->conf.log_stderr,
		 c->conf.quiet, c->conf.debug);
	log_set_trace(c->conf.trace);
	log_set_size(c->conf.log_size);
	bpf_log_init();
	raise_nofile();

	/* Taking over: the old netshim's sockets that never change, before
	 * set-up, which takes them instead of binding its own
	 */
	if (c->conf.upgrade && upgrade_begin(c))
		return 1;
	if (setup(c))
		return 1;
	if (c->conf.upgrade)
		upgrade_rules_apply(c);
	left = fdpool_drain();
	if (left)
		info("upgrade: %u sockets of the old netshim not forwarded by "
		     "this command line: left to it", left);
	conf_log_summary(&c->conf);
	if (c->conf.vmm_fd >= 0) {
		info("serving the VMM connection on descriptor %d",
		     c->conf.vmm_fd);
	} else if (c->conf.vmm_connect) {
		info("connecting to %s, where the VMM listens",
		     c->conf.sock_path);
		if (c->conf.vhost_user)
			info("QEMU: -chardev socket,id=c,path=%s,server=on "
			     "-netdev vhost-user,id=n,chardev=c -device "
			     "virtio-net-pci,netdev=n, with guest memory from "
			     "-object memory-backend-memfd,share=on",
			     c->conf.sock_path);
		else
			info("QEMU: -device virtio-net-pci,netdev=n -netdev "
			     "stream,id=n,server=on,addr.type=unix,"
			     "addr.path=%s", c->conf.sock_path);
	} else if (c->conf.upgrade && c->link.listen_fd < 0 &&
		   c->ns.net_fd < 0) {
		info("serving the VMM connection the running netshim hands "
		     "over, with no socket to listen on");
	} else if (c->ns.net_fd < 0) {	/* namespace mode has no socket */
		info("listening on %s", c->conf.sock_path);
		if (c->conf.vhost_user)
			info("QEMU: -chardev socket,id=c,path=%s -netdev "
			     "vhost-user,id=n,chardev=c -device virtio-net-pci,"
			     "netdev=n, with guest memory from -object "
			     "memory-backend-memfd,share=on",
			     c->conf.sock_path);
		else
			info("QEMU: -device virtio-net-pci,netdev=n -netdev "
			     "stream,id=n,server=off,addr.type=unix,"
			     "addr.path=%s", c->conf.sock_path);
		if (c->conf.foreground && c->conf.quiet)
			fprintf(stderr, "netshim: listening on %s\n",
				c->conf.sock_path);
	}

	/* The namespace's helper dies with the process that starts it: the
	 * daemon's, not the parent that daemonize() lets exit
	 */
	if (daemonize(c, &ready) || (c->ns.net_fd >= 0 && nssock_start(c)) ||
	    uring_init(c) ||
	    pid_file_open(c, &pid_fd) ||
	    (!c->conf.upgrade && pid_file_write(pid_fd)) ||
	    isolate(&c->conf, c->up.listen_fd >= 0 ? c->conf.upgrade_path :
		    NULL, &sock_k, &pid_k, &up_k, splice_bpf_loaded(c))) {
		/* Taking over, they are the old netshim's, serving on; with
		 * --connect, the socket is the VMM's
		 */
		if (*c->conf.sock_path && !c->conf.upgrade &&
		    !c->conf.vmm_connect)
			unlink(c->conf.sock_path);
		if (*c->conf.pid_file && !c->conf.upgrade)
			unlink(c->conf.pid_file);
		if (c->up.listen_fd >= 0 && !c->conf.upgrade)
			unlink(c->conf.upgrade_path);
		return 1;
	}
	/* Everything set up and isolated: the old netshim stops only now */
	if (c->conf.upgrade && upgrade_take(c))
		return 1;
	fdpool_orphans_remove();
	if (c->conf.upgrade && pid_file_write(pid_fd))
		warn("cannot write PID file %s: %m", c->conf.pid_file);
	/* If the command is gone already, SIGCHLD tells the loop */
	netns_release(c);
	daemon_ready(ready);
	if (netshim_loop_starts)
		netshim_loop_starts();
	loop(c);
	/* Handed over: the counters go on in the new netshim, and the
	 * socket and PID files are its own
	 */
	if (c->up.done)
		return 0;
	counters_log(c);
	ctl_exit(c);
	isolate_remove(&sock_k);
	isolate_remove(&pid_k);
	isolate_remove(&up_k);
	if (link_client_gave_up(c))
		rc = 1;
	return c->ns.exited ? c->ns.status : rc;
}
