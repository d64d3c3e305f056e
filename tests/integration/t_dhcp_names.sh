#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --hostname and --fqdn reach a guest whose DHCP client runs with its
# distribution's default configuration: ISC dhclient as Debian ships it
# (/etc/dhcp/dhclient.conf) sends neither the Client FQDN option nor asks
# for it over DHCPv4, yet passt hands it over and dhclient takes it.
# - dhclient -4: the lease holds the host name (option 12) and the FQDN
#   (option 81, RFC 4702), as its hooks see them;
# - dhclient -6: the FQDN (option 39, RFC 4704), with its host part, with
#   the default configuration and with one that asks for nothing;
# - in both, the server says it updated no DNS record (S clear).
# The hook here records what dhclient reports instead of configuring the
# guest: the namespace shares /etc and the host name with the machine.
# Run it through passt with BACKEND=passt (PASST= a 2026 build).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

command -v dhclient >/dev/null || skip "dhclient missing (make deps)"
[ -r /etc/dhcp/dhclient.conf ] ||
	skip "no /etc/dhcp/dhclient.conf: isc-dhcp-client's default missing"

topo_init
topo_peer_pod
topo_backend --hostname vm1 --fqdn vm1.netshim.test
topo_relay_guest

# dhclient_run() - one exchange with dhclient, which then stays to renew
# $1: name of the run, $2: -4 or -6, $@: more dhclient arguments
dhclient_run() {
	local run=$1 fam=$2

	shift 2
	# dhclient passes its hook no environment of its own: a hook per run
	cat >"$WORK/$run.script" <<-EOF
	#!/bin/sh
	case "\$reason" in
	BOUND|BOUND6)
		env | grep -E '^(new_host_name|new_fqdn_)' >"$WORK/$run.env"
		;;
	esac
	exit 0
	EOF
	chmod +x "$WORK/$run.script"
	in_guest timeout 30 dhclient "$fam" -1 -v \
		-sf "$WORK/$run.script" -lf "$WORK/$run.leases" \
		-pf "$WORK/$run.pid" "$@" tap0 >"$WORK/$run.log" 2>&1 ||
		fail "dhclient $fam ($run): $(grep -i -e dhcp -e fail \
			"$WORK/$run.log" | tail -5)"
	topo_pid_add "$(cat "$WORK/$run.pid" 2>/dev/null)"
	[ -s "$WORK/$run.env" ] ||
		fail "dhclient $fam ($run): hook not run: $(tail -5 \
			"$WORK/$run.log")"
}

# expect_env() - fail unless dhclient reported a value
# $1: name of the run, $2: variable, $3: value
expect_env() {
	local got

	got=$(topo_env_get "$WORK/$1.env" "$2")
	[ "$got" = "$3" ] ||
		fail "$1: $2 is '$got', expected '$3': $(cat "$WORK/$1.env")"
}

# expect_lease() - fail unless the lease file holds an option line
# $1: name of the run, $2: the line, without its indent
expect_lease() {
	grep -qxF "  $2" "$WORK/$1.leases" ||
		fail "$1: no '$2' in the lease: $(cat "$WORK/$1.leases")"
}

dhclient_run v4 -4
expect_env v4 new_host_name vm1
expect_env v4 new_fqdn_fqdn vm1.netshim.test
expect_env v4 new_fqdn_server_update false
expect_lease v4 'option host-name "vm1";'
expect_lease v4 'option fqdn.fqdn "vm1.netshim.test";'
log "ok: dhclient -4: $(tr '\n' ' ' <"$WORK/v4.env")"
kill "$(cat "$WORK/v4.pid")" 2>/dev/null

guest_slaac
dhclient_run v6 -6
expect_env v6 new_fqdn_fqdn vm1.netshim.test
expect_env v6 new_fqdn_hostname vm1
expect_env v6 new_fqdn_server_update false
expect_lease v6 'option fqdn.fqdn "vm1.netshim.test";'
log "ok: dhclient -6: $(tr '\n' ' ' <"$WORK/v6.env")"
kill "$(cat "$WORK/v6.pid")" 2>/dev/null

# A configuration that asks for nothing (no "request dhcp6.fqdn")
: >"$WORK/empty.conf"
dhclient_run v6empty -6 -cf "$WORK/empty.conf"
expect_env v6empty new_fqdn_fqdn vm1.netshim.test
log "ok: dhclient -6, empty configuration: $(tr '\n' ' ' \
	<"$WORK/v6empty.env")"
kill "$(cat "$WORK/v6empty.pid")" 2>/dev/null
exit 0
