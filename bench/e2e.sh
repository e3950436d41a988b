#!/usr/bin/env bash
# End to end on WildFly: the plain-WAR sample's GET /api/hello loaded by wrk on loopback, with Sluice's
# servlet filter (a policy on that path with a limit never reached) and without (sluice.filter.enabled=false).
#
#   bench/e2e.sh                 build the sample, then 3 rounds of A/B (with, without)
#   SLUICE_E2E_SKIP_BUILD=1 bench/e2e.sh   reuse ear-sample/it/target from the last build
#
# bench/run.sh runs this script as its "e2e" part (1 round of 10 s in quick mode, 3 rounds of 20 s in full
# mode) and puts the results in docs/performance.md; run alone, it only prints them.
#
# Environment: SLUICE_E2E_ROUNDS (3), SLUICE_E2E_WARMUP (20s), SLUICE_E2E_DURATION (20s),
# SLUICE_E2E_THREADS (2), SLUICE_E2E_CONNECTIONS (32), SLUICE_E2E_PORT_OFFSET (700: HTTP on 8780).
#
# Both variants switch the JAX-RS policy of /api/hello off (sluice.limit.api.enabled=false), so the only
# difference is the filter: one EVALSHA per request to a local redis-server. WildFly is restarted for every
# run (same flags but the filter's), warmed up, then measured. Prints a table and writes one line per run to
# ear-sample/it/target/e2e-bench/results/summary.txt: round, variant, requests/s, p99 µs, and the CPU µs per
# request of WildFly, redis-server and wrk.
# Needs: JDK 17, Maven, redis-server, wrk (Debian: apt-get install wrk redis-server).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

rounds=${SLUICE_E2E_ROUNDS:-3}
warmup=${SLUICE_E2E_WARMUP:-20s}
duration=${SLUICE_E2E_DURATION:-20s}
threads=${SLUICE_E2E_THREADS:-2}
connections=${SLUICE_E2E_CONNECTIONS:-32}
offset=${SLUICE_E2E_PORT_OFFSET:-700}
http_port=$((8080 + offset))
url="http://127.0.0.1:${http_port}/sample-plain/api/hello"
run_dir="$root/ear-sample/it/target/e2e-bench"

for tool in java redis-server wrk curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench/e2e.sh needs $tool (Debian: apt-get install wrk redis-server curl)" >&2; exit 1; }
done

wildfly_pid=""
redis_pid=""
stop_wildfly() {
    if [[ -n "$wildfly_pid" ]] && kill -0 "$wildfly_pid" 2>/dev/null; then
        kill "$wildfly_pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$wildfly_pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$wildfly_pid" 2>/dev/null || true
        wait "$wildfly_pid" 2>/dev/null || true
    fi
    wildfly_pid=""
}
cleanup() {
    trap - EXIT INT TERM
    stop_wildfly
    if [[ -n "$redis_pid" ]] && kill -0 "$redis_pid" 2>/dev/null; then
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_in_use "$http_port"; then
    echo "Port $http_port is taken; set SLUICE_E2E_PORT_OFFSET." >&2
    exit 1
fi

if [[ "${SLUICE_E2E_SKIP_BUILD:-0}" != 1 ]]; then
    echo "Building the sample and provisioning WildFly..."
    ${MVN:-mvn} -B -q -pl ear-sample/it -am pre-integration-test -DskipTests
fi
wildfly_home=$(ls -d "$root"/ear-sample/it/target/wildfly-*/ 2>/dev/null | head -n 1)
war="$root/ear-sample/it/target/deployments/sample-plain.war"
if [[ -z "$wildfly_home" || ! -f "$war" ]]; then
    echo "No WildFly or sample-plain.war under ear-sample/it/target: run without SLUICE_E2E_SKIP_BUILD." >&2
    exit 1
fi

rm -rf "$run_dir"
mkdir -p "$run_dir/log" "$run_dir/results"

redis_port=""
for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 20000))
    if ! port_in_use "$candidate"; then redis_port=$candidate; break; fi
done
[[ -n "$redis_port" ]] || { echo "Found no free port for redis-server." >&2; exit 1; }
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$run_dir" --logfile "$run_dir/log/redis.log" &
redis_pid=$!
for _ in $(seq 1 100); do
    port_in_use "$redis_port" && break
    kill -0 "$redis_pid" 2>/dev/null || { echo "redis-server failed: see $run_dir/log/redis.log" >&2; exit 1; }
    sleep 0.1
done

# $1: with|without
start_wildfly() {
    local variant=$1 base="$run_dir/server-$1"
    rm -rf "$base"
    mkdir -p "$base/deployments" "$base/log"
    cp -R "$wildfly_home/standalone/configuration" "$base/"
    cp "$war" "$base/deployments/"
    local filter=(-Dsluice.filter.enabled=false)
    if [[ "$variant" == with ]]; then
        filter=(-Dsluice.filter.enabled=true)
    fi
    LAUNCH_JBOSS_IN_BACKGROUND=1 "$wildfly_home/bin/standalone.sh" \
        -c standalone-microprofile.xml \
        -Djboss.server.base.dir="$base" \
        -Djboss.socket.binding.port-offset="$offset" \
        -Djboss.bind.address=127.0.0.1 \
        -Dsluice.redis.uri="redis://127.0.0.1:${redis_port}" \
        -Dsluice.key-prefix="e2e-$variant" \
        -Dsluice.limit.api.enabled=false \
        -Dsluice.limit.e2e.rate=1000000/1s \
        -Dsluice.limit.e2e.paths=/api/hello \
        "${filter[@]}" > "$base/console.log" 2>&1 &
    wildfly_pid=$!
    for _ in $(seq 1 600); do
        [[ -f "$base/deployments/sample-plain.war.deployed" ]] && break
        if [[ -f "$base/deployments/sample-plain.war.failed" ]] || ! kill -0 "$wildfly_pid" 2>/dev/null; then
            echo "The sample did not deploy; see $base/log/server.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    [[ -f "$base/deployments/sample-plain.war.deployed" ]] || { echo "No deployment in 5 minutes: $base/log/server.log" >&2; exit 1; }
    # Check the variant really is what it claims: RateLimit headers from the filter only when it is on.
    local headers
    headers=$(curl -s -D - -o /dev/null "$url")
    if ! grep -q '^HTTP/1.1 200' <<<"$headers"; then
        echo "GET $url did not answer 200:" >&2; echo "$headers" >&2; exit 1
    fi
    if [[ "$variant" == with ]] && ! grep -qi '^RateLimit' <<<"$headers"; then
        echo "With the filter on, GET $url has no RateLimit headers:" >&2; echo "$headers" >&2; exit 1
    fi
    if [[ "$variant" == without ]] && grep -qi '^RateLimit' <<<"$headers"; then
        echo "With the filter off, GET $url still has RateLimit headers:" >&2; echo "$headers" >&2; exit 1
    fi
}

# CPU time (user + system, in clock ticks) of a process so far, and of this shell's waited-for children.
clock_ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
snapshot_children() {
    # bash's `times`, run in this shell (a subshell would see no children): its second line is the children's
    # user and system time, e.g. "0m1.230s 0m0.450s"
    times > "$run_dir/results/times.txt"
}
children_ticks_read() {
    awk -v hz="$clock_ticks" 'NR == 2 { t = 0
        for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] }
        printf "%.0f", t * hz }' "$run_dir/results/times.txt"
}

# wrk latency to microseconds: 812.00us, 1.23ms, 2.00s
to_us() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) print n; else if (v ~ /ms$/) print n * 1000; else if (v ~ /m$/) print n * 60000000;
        else if (v ~ /s$/) print n * 1000000; else print n }'
}

echo "wrk -t$threads -c$connections -d$duration --latency $url, warm-up $warmup, $rounds rounds (with, without)"
for round in $(seq 1 "$rounds"); do
    for variant in with without; do
        start_wildfly "$variant"
        wrk -t"$threads" -c"$connections" -d"$warmup" "$url" > "$run_dir/results/warmup-$round-$variant.txt"
        out="$run_dir/results/run-$round-$variant.txt"
        java_pid=$(pgrep -P "$wildfly_pid" java | head -n 1)
        read -r wildfly_cpu0 < <(cpu_ticks "$java_pid"); read -r redis_cpu0 < <(cpu_ticks "$redis_pid")
        snapshot_children; wrk_cpu0=$(children_ticks_read)
        wrk -t"$threads" -c"$connections" -d"$duration" --latency "$url" > "$out"
        snapshot_children; wrk_cpu1=$(children_ticks_read)
        read -r wildfly_cpu1 < <(cpu_ticks "$java_pid"); read -r redis_cpu1 < <(cpu_ticks "$redis_pid")
        requests=$(awk '/requests in/ {print $1; exit}' "$out")
        cpu_per_request() { awk -v a="$1" -v b="$2" -v n="$requests" -v hz="$clock_ticks" 'BEGIN { printf "%.0f", (b - a) / hz * 1e6 / n }'; }
        wildfly_us=$(cpu_per_request "$wildfly_cpu0" "$wildfly_cpu1")
        redis_us=$(cpu_per_request "$redis_cpu0" "$redis_cpu1")
        wrk_us=$(cpu_per_request "$wrk_cpu0" "$wrk_cpu1")
        rps=$(awk '/^Requests\/sec:/ {print $2}' "$out")
        p99=$(to_us "$(awk '$1 == "99%" {print $2}' "$out")")
        errors=$(awk '/Non-2xx|Socket errors/' "$out")
        if [[ -n "$errors" ]]; then
            echo "round $round $variant: $errors (see $out)" >&2
            exit 1
        fi
        printf 'round %d  %-7s  %10.0f req/s  p99 %8.0f us  CPU per request: WildFly %s us, redis-server %s us, wrk %s us\n' \
            "$round" "$variant" "$rps" "$p99" "$wildfly_us" "$redis_us" "$wrk_us"
        echo "$round $variant $rps $p99 $wildfly_us $redis_us $wrk_us" >> "$run_dir/results/summary.txt"
        stop_wildfly
    done
done

# Per round: ratio = with/without req/s, added p99 = with - without; reported as mean ± sample std dev.
table=$(awk -v rounds="$rounds" '
    { rps[$1, $2] = $3; p99[$1, $2] = $4; wf[$1, $2] = $5; rd[$1, $2] = $6; wk[$1, $2] = $7 }
    function mean(a, n,   i, s) { s = 0; for (i = 1; i <= n; i++) s += a[i]; return s / n }
    function sd(a, n,   i, m, s) { if (n < 2) return 0; m = mean(a, n); s = 0
        for (i = 1; i <= n; i++) s += (a[i] - m) ^ 2; return sqrt(s / (n - 1)) }
    END {
        for (r = 1; r <= rounds; r++) {
            ratio[r] = rps[r, "with"] / rps[r, "without"]; added[r] = p99[r, "with"] - p99[r, "without"]
            rw[r] = rps[r, "with"]; ro[r] = rps[r, "without"]; pw[r] = p99[r, "with"]; po[r] = p99[r, "without"]
            wfw[r] = wf[r, "with"]; wfo[r] = wf[r, "without"]; rdw[r] = rd[r, "with"]; rdo[r] = rd[r, "without"]
            wkw[r] = wk[r, "with"]; wko[r] = wk[r, "without"]
            list_ratio = list_ratio (r > 1 ? ", " : "") sprintf("%.3f", ratio[r])
            list_added = list_added (r > 1 ? ", " : "") sprintf("%+.2f", added[r] / 1000)
        }
        m = mean(ratio, rounds); a = mean(added, rounds) / 1000
        print "| Variant | Requests/s | p99 | CPU µs per request: WildFly | redis-server | wrk |"
        print "|---|--:|--:|--:|--:|--:|"
        printf "| Without the filter | %.0f ± %.0f | %.2f ± %.2f ms | %.0f ± %.0f | %.0f | %.0f |\n", mean(ro, rounds), sd(ro, rounds), mean(po, rounds) / 1000, sd(po, rounds) / 1000, mean(wfo, rounds), sd(wfo, rounds), mean(rdo, rounds), mean(wko, rounds)
        printf "| With the filter (limit never reached) | %.0f ± %.0f | %.2f ± %.2f ms | %.0f ± %.0f | %.0f | %.0f |\n", mean(rw, rounds), sd(rw, rounds), mean(pw, rounds) / 1000, sd(pw, rounds) / 1000, mean(wfw, rounds), sd(wfw, rounds), mean(rdw, rounds), mean(wkw, rounds)
        print ""
        print "| Target | Goal | Measured | Verdict |"
        print "|---|--:|--:|---|"
        printf "| WildFly with filter ÷ without, requests/s | ≥ 0.85 | %.3f ± %.3f (per round %s) | %s |\n", m, sd(ratio, rounds), list_ratio, (m >= 0.85 ? "met" : "not met")
        printf "| Added p99 | < 1 ms | %.2f ± %.2f ms (per round %s) | %s |\n", a, sd(added, rounds) / 1000, list_added, (a < 1 ? "met" : "not met")
    }' "$run_dir/results/summary.txt")
echo
echo "$table"
