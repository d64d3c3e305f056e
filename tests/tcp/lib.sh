# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the TCP integration tests (tests/integration/t_tcp_*.sh),
# sourced after tests/lib/topo.sh.
#
# Bulk data is a deterministic AES-CTR keystream: the sender streams it and
# hashes what it sent, the receiver hashes what it got, so no test stores
# gigabytes on disk and both ends are compared.

TCP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# tcp_gen() - deterministic pseudo-random stream on stdout
# $1: seed (a small number: distinct seeds give distinct data), $2: bytes
tcp_gen() {
	openssl enc -aes-128-ctr -K "$(printf '%032x' "$1")" -iv 0 \
		</dev/zero 2>/dev/null | head -c "$2"
}

# tcp_size() - bytes of a size with a K, M or G suffix (binary units)
# $1: size
tcp_size() {
	numfmt --from=iec "$1"
}

# tcp_wait_listen() - wait until a TCP port listens in a namespace; on
# failure, say what holds the port there and the servers' last errors
# (a test's socat servers write them to $WORK/socat.log)
# $1: namespace, $2: port
tcp_wait_listen() {
	local _

	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . &&
			return 0
		sleep 0.1
	done
	log "sockets on port $2 in $1: $(ip netns exec "$1" ss -Htanp "sport = :$2" | tr '\n' ' ')"
	[ -s "${WORK:-}/socat.log" ] &&
		log "socat.log: $(tail -n 3 "$WORK/socat.log" | tr '\n' ' ')"
	fail "nothing listens on TCP port $2 in $1 after 5 s"
}

# tcp_wait_file() - wait until a file is not empty: a hash is complete
# $1: file, $2: seconds (default 10)
tcp_wait_file() {
	local _

	for _ in $(seq $((${2:-10} * 10))); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# tcp_recv_bg() - receive one connection in the background, hash it
# $1: namespace, $2: seconds allowed, $3: socat address, $4: file prefix
#
# Leaves "<sha256> <bytes>" in $4.recv once the stream ended; RECV_PID is
# the pipeline's last process, for wait.
tcp_recv_bg() {
	rm -f "$4.recv" "$4.hash" "$4.bytes"
	ip netns exec "$1" timeout "$2" socat -u "$3" - 2>>"$4.err" |
		tee >(wc -c >"$4.bytes") |
		sha256sum | cut -d' ' -f1 >"$4.hash" &
	RECV_PID=$!
}

# tcp_recv_end() - wait for tcp_recv_bg's pipeline, then write $4.recv
# $1: file prefix
tcp_recv_end() {
	wait "$RECV_PID"
	tcp_wait_file "$1.bytes" 5 || echo 0 >"$1.bytes"
	echo "$(cat "$1.hash") $(cat "$1.bytes")" >"$1.recv"
}

# tcp_send() - stream generated data through socat, hash what was sent
# $1: namespace, $2: seconds allowed, $3: socat address, $4: file prefix,
# $5: seed, $6: bytes
#
# Leaves "<sha256> <bytes>" in $4.sent.  Return: socat's exit status
tcp_send() {
	local rc

	rm -f "$4.sent" "$4.shash"
	tcp_gen "$5" "$6" |
		tee >(sha256sum | cut -d' ' -f1 >"$4.shash") |
		ip netns exec "$1" timeout "$2" socat -u - "$3" 2>>"$4.err"
	rc=${PIPESTATUS[2]}
	tcp_wait_file "$4.shash" 10 || echo none >"$4.shash"
	echo "$(cat "$4.shash") $6" >"$4.sent"
	return "$rc"
}

# tcp_check() - compare what was sent and what was received
# $1: file prefix, $2: what the transfer was, for messages
tcp_check() {
	local sent recv

	sent=$(cat "$1.sent" 2>/dev/null)
	recv=$(cat "$1.recv" 2>/dev/null)
	[ -n "$sent" ] && [ "$sent" = "$recv" ] && return 0
	[ "${recv#* }" != "${sent#* }" ] &&
		fail "$2: ${recv#* } of ${sent#* } bytes arrived in the time" \
			"allowed; socat: $(tail -2 "$1.err" 2>/dev/null |
			tr '\n' ' ')"
	fail "$2: data differs: sent '$sent', received '$recv' (sha256 bytes)"
}

# tcp_rate() - log a transfer's duration and throughput
# $1: what, $2: bytes, $3: start time in ns (date +%s%N), $4: seconds
# allowed (optional): all the data but no end of stream within them is a
# failure too, the receiver having been stopped by its timeout
tcp_rate() {
	local ms=$(( ($(date +%s%N) - $3) / 1000000 ))

	[ -z "${4:-}" ] || [ "$ms" -lt $(( $4 * 1000 )) ] ||
		fail "$1: took $ms ms, the $4 s allowed: the stream never ended"
	[ "$ms" -gt 0 ] || ms=1
	log "ok: $1: $(numfmt --to=iec "$2")B in ${ms} ms," \
		"$(( $2 / 1000 * 8 / ms )) Mbit/s"
}

# tcp_upload() - the guest-side client sends, a server in another
# namespace receives; checks the hashes
# $1: client ns, $2: server ns, $3: family (4 or 6), $4: server address,
# $5: port, $6: seed, $7: bytes, $8: seconds allowed
tcp_upload() {
	local p=$WORK/up-$3-$5-$6 t0 a=$4

	[ "$3" = 6 ] && a="[$4]"
	tcp_recv_bg "$2" "$8" "TCP$3-LISTEN:$5,reuseaddr" "$p"
	tcp_wait_listen "$2" "$5"
	t0=$(date +%s%N)
	tcp_send "$1" "$8" "TCP$3:$a:$5" "$p" "$6" "$7" ||
		log "sender socat failed: $(tail -2 "$p.err")"
	tcp_recv_end "$p"
	tcp_check "$p" "$(tcp_size_str "$7") $1 -> $4 port $5"
	tcp_rate "$1 -> $4 port $5" "$7" "$t0" "$8"
}

# tcp_download() - a server in another namespace sends on a connection
# the client opened, the client receives; checks the hashes
# $1: client ns, $2: server ns, $3: family (4 or 6), $4: server address,
# $5: port, $6: seed, $7: bytes, $8: seconds allowed
tcp_download() {
	local p=$WORK/down-$3-$5-$6 t0 a=$4 spid

	[ "$3" = 6 ] && a="[$4]"
	tcp_send "$2" "$8" "TCP$3-LISTEN:$5,reuseaddr" "$p" "$6" "$7" &
	spid=$!
	tcp_wait_listen "$2" "$5"
	t0=$(date +%s%N)
	tcp_recv_bg "$1" "$8" "TCP$3:$a:$5" "$p"
	tcp_recv_end "$p"
	wait "$spid" || log "sender socat failed: $(tail -2 "$p.err")"
	tcp_check "$p" "$(tcp_size_str "$7") $4 port $5 -> $1"
	tcp_rate "$4 port $5 -> $1" "$7" "$t0" "$8"
}

# tcp_size_str() - a byte count for people
# $1: bytes
tcp_size_str() {
	echo "$(numfmt --to=iec "$1")B"
}

# tcp_guest_v6() - the guest's global IPv6 address from SLAAC or DHCPv6
tcp_guest_v6() {
	ip -n "$NS_GUEST" -6 -o addr show dev tap0 scope global |
		awk '{ sub("/.*", "", $4); print $4; exit }'
}

# tcp_counters() - netshim's open TCP connection count, from SIGUSR1
tcp_counters() {
	topo_counters | head -1 |
		sed -n 's/.*counters: \([0-9]*\) TCP connections.*/\1/p'
}

# tcp_expect() - connect once with tests/tcp/connect.py, judge the outcome
# $1: namespace, $2: address, $3: port, $4: most milliseconds allowed,
# $5...: acceptable outcomes (refused, unreachable, closed, reset...)
tcp_expect() {
	local ns=$1 addr=$2 port=$3 max=$4 out what ms ok=
	local secs=$(( $4 / 1000 + 5 ))

	shift 4
	out=$(ip netns exec "$ns" timeout $((secs + 5)) python3 \
		"$TCP_DIR/connect.py" "$addr" "$port" "$secs" 2>&1)
	what=${out%% *}
	ms=$(echo "$out" | awk '{ print $2 }')
	for o in "$@"; do
		[ "$what" = "$o" ] && ok=1
	done
	[ -n "$ok" ] ||
		fail "$ns -> $addr port $port: '$out', expected ${*// / or }" \
			"within $max ms"
	[ "$ms" -le "$max" ] ||
		fail "$ns -> $addr port $port: $what after $ms ms, more than" \
			"$max ms"
	log "ok: $ns -> $addr port $port: $what after $ms ms" \
		"$(echo "$out" | cut -s -d' ' -f3-)"
}

# tcp_echo() - stream data through an echo server and hash what returns
# $1: client namespace, $2: seconds allowed, $3: socat address of the
# server, $4: file prefix, $5: seed, $6: bytes
#
# Data flows both ways on the connection at once.  Leaves $4.sent (what
# was sent) and $4.recv (what came back), as "<sha256> <bytes>".
tcp_echo() {
	rm -f "$4.sent" "$4.shash" "$4.hash" "$4.bytes"
	# -t: after the end of our data, wait for the rest of the echo
	tcp_gen "$5" "$6" |
		tee >(sha256sum | cut -d' ' -f1 >"$4.shash") |
		ip netns exec "$1" timeout "$2" socat -t "$2" - "$3" \
			2>>"$4.err" |
		tee >(wc -c >"$4.bytes") |
		sha256sum | cut -d' ' -f1 >"$4.hash"
	tcp_wait_file "$4.shash" 10 || echo none >"$4.shash"
	tcp_wait_file "$4.bytes" 5 || echo 0 >"$4.bytes"
	echo "$(cat "$4.shash") $6" >"$4.sent"
	echo "$(cat "$4.hash") $(cat "$4.bytes")" >"$4.recv"
}

# tcp_many_server() - many.py's echo server in a namespace, waited for
# $1: namespace, $2: address ("" for all), $3: port
tcp_many_server() {
	ip netns exec "$1" timeout 120 python3 "$TCP_DIR/many.py" \
		server "$2" "$3" >>"$WORK/server.log" 2>&1 &
	topo_pid_add $!
	tcp_wait_listen "$1" "$3"
}

# tcp_many_check() - connections in parallel, each echoing its bytes
# intact through many.py's server
# $1: client namespace, $2: address, $3: port, $4: connections, $5: bytes
# each, $6: seconds allowed
tcp_many_check() {
	local out

	out=$(ip netns exec "$1" timeout 60 python3 "$TCP_DIR/many.py" \
		client "$2" "$3" "$4" "$5" "$6" 2>&1) ||
		fail "$1 -> $2 port $3: $out"
	log "ok: $1 -> $2 port $3: $out"
}

# tcp_drop_add() - drop, and count, the packets a device passes one way
# that match an nftables expression (a netdev table of their own)
# $1: namespace, $2: table name, $3: device, $4: hook (egress or ingress),
# $5: the match, e.g. "numgen random mod 100 0" (1 % at random) or
# "tcp dport 5021"
tcp_drop_add() {
	ip netns exec "$1" nft -f - <<-EOF2 || fail "nftables in $1 ($3 $4)"
	table netdev $2 {
		chain c {
			type filter hook $4 device "$3" priority 0;
			$5 counter drop
		}
	}
	EOF2
}

# tcp_drop_count() - packets a tcp_drop_add() table dropped so far
# $1: namespace, $2: table name
tcp_drop_count() {
	ip netns exec "$1" nft list table netdev "$2" |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}

# tcp_drop_del() - stop dropping
# $1: namespace, $2: table name
tcp_drop_del() {
	ip netns exec "$1" nft delete table netdev "$2"
}

# tcp_pieces() - tests/tcp/pieces.py: 30 requests written in two pieces
# 2 ms apart, each answered within a median of 20 ms (the kernel alone
# takes about 2 ms; a hop that holds the second piece until the first is
# acknowledged, 40 ms or more: the server delays that ACK)
# $1: server namespace, $2: bind address, $3: client namespace,
# $4: address to connect to, $5: port, $6: what, for messages
tcp_pieces() {
	local spid out

	ip netns exec "$1" timeout 40 python3 "$TCP_DIR/pieces.py" server \
		"$2" "$5" >"$WORK/pieces-server.out" 2>&1 &
	spid=$!
	tcp_wait_listen "$1" "$5"
	out=$(ip netns exec "$3" timeout 40 python3 "$TCP_DIR/pieces.py" \
		client "$4" "$5" 30 20 2>&1) || {
		kill "$spid" 2>/dev/null
		fail "$6: $out"
	}
	wait "$spid" || fail "$6: $(cat "$WORK/pieces-server.out")"
	log "ok: $6: $out"
}
