#!/usr/bin/env bash
# Builds the Sluice sample EAR and runs it on WildFly at http://localhost:8080/sample/.
#
#   ./run-sample.sh              build, start, print curl lines to try; Ctrl-C stops everything
#
# Uses a redis-server from the PATH when there is one (started on a free loopback port, without
# persistence, stopped on exit); otherwise Sluice falls back to its in-process store.
# Environment:
#   SLUICE_SAMPLE_PORT_OFFSET  shifts every WildFly port (default 0: HTTP 8080, management 9990)
#   SLUICE_SAMPLE_SKIP_BUILD   set to 1 to reuse the last build
#   SLUICE_SAMPLE_REDIS        set to off to use the in-process store even with redis-server installed
#   MVN                        the Maven command (default: mvn)
set -euo pipefail

cd "$(dirname "$0")"
root=$(pwd)
offset=${SLUICE_SAMPLE_PORT_OFFSET:-0}
http_port=$((8080 + offset))
base="http://localhost:${http_port}/sample"
run_dir="$root/ear-sample/it/target/run-sample"

wildfly_pid=""
redis_pid=""

say() { printf '\033[1m%s\033[0m\n' "$*"; }

cleanup() {
    trap - EXIT INT TERM
    if [[ -n "$wildfly_pid" ]] && kill -0 "$wildfly_pid" 2>/dev/null; then
        say "Stopping WildFly..."
        kill "$wildfly_pid" 2>/dev/null || true
        wait "$wildfly_pid" 2>/dev/null || true
    fi
    if [[ -n "$redis_pid" ]] && kill -0 "$redis_pid" 2>/dev/null; then
        say "Stopping redis-server..."
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if port_in_use "$http_port"; then
    echo "Port $http_port is taken; stop what uses it or set SLUICE_SAMPLE_PORT_OFFSET (e.g. 100 for 8180)." >&2
    exit 1
fi

if [[ "${SLUICE_SAMPLE_SKIP_BUILD:-0}" != 1 ]]; then
    say "Building the sample and provisioning WildFly (the first run downloads about 300 MB)..."
    # pre-integration-test runs the it module up to provisioning: WildFly unpacked with the sample users
    # (alice/alice-pw, bob/bob-pw) and the built EAR copied to ear-sample/it/target/deployments.
    ${MVN:-mvn} -B -q -pl ear-sample/it -am pre-integration-test -DskipTests
fi

wildfly_home=$(ls -d "$root"/ear-sample/it/target/wildfly-*/ 2>/dev/null | head -n 1)
ear="$root/ear-sample/it/target/deployments/sample.ear"
if [[ -z "$wildfly_home" || ! -f "$ear" ]]; then
    echo "No WildFly or sample.ear under ear-sample/it/target: run without SLUICE_SAMPLE_SKIP_BUILD." >&2
    exit 1
fi

# A server base directory of its own, so this run never touches the one the tests use.
rm -rf "$run_dir"
mkdir -p "$run_dir/deployments" "$run_dir/log"
cp -R "$wildfly_home/standalone/configuration" "$run_dir/"
cp "$ear" "$run_dir/deployments/"

redis_args=()
if [[ "${SLUICE_SAMPLE_REDIS:-on}" != off ]] && command -v redis-server >/dev/null 2>&1; then
    redis_port=""
    for _ in $(seq 1 50); do
        candidate=$((20000 + RANDOM % 20000))
        if ! port_in_use "$candidate"; then
            redis_port=$candidate
            break
        fi
    done
    if [[ -z "$redis_port" ]]; then
        echo "Found no free port for redis-server." >&2
        exit 1
    fi
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$run_dir" --logfile "$run_dir/log/redis.log" &
    redis_pid=$!
    for _ in $(seq 1 100); do
        port_in_use "$redis_port" && break
        kill -0 "$redis_pid" 2>/dev/null || { echo "redis-server failed: see $run_dir/log/redis.log" >&2; exit 1; }
        sleep 0.1
    done
    redis_args=("-Dsluice.redis.uri=redis://127.0.0.1:${redis_port}")
    say "redis-server on 127.0.0.1:${redis_port}"
else
    say "No Redis: Sluice keeps its counters in memory, for this one server (it logs a warning once)."
fi

say "Starting WildFly (log: $run_dir/log/server.log)..."
LAUNCH_JBOSS_IN_BACKGROUND=1 "$wildfly_home/bin/standalone.sh" \
    -c standalone-microprofile.xml \
    -Djboss.server.base.dir="$run_dir" \
    -Djboss.socket.binding.port-offset="$offset" \
    "${redis_args[@]}" > "$run_dir/console.log" 2>&1 &
wildfly_pid=$!

for _ in $(seq 1 600); do
    if [[ -f "$run_dir/deployments/sample.ear.deployed" ]]; then
        break
    fi
    if [[ -f "$run_dir/deployments/sample.ear.failed" ]] || ! kill -0 "$wildfly_pid" 2>/dev/null; then
        echo "The sample did not deploy; see $run_dir/log/server.log" >&2
        exit 1
    fi
    sleep 0.5
done
if [[ ! -f "$run_dir/deployments/sample.ear.deployed" ]]; then
    echo "The sample did not deploy within 5 minutes; see $run_dir/log/server.log" >&2
    exit 1
fi

cat <<EOF

$(say "The sample is up at $base/  (Ctrl-C stops WildFly${redis_pid:+ and redis-server})")

  # JAX-RS, @RateLimited("api"): 5 requests a minute per address. Prints 200 five times, then 429:
  for i in 1 2 3 4 5 6; do curl -s -o /dev/null -w '%{http_code}\n' $base/api/hello; done

  # The 429 itself: Retry-After, RateLimit-Policy, RateLimit and an application/problem+json body:
  curl -i $base/api/hello

  # Servlet filter declared in web.xml, policy "login": 5 a minute per address, then 429:
  curl -i -X POST $base/login

  # A login that counts only failures (policy login-failures: count=401, 3 a minute per address).
  # The right password, as often as you like: 200 each time, the bucket untouched:
  curl -i -d user=alice -d password=alice-pw $base/api/sign-in
  # Three wrong passwords (401 401 401), then the right one is refused too (429) until a token is back:
  for p in guess1 guess2 guess3 alice-pw; do curl -s -o /dev/null -w '%{http_code}\n' -d user=alice -d password=\$p $base/api/sign-in; done

  # A limit on trial: shadow-trial (2 a minute, mode=shadow) refuses nothing and sends no headers of its
  # own; the headers name shadow-enforced (5 a minute), which alone refuses, from the sixth request on.
  # The first line shows the headers; the loop prints 200 four times, then 429:
  curl -si $base/api/catalog | grep -i '^ratelimit'
  for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{http_code}\n' $base/api/catalog; done

  # Per user (HTTP Basic; users alice/alice-pw and bob/bob-pw): 3 a minute each:
  curl -i -u alice:alice-pw $base/api/me

  # @Locked: buy one of 10 seats (201 "seat N", 409 "sold out" after the tenth), then the report:
  curl -i -X POST $base/api/concerts/rock/tickets
  curl $base/api/concerts/rock

  # @Bounded: 6 renders at once, at most 2 run together (mostAtOnce=2 in the report):
  for i in 1 2 3 4 5 6; do curl -s -X POST $base/api/render & done; wait; curl $base/api/render

EOF

wait "$wildfly_pid"
