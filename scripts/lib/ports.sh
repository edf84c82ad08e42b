# Sourced by the scripts that start throwaway servers on loopback (with-postgres.sh, postgres-failover-pair.sh).
#
# port_in_use PORT: whether something answers on 127.0.0.1:PORT.
# listen_port_candidate: a port to try to listen on, below the kernel's ephemeral range. Outgoing connections
# take their local ports from that range, and a test suite opens thousands of them; a port picked inside it can
# be taken by one between the check and the server's bind. The caller still checks, and retries a start that
# fails.

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

listen_port_candidate() {
  local low=32768 range
  if range="$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)"; then
    low="${range%%[[:space:]]*}"
  fi
  if [ "$low" -gt 16000 ]; then
    echo $((15000 + RANDOM % (low - 15000)))
  else
    echo $((20000 + RANDOM % 30000))
  fi
}
