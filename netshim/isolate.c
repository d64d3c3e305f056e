// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - giving a compromised netshim as little as possible
 *
 * Once every socket and file it needs is open, netshim:
 * 1. detaches from the filesystem: a new mount namespace whose root is an
 *    empty, read-only tmpfs (in a new user namespace when not root);
 * 2. drops to an unprivileged user: --runas, or nobody when started as root
 *    (root of a user namespace with no nobody stays root there, an
 *    ordinary user outside);
 * 3. drops every capability and sets PR_SET_NO_NEW_PRIVS;
 * 4. installs a seccomp filter allowing only the system calls of the loop.
 * Each step is logged at debug level.  Step 1 fails soft (a pod may forbid
 * namespaces; root then takes a removed empty directory as its root): the
 * others are required.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "isolate.h"
#include "log.h"
#include "passwd.h"
#include "userns.h"

#if defined(__x86_64__)
#define SECCOMP_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

/* Every system call the event loop and a clean exit make: nothing else.
 * Names resolve to this architecture's numbers; calls an architecture does
 * not have (epoll_wait on aarch64) are left out by the #ifdefs.
 */
static const long isolate_syscalls[] = {
	__NR_read, __NR_write, __NR_writev, __NR_close,
	__NR_pread64, __NR_pwrite64, __NR_ftruncate,	/* the log file, cut */
	__NR_lseek,		/* its end, another netshim writing too */
#ifdef __NR_epoll_wait
	__NR_epoll_wait,
#endif
	__NR_epoll_pwait, __NR_epoll_ctl,
	/* The loop's ring (netshim/uring.c), made before and restricted to
	 * an epoll wait and recv(): io_uring_setup() stays out
	 */
	__NR_io_uring_enter,
	__NR_recvfrom, __NR_recvmsg, __NR_sendto, __NR_sendmsg,
	__NR_recvmmsg, __NR_sendmmsg,	/* UDP local flows, batched */
	__NR_socket, __NR_connect, __NR_bind, __NR_accept4, __NR_shutdown,
	__NR_listen,		/* -t auto binds ports as listeners come */
	__NR_splice,		/* local flows (tcp/splice.c) */
	__NR_setsockopt, __NR_getsockopt,
	__NR_getsockname,	/* sk_lookup: a connection's forwarded port */
	__NR_getpeername,	/* netshim-ctl flows: a socket's peer */
	__NR_clock_gettime, __NR_gettimeofday, __NR_getpid,
	__NR_fchdir,		/* --connect: into the VMM's socket's directory */
	__NR_unlinkat, __NR_rt_sigreturn, __NR_restart_syscall,
	__NR_wait4,		/* namespace mode: the command's exit status */
	/* An upgrade in place: bounded waits on the new netshim's socket
	 * (daemon/upgrade.c), and the PID file written once it took over
	 */
#ifdef __NR_poll
	__NR_poll,
#endif
	__NR_ppoll,
	__NR_exit, __NR_exit_group,
};

/* With --vhost-user only: a new memory table is mapped (its files' sizes
 * checked first) and the old one unmapped, and so is a migration's dirty
 * log; a device state transfer waits on its pipe.
 */
static const long isolate_syscalls_vu[] = {
	__NR_mmap, __NR_munmap,
	__NR_madvise,		/* its queues' buffer given back */
#ifdef __NR_fstat
	__NR_fstat,
#endif
#ifdef __NR_newfstatat
	__NR_newfstatat,
#endif
};

/* ioctl() only for SIOCOUTQ, SIOCINQ and SIOCOUTQNSD: bytes queued in a
 * socket (tcp/to_guest.c; tcp/splice.c for flows the sockmap fast path
 * moves; tcp/migrate.c for a migrated connection's queues)
 */
static const unsigned int isolate_ioctls[] = { SIOCOUTQ, SIOCINQ,
					       SIOCOUTQNSD };

/* bpf() only on the maps of programs loaded before the sandbox (bpf/),
 * and only when one was loaded: no loading, attaching or map creation
 * from the loop
 */
static const unsigned int isolate_bpf_cmds[] = {
	BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM, BPF_MAP_DELETE_ELEM,
};

#define ISOLATE_N(a)		(sizeof(a) / sizeof((a)[0]))

/* The low 32 bits of a system call argument: ioctl's command is an int */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SECCOMP_ARG_LO(i)	(offsetof(struct seccomp_data, args[i]))
#else
#define SECCOMP_ARG_LO(i)	(offsetof(struct seccomp_data, args[i]) + 4)
#endif

#ifdef SECCOMP_AUDIT_ARCH
/**
 * isolate_args() - filter instructions allowing one argument's values
 * @f:		filter, written from @n on
 * @n:		next free instruction
 * @arg:	which argument
 * @vals:	values allowed
 * @count:	how many
 * @allow:	index of the instruction that allows the call
 *
 * Loads the argument, jumps to @allow on a listed value, kills otherwise.
 *
 * Return: next free instruction
 */
static unsigned int isolate_args(struct sock_filter *f, unsigned int n,
				 unsigned int arg, const unsigned int *vals,
				 unsigned int count, unsigned int allow)
{
	unsigned int i;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				SECCOMP_ARG_LO(arg));
	for (i = 0; i < count; i++, n++)
		f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					vals[i], allow - n - 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_KILL_PROCESS);
	return n;
}
#endif

/**
 * isolate_seccomp() - allow only the system calls in isolate_syscalls
 * @vhost_user:	also those of isolate_syscalls_vu
 * @bpf_maps:	also bpf() for the commands of isolate_bpf_cmds
 *
 * Anything else kills the process (SECCOMP_RET_KILL_PROCESS): a call the
 * loop never makes is an attacker's.  ioctl() and bpf() are allowed for
 * the commands listed only.
 *
 * Return: 0 on success, -1 on failure
 */
int isolate_seccomp(bool vhost_user, bool bpf_maps)
{
#ifdef SECCOMP_AUDIT_ARCH
	enum {
		N_BASE = ISOLATE_N(isolate_syscalls),
		N_VU = ISOLATE_N(isolate_syscalls_vu),
		N_IOCTL = ISOLATE_N(isolate_ioctls),
		N_BPF = ISOLATE_N(isolate_bpf_cmds),
	};
	long calls[N_BASE + N_VU];
	struct sock_filter f[N_BASE + N_VU + N_IOCTL + N_BPF + 16];
	struct sock_fprog prog = { .filter = f };
	unsigned int i, n = 0, N = N_BASE, list, ioctl_at, bpf_at, allow;

	memcpy(calls, isolate_syscalls, sizeof(isolate_syscalls));
	if (vhost_user) {
		memcpy(calls + N_BASE, isolate_syscalls_vu,
		       sizeof(isolate_syscalls_vu));
		N += N_VU;
	}

	/* Layout: arch check (3), load nr (1), ioctl and bpf jumps (2),
	 * the list (N), kill (1), ioctl's check, bpf()'s check, allow
	 */
	list = 6;
	ioctl_at = list + N + 1;
	bpf_at = ioctl_at + N_IOCTL + 2;
	allow = bpf_at + N_BPF + 2;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				SECCOMP_AUDIT_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, nr));
	/* Jumps count the instructions they skip */
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				__NR_ioctl, ioctl_at - n - 1, 0);
	n++;
	/* Without maps to use, bpf() falls through to the kill */
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				bpf_maps ? __NR_bpf : __NR_ioctl,
				bpf_at - n - 1, 0);
	n++;
	for (i = 0; i < N; i++, n++)
		f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					(unsigned int)calls[i],
					allow - n - 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_KILL_PROCESS);
	n = isolate_args(f, n, 1, isolate_ioctls, N_IOCTL, allow);
	n = isolate_args(f, n, 0, isolate_bpf_cmds, N_BPF, allow);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		err("cannot install the seccomp filter: %m");
		return -1;
	}
	debug("seccomp: %u system calls allowed%s", (unsigned int)N,
	      bpf_maps ? ", and bpf() on maps" : "");
	return 0;
#else
	warn("no seccomp filter for this architecture");
	return 0;
#endif
}

/**
 * isolate_path_of() - what is needed to remove a file once the root is gone
 * @path:	the file
 * @k:		filled in: its directory, opened now, and its name; dirfd
 *		-1 if there is none
 */
void isolate_path_of(const char *path, struct isolate_path *k)
{
	char dir[PATH_MAX], base[PATH_MAX];

	k->dirfd = -1;
	k->uid = (uid_t)-1;	/* not known yet: isolate() decides */
	if (!path || !*path || strlen(path) >= PATH_MAX)
		return;
	strcpy(dir, path);
	strcpy(base, path);
	snprintf(k->name, sizeof(k->name), "%s", basename(base));
	k->dirfd = open(dirname(dir), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/**
 * isolate_hand() - give a file we created to the user we will run as, so
 *		    that it can remove it
 * @path:	the file, nothing if empty
 * @uid:	that user
 * @gid:	its group
 */
static void isolate_hand(const char *path, uid_t uid, gid_t gid)
{
	if (*path && lchown(path, uid, gid) && errno != EPERM)
		debug("cannot hand %s to uid %u: %m", path, uid);
}

/**
 * isolate_keep_path() - keep what is needed to remove a file at exit
 * @path:	file we created
 * @k:		filled in: its directory, opened now, and its name
 * @uid:	user we will run as (gets the file, so it can remove it)
 * @gid:	group we will run as
 */
static void isolate_keep_path(const char *path, struct isolate_path *k,
			      uid_t uid, gid_t gid)
{
	isolate_path_of(path, k);
	k->uid = uid;
	if (k->dirfd >= 0)
		isolate_hand(path, uid, gid);
}

/**
 * isolate_remove() - remove a file kept by isolate_keep_path()
 * @k:		directory and name
 */
void isolate_remove(const struct isolate_path *k)
{
	if (k->dirfd < 0 || !unlinkat(k->dirfd, k->name, 0) || errno == ENOENT)
		return;
	/* Started as root with the file in a directory only root may
	 * write (/run): the unprivileged user we became cannot remove it,
	 * and taking a capability back for that is not worth it.  passt
	 * leaves its files too; libvirt removes them itself.
	 */
	if ((errno == EACCES || errno == EPERM) && k->uid != (uid_t)-1)
		info("%s left in place: its directory is not writable by "
		     "uid %u", k->name, (unsigned int)k->uid);
	else if (errno == EACCES || errno == EPERM)
		info("%s left in place: its directory is not writable by "
		     "the user netshim runs as", k->name);
	else
		warn("cannot remove %s: %m", k->name);
}

/**
 * isolate_chroot() - without namespaces: root in a removed empty directory
 *
 * The closest to an empty root that needs no namespace: a fresh directory
 * is removed while we hold it open, then made our root.  Nothing can be
 * created in a removed directory, and nothing is reachable from it.  Needs
 * CAP_SYS_CHROOT, so only root gets this far.
 *
 * Return: 0 on success, -1 on failure
 */
int isolate_chroot(void)
{
	char dir[] = "/tmp/netshim-root-XXXXXX";
	int fd;

	if (!mkdtemp(dir))
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rmdir(dir);
	if (fd < 0)
		return -1;
	if (fchdir(fd) || chroot(".") || chdir("/")) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/**
 * isolate_fs() - detach from the filesystem: an empty read-only root
 * @chroot_fallback:	--chroot-fallback: chroot() there where pivot_root()
 *			fails
 *
 * Without root, the mount namespace needs a user namespace of its own, in
 * which our user and group are mapped to themselves.
 *
 * Return: 0 on success, -1 if namespaces are not available here
 */
static int isolate_fs(bool chroot_fallback)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	const char *top = "/tmp";

	if (unshare(CLONE_NEWNS | (uid ? CLONE_NEWUSER : 0))) {
		if (!uid && !isolate_chroot()) {
			debug("no mount namespace (%m): root in a removed "
			      "empty directory instead");
			return 0;
		}
		debug("no mount namespace (%m): staying in the filesystem");
		return -1;
	}
	if (uid) {
		if (userns_map_uid(0, uid))
			debug("cannot map uid %u in the user namespace", uid);
		if (userns_map_gid(0, gid))
			debug("cannot map gid %u in the user namespace", gid);
	}
	/* Where the empty tmpfs is mounted does not matter, as the rest
	 * of the tree goes: /tmp, or in an image with no /tmp (a root
	 * holding the static binary alone) /proc, which netshim needs
	 */
	if (access("/tmp", F_OK))
		top = "/proc";
	if (mount("", "/", "", MS_PRIVATE | MS_REC, NULL) ||
	    mount("netshim", top, "tmpfs",
		  MS_NODEV | MS_NOEXEC | MS_NOSUID | MS_RDONLY,
		  "nr_inodes=2,size=0") ||
	    chdir(top)) {
		warn("cannot detach from the filesystem: %m");
		return -1;
	}
	if (syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) ||
	    chdir("/")) {
		/* A root that is no mount point (an initramfs, a chroot):
		 * with --chroot-fallback, as passt's, the empty tmpfs becomes
		 * the root by chroot() instead
		 */
		if (chroot_fallback && !chroot(".") && !chdir("/")) {
			info("pivot_root() failed: chroot() into an empty root "
			     "instead (--chroot-fallback)");
			return 0;
		}
		warn("cannot detach from the filesystem: %m");
		return -1;
	}
	debug("detached from the filesystem: empty root");
	return 0;
}

/**
 * isolate_caps() - drop every capability, effective, permitted, inheritable
 *
 * Return: 0 on success, -1 on failure
 */
int isolate_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	int cap;

	/* The bounding set first, while CAP_SETPCAP may still be there */
	for (cap = 0; cap <= CAP_LAST_CAP; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	if (syscall(SYS_capset, &h, d)) {
		err("cannot drop capabilities: %m");
		return -1;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	debug("capabilities dropped");
	return 0;
}

/**
 * isolate_user() - switch to the unprivileged user
 * @uid:	user
 * @gid:	group
 *
 * Return: 0 on success, -1 on failure
 */
static int isolate_user(uid_t uid, gid_t gid)
{
	if (geteuid() == uid && getegid() == gid)
		return 0;
	if (setgroups(0, NULL) && errno != EPERM) {
		err("setgroups: %m");
		return -1;
	}
	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		err("cannot switch to uid %u gid %u: %m", uid, gid);
		return -1;
	}
	debug("running as uid %u gid %u", uid, gid);
	return 0;
}

/**
 * isolate_nobody() - the user root becomes without --runas
 * @uid:	set to nobody's, or left 0
 * @gid:	set to nobody's group, or left 0
 *
 * nobody, or 65534 where no database knows it.  Root of a user namespace
 * that has no such user (a launcher's or pasta's namespace, which maps
 * root alone) stays root there, as passt does: no user it could become,
 * no capability kept, and no privilege outside the namespace.
 */
static void isolate_nobody(uid_t *uid, gid_t *gid)
{
	unsigned int u = 65534, g = 65534;

	/* nobody's usual number where no database knows it; the static
	 * build, which reads /etc/passwd alone, meets that in images with
	 * no such file, and says what it chose
	 */
	if (passwd_user("nobody", &u, &g) && PASSWD_FILES_ONLY)
		info("started as root, and /etc/passwd has no user nobody (a "
		     "static build has no other user database): running as "
		     "uid %u gid %u; --runas UID:GID picks another", u, g);
	if (!userns_initial() && !userns_maps(u, g)) {
		info("root of a user namespace without uid %u gid %u "
		     "(nobody): staying its root, without capabilities", u, g);
		return;
	}
	*uid = u;
	*gid = g;
	debug("started as root: switching to nobody (uid %u)", u);
}

/**
 * isolate() - detach, drop privileges, filter system calls
 * @c:		configuration: --runas, socket and PID file paths
 * @up_path:	the socket a successor takes over at, if we listen there
 *		(--upgrade-path), else NULL
 * @sock:	filled in: how to remove the socket at exit
 * @pid:	filled in: how to remove the PID file at exit
 * @up:		filled in: how to remove @up_path at exit
 * @bpf_maps:	an eBPF program of bpf/ is loaded: the loop uses its maps
 *
 * Return: 0 on success, -1 on failure (logged): netshim must not run
 */
int isolate(const struct conf *c, const char *up_path,
	    struct isolate_path *sock, struct isolate_path *pid,
	    struct isolate_path *up, bool bpf_maps)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	bool root = !uid;

	if (c->runas_set) {
		uid = c->uid;
		gid = c->gid;
	} else if (uid == 0) {
		isolate_nobody(&uid, &gid);
	}
	if (uid == 0 && (c->runas_set || userns_initial())) {
		err("refusing to run as root: give --runas an unprivileged user");
		return -1;
	}
	if (!root && uid != geteuid()) {
		err("--runas %u: only root can switch users", uid);
		return -1;
	}

	/* With --connect the socket is the VMM's, to leave alone */
	if (!c->vmm_connect)
		isolate_keep_path(c->sock_path, sock, uid, gid);
	isolate_keep_path(c->pid_file, pid, uid, gid);
	isolate_keep_path(up_path, up, uid, gid);
	isolate_fs(c->chroot_fallback);
	/* Started unprivileged, we already are that user */
	if ((root && isolate_user(uid, gid)) || isolate_caps())
		return -1;
	return isolate_seccomp(c->vhost_user, bpf_maps);
}
