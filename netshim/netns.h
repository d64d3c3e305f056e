/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - namespace mode: the namespace we serve, and its tap device
 */
#ifndef NETSHIM_NETNS_H
#define NETSHIM_NETNS_H

#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct ctx;

/**
 * struct netns - the network namespace served in namespace mode
 * @net_fd:	its network namespace, -1 when not in namespace mode
 * @user_fd:	the user namespace owning it, -1 if it is ours
 * @child:	the command run with "--", 0 with --netns
 * @go_fd:	writing to it lets the command start; -1 once done
 * @status:	the command's exit status, once it has exited
 * @exited:	the command has exited
 * @helper_fd:	socket to the helper that opens sockets inside, or -1
 * @tap_fd:	the tap device, -1 until made
 * @ifname:	its name
 * @mac:	its MAC address: the guest's
 * @gone_fd:	with --netns, readable once the namespace may be gone: an
 *		inotify descriptor watching its file's directory, or a
 *		pidfd of its process; -1 if not watched
 * @gone_name:	the file's name in that directory, "" for a process
 */
struct netns {
	int net_fd;
	int user_fd;
	pid_t child;
	int go_fd;
	int status;
	bool exited;
	int helper_fd;
	int tap_fd;
	char ifname[16];
	uint8_t mac[6];
	int gone_fd;
	char gone_name[NAME_MAX + 1];
};

int netns_call(struct ctx *c, int (*fn)(struct ctx *c));
int netns_spawn(struct ctx *c, char **argv);
int netns_join(struct ctx *c, const char *target);
int netns_tap(struct ctx *c);
int netns_release(struct ctx *c);
bool netns_reap(struct ctx *c);
int netns_watch(struct ctx *c);
bool netns_gone(struct ctx *c);

#endif /* NETSHIM_NETNS_H */
