#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta's options and no command: the user's shell, in a new namespace,
# as pasta does (pasta 2026 through the same script with BACKEND=passt
# PASTA=/tmp/passt2026/pasta):
# - $SHELL runs there, with the namespace set up (--config-net), and its
#   exit status is the back-end's;
# - it is a login shell (bash says so), reading its commands from stdin;
# - without $SHELL, /bin/sh, the tap left to the namespace without
#   --config-net;
# - with a VMM's option as well, netshim refuses, naming the option.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

topo_init
topo_peer_pod
chmod 1777 "$WORK"
pod_ns=$(ip netns exec "$NS_POD" readlink /proc/self/ns/net)

# run_shell() - the back-end with options alone, stdin from a here-doc
# or a file, output in $WORK/shell.out
# $1: what SHELL is ("" to unset it), $2: stdin file, $@: options
run_shell() {
	local sh=$1 in=$2 env=(env -u SHELL)

	shift 2
	[ -n "$sh" ] && env=(env "SHELL=$sh")
	ns_backend_cmd -q "$@"
	log "backend: SHELL=${sh:-(unset)} ${NS_CMD[*]}"
	ip netns exec "$NS_POD" "${env[@]}" timeout 30 "${NS_CMD[@]}" \
		<"$in" >"$WORK/shell.out" 2>&1
}

# $SHELL a script: it runs in a namespace of its own, set up, and its
# status is ours
cat >"$WORK/shell.sh" <<'EOF'
#!/bin/sh
echo "netns $(readlink /proc/self/ns/net)"
ip -o addr show
exit 5
EOF
chmod 755 "$WORK/shell.sh"
run_shell "$WORK/shell.sh" /dev/null
rc=$?
[ "$rc" = 5 ] || fail "\$SHELL's status 5 not ours: $rc: $(cat "$WORK/shell.out")"
grep -q '^netns ' "$WORK/shell.out" && ! grep -q "^netns $pod_ns\$" "$WORK/shell.out" ||
	fail "\$SHELL not run in a namespace of its own: $(cat "$WORK/shell.out")"
grep -q 'inet 203\.0\.113\.2/24 ' "$WORK/shell.out" ||
	fail "\$SHELL's namespace not set up: $(cat "$WORK/shell.out")"
log "ok: \$SHELL run in a new namespace, set up, its status (5) ours"

# bash, from a here-doc: a login shell
cat >"$WORK/bash.in" <<'EOF'
shopt -q login_shell && echo "login shell $0"
ip -o link show
exit 3
EOF
run_shell /bin/bash "$WORK/bash.in"
rc=$?
[ "$rc" = 3 ] && grep -q '^login shell -/bin/bash$' "$WORK/shell.out" ||
	fail "bash: status $rc (not 3), or not a login shell: $(cat "$WORK/shell.out")"
log "ok: SHELL=/bin/bash: a login shell reading stdin"

# No $SHELL: /bin/sh; without --config-net the tap is left down
printf 'echo "shell $0"\nip -o link show\n' >"$WORK/sh.in"
NS_SELF=1 run_shell "" "$WORK/sh.in" -I eth9 ||
	fail "/bin/sh: $(cat "$WORK/shell.out")"
grep -q '^shell -/bin/sh$' "$WORK/shell.out" ||
	fail "no SHELL: not /bin/sh as a login shell: $(cat "$WORK/shell.out")"
grep -q ': eth9: ' "$WORK/shell.out" &&
	! grep ': eth9: ' "$WORK/shell.out" | grep -q '[<,]UP[,>]' ||
	fail "-I eth9 without --config-net: $(cat "$WORK/shell.out")"
log "ok: no SHELL: -/bin/sh, eth9 there and down"

# A VMM's options say it is not a namespace's back-end
if [ "$BACKEND" = netshim ]; then
	out=$(ip netns exec "$NS_POD" timeout 10 "$NETSHIM" -s \
		"$WORK/vm.socket" --config-net </dev/null 2>&1)
	rc=$?
	[ "$rc" = 1 ] && echo "$out" | grep -q -- '--config-net needs --netns' ||
		fail "--socket with --config-net: exit $rc: $out"
	log "ok: --socket --config-net refused: $out"
fi
