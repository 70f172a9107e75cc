#!/usr/bin/env bash
# Makes sure the services the integration tests use are installed and running on loopback
# (see DEVELOPERS.md): PostgreSQL 5432, MariaDB 3306, RabbitMQ 5672, NATS with JetStream 4222 and
# Redis 6379 (not used by tests yet), and headless Chromium with its chromedriver for the console's browser
# test (no port: "ready" means both binaries answer --version), and promtool for the ops/ rule checks
# (Debian's prometheus package; the Prometheus server it brings is stopped and disabled, it only
# needs its promtool). Idempotent: a running service is left
# alone; a stopped one is started; a missing one is installed from Debian packages first. Prints one line per service and exits
# non-zero, naming the service, if one does not come up within $POSTBOX_SERVICES_TIMEOUT seconds (60).
#
# Usage: scripts/services.sh [postgresql|mariadb|rabbitmq|nats|redis|chromium|promtool ...]   (default: all of them)
# Needs root (or sudo) only for what it has to install, start or configure.
set -euo pipefail

ALL=(postgresql mariadb rabbitmq nats redis chromium promtool)
# PACKAGE: the Debian packages of each (space-separated); PORT: where it listens (none for a program)
declare -A PACKAGE=([postgresql]=postgresql [mariadb]=mariadb-server [rabbitmq]=rabbitmq-server
                    [nats]=nats-server [redis]=redis-server [chromium]="chromium chromium-driver"
                    [promtool]=prometheus)
declare -A PORT=([postgresql]=5432 [mariadb]=3306 [rabbitmq]=5672 [nats]=4222 [redis]=6379 [chromium]= [promtool]=)
TIMEOUT=${POSTBOX_SERVICES_TIMEOUT:-60}
LOG=${TMPDIR:-/tmp}/postbox-services.log

die() { echo "services.sh: $*" >&2; exit 1; }
as_root() { if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
installed() { [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]; }
tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
join() { local out="" n; for n in "$@"; do out+="${out:+, }$n"; done; echo "$out"; }

# --- readiness: the port answers, and so does the service's own client ---------------------------

postgresql_ready() { tcp_open 5432 && pg_isready -q -h 127.0.0.1 -p 5432; }
mariadb_ready() { tcp_open 3306 && mariadb-admin -h127.0.0.1 -uroot --connect-timeout=2 ping >/dev/null 2>&1; }
rabbitmq_ready() { tcp_open 5672 && rabbitmq-diagnostics -q ping >/dev/null 2>&1; }
redis_ready() { tcp_open 6379 && [[ $(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null) == PONG ]]; }
nats_ready() { # no client needed: the server greets with an INFO line that says whether JetStream is on
    local info
    info=$(timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/4222 && head -n 1 <&3' 2>/dev/null) || return 1
    [[ $info == INFO* && $info == *'"jetstream":true'* ]]
}
# a program, not a server: both binaries run (the console's browser test uses exactly these paths)
chromium_ready() {
    timeout 20 /usr/bin/chromium --version >/dev/null 2>&1 && timeout 20 /usr/bin/chromedriver --version >/dev/null 2>&1
}
# a program, not a server: OpsArtifactsTest runs /usr/bin/promtool check rules / test rules
promtool_ready() { timeout 20 /usr/bin/promtool --version >/dev/null 2>&1; }

# --- start commands of this machine kind (no systemd) ----------------------------------------------

pg_version() { find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -V | tail -n 1; }

postgresql_start() {
    local v; v=$(pg_version)
    [[ -n $v ]] || { echo "no cluster under /etc/postgresql"; return 1; }
    pg_ctlcluster "$v" main status >/dev/null 2>&1 || as_root pg_ctlcluster --skip-systemctl-redirect "$v" main start
}

mariadb_start() {
    as_root install -d -o mysql -g mysql /run/mysqld
    # --user: Debian's default config may not name the account, and mariadbd refuses to run as root.
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
}

rabbitmq_start() { # on a fresh install (no config yet): loopback only, a node name that always resolves
    as_root mkdir -p /etc/rabbitmq
    [[ -e /etc/rabbitmq/rabbitmq.conf ]] ||
        echo "listeners.tcp.local = 127.0.0.1:5672" | as_root tee /etc/rabbitmq/rabbitmq.conf
    [[ -e /etc/rabbitmq/rabbitmq-env.conf ]] ||
        printf 'NODENAME=rabbit@localhost\nERL_EPMD_ADDRESS=127.0.0.1\n' | as_root tee /etc/rabbitmq/rabbitmq-env.conf
    as_root rabbitmq-server -detached
}

nats_start() {
    as_root mkdir -p /var/lib/nats-server
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
        -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
}

chromium_start() { :; } # nothing to start: the test starts the browser
promtool_start() { :; } # nothing to start: the test runs promtool

redis_start() {
    as_root mkdir -p /var/lib/redis /var/log/redis
    as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log
}

# --- what the tests expect once a server runs; each checks first and changes only what is missing --

postgresql_configure() {
    local notes=() v hba sql="SELECT 1 FROM pg_database WHERE datname = 'test'"
    if ! psql -h 127.0.0.1 -U postgres -w -Atqc 'SELECT 1' >/dev/null 2>&1; then
        v=$(pg_version)
        hba=/etc/postgresql/$v/main/pg_hba.conf
        if ! grep -q '^# postbox: trust loopback' "$hba"; then # first matching line wins: prepend
            { printf '# postbox: trust loopback (scripts/services.sh)\nhost all all 127.0.0.1/32 trust\n'
              printf 'host all all ::1/128 trust\n'; as_root cat "$hba"; } >"$LOG.hba"
            as_root tee "$hba" <"$LOG.hba" >/dev/null
        fi
        as_root pg_ctlcluster --skip-systemctl-redirect "$v" main reload >>"$LOG" 2>&1
        local i
        for i in 1 2 3 4 5 6 7 8 9 10; do
            psql -h 127.0.0.1 -U postgres -w -Atqc 'SELECT 1' >/dev/null 2>&1 && break
            ((i < 10)) || die "postgresql: user postgres still cannot log in over 127.0.0.1 without a password ($hba)"
            sleep 1
        done
        notes+=("trust auth on loopback configured")
    fi
    if [[ $(psql -h 127.0.0.1 -U postgres -w -Atqc "$sql") != 1 ]]; then
        createdb -h 127.0.0.1 -U postgres -w test || die "postgresql: cannot create database test"
        notes+=("database test created")
    fi
    join "${notes[@]}"
}

mariadb_configure() {
    local notes=() sql="SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'test'"
    if ! mariadb -h127.0.0.1 -uroot -e 'SELECT 1' >/dev/null 2>&1; then
        # A fresh install lets root in through the unix socket only; allow TCP with an empty password.
        as_root mariadb --protocol=socket -uroot >>"$LOG" 2>&1 <<'SQL' || die "mariadb: cannot configure root over the unix socket"
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
FLUSH PRIVILEGES;
SQL
        mariadb -h127.0.0.1 -uroot -e 'SELECT 1' >/dev/null 2>&1 || die "mariadb: root still cannot log in over 127.0.0.1"
        notes+=("root login over 127.0.0.1 configured")
    fi
    if [[ $(mariadb -h127.0.0.1 -uroot -Nse "$sql") != 1 ]]; then
        mariadb -h127.0.0.1 -uroot -e 'CREATE DATABASE test' || die "mariadb: cannot create database test"
        notes+=("database test created")
    fi
    join "${notes[@]}"
}

rabbitmq_configure() { :; }
nats_configure() { :; }
redis_configure() { :; }
chromium_configure() { :; }
promtool_configure() { # the package (and its recommended node exporter) may start servers: only promtool is wanted
    local notes=() daemon
    for daemon in prometheus prometheus-node-exporter; do
        if [[ -x /etc/init.d/$daemon ]] && /etc/init.d/$daemon status >/dev/null 2>&1; then
            as_root /etc/init.d/$daemon stop >>"$LOG" 2>&1 || die "promtool: cannot stop service $daemon"
            notes+=("$daemon stopped")
        fi
        if compgen -G "/etc/rc[2-5].d/S*$daemon" >/dev/null; then
            as_root update-rc.d "$daemon" disable >>"$LOG" 2>&1 || die "promtool: cannot disable service $daemon"
            notes+=("$daemon disabled")
        fi
        if [[ -d /run/systemd/system ]] && systemctl is-enabled -q "$daemon" 2>/dev/null; then
            as_root systemctl disable --now "$daemon" >>"$LOG" 2>&1 || die "promtool: cannot disable $daemon.service"
            notes+=("$daemon.service disabled")
        fi
    done
    join "${notes[@]}"
}

# --- main -------------------------------------------------------------------------------------------

wait_ready() {
    local name=$1 deadline=$((SECONDS + TIMEOUT))
    until "${name}_ready"; do
        if ((SECONDS >= deadline)); then
            echo "services.sh: $name did not come up${PORT[$name]:+ on 127.0.0.1:${PORT[$name]}} within ${TIMEOUT}s;" \
                 "last lines of $LOG:" >&2
            tail -n 20 "$LOG" >&2
            exit 1
        fi
        sleep 1
    done
}

services=("$@")
((${#services[@]})) || services=("${ALL[@]}")
for name in "${services[@]}"; do
    [[ -n ${PACKAGE[$name]:-} ]] || die "unknown service '$name' (known: ${ALL[*]})"
done

missing=()
for name in "${services[@]}"; do
    for package in ${PACKAGE[$name]}; do
        installed "$package" || missing+=("$package")
    done
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]} (log: $LOG)"
    as_root apt-get update -q >>"$LOG" 2>&1 || die "apt-get update failed (see $LOG)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >>"$LOG" 2>&1 \
        || die "apt-get install ${missing[*]} failed (see $LOG)"
fi

for name in "${services[@]}"; do
    if "${name}_ready"; then
        state="already running"
        [[ -n ${PORT[$name]} ]] || state=present
    else
        state=started
        for package in ${PACKAGE[$name]}; do
            [[ " ${missing[*]} " != *" $package "* ]] || state="installed+started"
        done
        echo "--- $(date -u +%FT%TZ) starting $name" >>"$LOG"
        "${name}_start" >>"$LOG" 2>&1 || echo "(start command of $name exited with $?)" >>"$LOG"
        wait_ready "$name"
    fi
    changes=$("${name}_configure")
    echo "$name: $state${PORT[$name]:+ on 127.0.0.1:${PORT[$name]}}${changes:+ ($changes)}"
done
