#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# upgrade.sh - upgrade every running netshim of a binary in place, once
# the binary was replaced, as a node's administrator or a launcher runs it
#
#   contrib/upgrade.sh [NETSHIM]
#
# For each running netshim started from NETSHIM (default: the netshim in
# PATH), the new binary runs with the command line the old process was
# started with, and --upgrade (netshim(1), UPGRADE IN PLACE): it takes
# every socket and connection over, the VMM notices nothing, and the old
# process exits.  Each line of output says which process was upgraded, or
# why it was not: a refused upgrade leaves the old process serving.
#
# The command line is read from /proc, each argument whole, and changed
# where the new process needs it:
# - --fd N (-F N) goes: the connection comes from the running netshim,
#   found at the --upgrade-path that such a netshim must have been given;
# - --upgrade goes, where an upgraded netshim's command line has it;
# - -f (--foreground) goes: the new process goes to the background, and
#   this script learns from its exit status whether it took over.  Without
#   --log-file it logs to syslog then.  A netshim that is the process its
#   container lives by (PID 1) cannot hand over: its container ends with it;
# - a netshim that started its own command (-- COMMAND) is left alone: the
#   command is its child and ends with it.  Restart those.
# Run as root, the new process starts as root in the old one's network
# namespace (nsenter, for a launcher outside the pod) and turns into the
# user the old one runs as: nobody by itself, another with --runas, added
# if the command line did not say.  Run as another user, it runs as that
# user, where it is: an unprivileged netshim's own.  Paths in the command
# line are taken as they were: a launcher gives them whole.
#
# A launcher that keeps its netshim's command line (libvirt, KubeVirt's
# passt binding, a pod's own script) runs that with --upgrade instead.

set -u
NETSHIM=${1:-$(command -v netshim)}
if [ -z "$NETSHIM" ] || [ ! -x "$NETSHIM" ]; then
	echo "upgrade.sh: no netshim binary" >&2
	exit 2
fi
BIN=$(readlink -f "$NETSHIM")
TMP=$(mktemp) || exit 2
trap 'rm -f "$TMP"' EXIT
NL='
'
rc=0

# same_bin() - is a process running our binary (the old one, replaced,
# shows as "PATH (deleted)")
# $1: pid
same_bin() {
	exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
	[ "${exe% (deleted)}" = "$BIN" ]
}

for dir in /proc/[0-9]*; do
	pid=${dir#/proc/}
	same_bin "$pid" || continue
	# The helper inside a served namespace is a child of the daemon,
	# with its command line: only the daemon hands over
	ppid=$(awk '/^PPid:/ { print $2 }' "$dir/status" 2>/dev/null) ||
		continue
	same_bin "$ppid" && continue
	args=$(tr '\0' '\n' <"$dir/cmdline" 2>/dev/null | sed 1d) || continue
	keep=""
	skip=""
	drop_next=""
	while IFS= read -r a; do
		if [ -n "$drop_next" ]; then
			drop_next=""
			continue
		fi
		case "$a" in
		--fd | -F) drop_next=1 ;;
		--fd=* | -F?*) ;;
		-f | --foreground | --upgrade) ;;
		--) skip="it started its own command (-- COMMAND)"; break ;;
		*) keep="$keep$a$NL" ;;
		esac
	done <<EOF
$args
EOF
	if [ -n "$skip" ]; then
		echo "netshim $pid: not upgraded: $skip"
		continue
	fi
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done <<EOF
${keep%"$NL"}
EOF
	[ -n "$keep" ] || set --
	uid=$(awk '/^Uid:/ { print $2 }' "$dir/status")
	gid=$(awk '/^Gid:/ { print $2 }' "$dir/status")
	# Into a file: with -e the new daemon keeps what it was given as
	# stderr, and a pipe would never end
	if [ "$(id -u)" != 0 ]; then
		# Its own user's netshim, in its own namespace
		"$BIN" "$@" --upgrade >"$TMP" 2>&1
	else
		# Started as root, it runs as nobody, or as --runas says:
		# the new one too
		case " $* " in
		*" --runas "* | *" --runas="*) ;;
		*) [ "$uid" = 65534 ] || set -- "$@" --runas "$uid:$gid" ;;
		esac
		nsenter -t "$pid" -n -- "$BIN" "$@" --upgrade >"$TMP" 2>&1
	fi
	status=$?
	out=$(head -c 1000 "$TMP")
	if [ "$status" = 0 ]; then
		echo "netshim $pid: upgraded"
	else
		echo "netshim $pid: not upgraded (exit status $status): $out"
		rc=1
	fi
done
exit "$rc"
