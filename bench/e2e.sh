#!/usr/bin/env bash
# End to end on WildFly: the plain-WAR sample's GET /api/hello loaded by wrk on loopback, in seven variants:
#
#   without       Sluice's filter off (sluice.filter.enabled=false): the endpoint alone
#   with          Sluice's servlet filter, a policy on that path with a limit never reached, key per client address
#   with-budget   as "with", the policy with a local budget (sluice.limit.e2e.local-budget=50ms): the node admits the
#                 one address's requests from tokens it took in advance
#   bucket4j      Sluice's filter off, a Bucket4j filter instead (bench/src/main/java/dev/sluice/bench/servlet,
#                 written as Bucket4j's documentation shows: Jedis compare-and-swap proxy manager, a bucket per
#                 getRemoteAddr(), a limit never reached), packed with Bucket4j's jars into a copy of the WAR
#   with-xff      as "with", every request carrying X-Forwarded-For with one of 100,000 addresses picked at
#                 random (bench/e2e.lua), loopback a trusted proxy (sluice.trusted-proxies=127.0.0.1)
#   bucket4j-xff  as "bucket4j" with the same requests, WildFly's proxy-address-forwarding=true on the HTTP
#                 listener, so that getRemoteAddr() is the forwarded address
#   evalsha       a reference, not a peer: Sluice's filter off, a filter that makes one EVALSHA of Sluice's gcra.lua
#                 per request through Jedis and nothing else (bench/.../servlet/EvalshaFilter.java), packed into a
#                 copy of the WAR: what asking Redis once per request costs WildFly on this host
#
# All but the -xff variants have one client address (127.0.0.1: one hot key), those two many. Every filter keys by
# the same address; start-up checks it by reading the key of one request with MONITOR.
#
#   bench/e2e.sh                 build the sample and the Bucket4j filter, then the rounds
#   SLUICE_E2E_SKIP_BUILD=1 bench/e2e.sh   reuse ear-sample/it/target and bench/target from the last build
#
# bench/run.sh runs this script as its "e2e" part and puts the results in docs/performance.md; run alone, it
# only prints them.
#
# Environment: SLUICE_E2E_ROUNDS (3), SLUICE_E2E_WARMUP (20s), SLUICE_E2E_WARMUP_STEP (10s), SLUICE_E2E_WARMUP_MAX
# (180s), SLUICE_E2E_JIT_SETTLED (1: seconds of compilation in a step below which the JIT counts as settled),
# SLUICE_E2E_DURATION (20s), SLUICE_E2E_LATENCY_DURATION (10s), SLUICE_E2E_LATENCY_RATE (500 requests/s), SLUICE_E2E_THREADS (2),
# SLUICE_E2E_CONNECTIONS (32), SLUICE_E2E_PORT_OFFSET (700: HTTP on 8780), SLUICE_E2E_VARIANTS (all seven,
# comma-separated), SLUICE_E2E_JFR (a directory: record WildFly with JFR's profile settings in every run),
# SLUICE_E2E_PERF (any value: count WildFly's system calls and context switches over the measured run with perf stat
# and print them per request, numbers that depend on the code more than on how loaded the host is;
# SLUICE_E2E_PERF_EVENTS, a comma-separated list of perf events, counts others, e.g. syscalls:sys_enter_futex).
#
# Each run: WildFly restarted (same flags but the variant's), a warm-up at saturation (wrk, 32 connections) that
# lasts until WildFly's JIT compiler has settled (jstat: under a second of compilation in the last 10 s), the
# measured throughput run at saturation (requests/s and CPU per request), then the latency run: 5 connections
# paced by bench/e2e.lua to about SLUICE_E2E_LATENCY_RATE requests/s in all, well below what any
# variant serves, whose p99 is the variant's latency (at saturation p99 is only queueing). The variants' order
# rotates round by round. Both Sluice variants and "without" switch the JAX-RS policy of /api/hello off
# (sluice.limit.api.enabled=false). Prints a table and writes one line per run to
# ear-sample/it/target/e2e-bench/results/summary.txt: round, variant, requests/s, p99 µs (paced run), the CPU
# µs per request of WildFly, redis-server and wrk (throughput run), and the paced run's requests/s; and one line
# per run to warmups.txt: round, variant, seconds of warm-up.
# Needs: JDK 17, Maven, redis-server, redis-cli, wrk (Debian: apt-get install wrk redis-server redis-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

rounds=${SLUICE_E2E_ROUNDS:-3}
warmup=${SLUICE_E2E_WARMUP:-20s}
warmup_step=${SLUICE_E2E_WARMUP_STEP:-10s}
warmup_max=${SLUICE_E2E_WARMUP_MAX:-180s}
jit_settled=${SLUICE_E2E_JIT_SETTLED:-1}
duration=${SLUICE_E2E_DURATION:-20s}
latency_duration=${SLUICE_E2E_LATENCY_DURATION:-10s}
latency_rate=${SLUICE_E2E_LATENCY_RATE:-500}
latency_connections=5
threads=${SLUICE_E2E_THREADS:-2}
connections=${SLUICE_E2E_CONNECTIONS:-32}
offset=${SLUICE_E2E_PORT_OFFSET:-700}
IFS=, read -r -a variants <<<"${SLUICE_E2E_VARIANTS:-without,with,with-budget,bucket4j,with-xff,bucket4j-xff,evalsha}"
jfr_dir=${SLUICE_E2E_JFR:-}
perf_events=""
if [[ -n "${SLUICE_E2E_PERF:-}" ]]; then
    command -v perf >/dev/null 2>&1 || { echo "SLUICE_E2E_PERF needs perf (Debian: apt-get install linux-perf)" >&2; exit 1; }
    perf_events=${SLUICE_E2E_PERF_EVENTS:-raw_syscalls:sys_enter,context-switches}
fi
http_port=$((8080 + offset))
url="http://127.0.0.1:${http_port}/sample-plain/api/hello"
run_dir="$root/ear-sample/it/target/e2e-bench"
bucket4j_lib="$root/ear-sample/it/target/e2e-bucket4j-lib"
script="$root/bench/e2e.lua"

for setting in "SLUICE_E2E_WARMUP=$warmup" "SLUICE_E2E_WARMUP_STEP=$warmup_step" "SLUICE_E2E_WARMUP_MAX=$warmup_max"; do
    [[ "${setting#*=}" =~ ^[0-9]+s$ ]] || { echo "${setting%%=*}: \"${setting#*=}\" is not a number of seconds; expected e.g. 20s" >&2; exit 1; }
done
[[ "$jit_settled" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "SLUICE_E2E_JIT_SETTLED: \"$jit_settled\" is not a number of seconds; expected e.g. 1" >&2; exit 1; }
for tool in java jstat redis-server redis-cli wrk curl jar; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench/e2e.sh needs $tool (Debian: apt-get install wrk redis-server redis-tools curl)" >&2; exit 1; }
done
for variant in "${variants[@]}"; do
    case "$variant" in without|with|with-budget|bucket4j|with-xff|bucket4j-xff|evalsha) ;;
        *) echo "SLUICE_E2E_VARIANTS: \"$variant\" is not a variant; expected without, with, with-budget, bucket4j, with-xff, bucket4j-xff, evalsha" >&2; exit 1 ;;
    esac
done

wildfly_pid=""
redis_pid=""
monitor_pid=""
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
    if [[ -n "$monitor_pid" ]] && kill -0 "$monitor_pid" 2>/dev/null; then
        kill "$monitor_pid" 2>/dev/null || true
    fi
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
    echo "Building the sample, provisioning WildFly and compiling the Bucket4j filter..."
    rm -rf "$bucket4j_lib"
    ${MVN:-mvn} -B -q -pl ear-sample/it,bench -am pre-integration-test -DskipTests \
        -Pe2e-bucket4j -De2e.bucket4j.lib="$bucket4j_lib"
fi
wildfly_home=$(ls -d "$root"/ear-sample/it/target/wildfly-*/ 2>/dev/null | head -n 1)
war="$root/ear-sample/it/target/deployments/sample-plain.war"
if [[ -z "$wildfly_home" || ! -f "$war" ]]; then
    echo "No WildFly or sample-plain.war under ear-sample/it/target: run without SLUICE_E2E_SKIP_BUILD." >&2
    exit 1
fi
filter_classes="$root/bench/target/classes/dev/sluice/bench/servlet"
if [[ ! -f "$filter_classes/Bucket4jRateLimitFilter.class" || ! -f "$filter_classes/EvalshaFilter.class" || ! -f "$filter_classes/GcraArgs.class" ]] || ! ls "$bucket4j_lib"/bucket4j_jdk17-jedis-*.jar >/dev/null 2>&1; then
    echo "No compiled Bucket4j filter or no Bucket4j jars: run without SLUICE_E2E_SKIP_BUILD." >&2
    exit 1
fi

rm -rf "$run_dir"
mkdir -p "$run_dir/log" "$run_dir/results"

# A copy of the sample WAR with one of bench/src/main/java/dev/sluice/bench/servlet's filters: a jar of its classes
# and of its web fragment (bench/src/e2e/web-fragment-<variant>.xml, which registers it), and the jars given after it.
# $1: the variant, $2: the names of the classes to pack (the filter and what it uses, space-separated), then jars
filter_war() {
    local variant=$1 classes=$2 dir="$run_dir/$1-war" jar_dir="$run_dir/$1-jar" class
    shift 2
    mkdir -p "$dir/WEB-INF/lib" "$jar_dir/META-INF" "$jar_dir/dev/sluice/bench/servlet"
    cp "$war" "$dir/sample-plain.war"
    for class in $classes; do
        for file in "$filter_classes/$class".class "$filter_classes/$class"\$*.class; do
            if [[ -f "$file" ]]; then cp "$file" "$jar_dir/dev/sluice/bench/servlet/"; fi
        done
    done
    cp "$root/bench/src/e2e/web-fragment-$variant.xml" "$jar_dir/META-INF/web-fragment.xml"
    jar cf "$dir/WEB-INF/lib/bench-$variant-filter.jar" -C "$jar_dir" .
    if [[ $# -gt 0 ]]; then cp "$@" "$dir/WEB-INF/lib/"; fi
    (cd "$dir" && jar uf sample-plain.war WEB-INF/lib)
}
# Bucket4j's filter with Bucket4j's jars (the sample WAR holds Jedis already); the evalsha reference calls the script
# of Sluice's core, which the sample WAR holds too.
filter_war bucket4j Bucket4jRateLimitFilter "$bucket4j_lib"/*.jar
filter_war evalsha "EvalshaFilter GcraArgs"
war_bucket4j="$run_dir/bucket4j-war/sample-plain.war"
war_evalsha="$run_dir/evalsha-war/sample-plain.war"

# A free port is one nobody listens on, but it may still be the local end of a connection (it is in Linux's usual
# ephemeral range, 32768-60999, or above), and then redis-server cannot bind it: each attempt starts redis-server and
# waits until it listens, trying another port when it exits instead.
redis_port=""
for _ in $(seq 1 20); do
    candidate=$((20000 + RANDOM % 12000))
    port_in_use "$candidate" && continue
    redis-server --port "$candidate" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$run_dir" --logfile "$run_dir/log/redis.log" &
    redis_pid=$!
    for _ in $(seq 1 100); do
        if port_in_use "$candidate"; then redis_port=$candidate; break; fi
        kill -0 "$redis_pid" 2>/dev/null || break
        sleep 0.1
    done
    [[ -n "$redis_port" ]] && break
    kill "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
    redis_pid=""
done
[[ -n "$redis_port" ]] || { echo "redis-server did not start on any of 20 ports: see $run_dir/log/redis.log" >&2; exit 1; }

# Checks that a variant is what it claims: the headers of its filter only, and a Redis key for the address the
# request came from (the forwarded one for the -xff variants), seen by MONITOR.
check_variant() {
    local variant=$1 address=127.0.0.1 headers
    local curl_args=(-s -D - -o /dev/null)
    if [[ "$variant" == *-xff ]]; then
        address="10.$((RANDOM % 200)).$((RANDOM % 250)).$((1 + RANDOM % 250))"
        curl_args+=(-H "X-Forwarded-For: $address")
    fi
    redis-cli -p "$redis_port" monitor > "$run_dir/log/monitor-$variant.txt" &
    monitor_pid=$!
    sleep 0.5
    headers=$(curl "${curl_args[@]}" "$url")
    sleep 0.5
    kill "$monitor_pid" 2>/dev/null || true
    wait "$monitor_pid" 2>/dev/null || true
    monitor_pid=""
    if ! grep -q '^HTTP/1.1 200' <<<"$headers"; then
        echo "$variant: GET $url did not answer 200:" >&2; echo "$headers" >&2; exit 1
    fi
    local sluice=no bucket4j=no
    grep -qi '^RateLimit' <<<"$headers" && sluice=yes
    grep -qi '^X-Rate-Limit-Remaining' <<<"$headers" && bucket4j=yes
    local want_sluice=no want_bucket4j=no
    case "$variant" in with|with-budget|with-xff) want_sluice=yes ;; bucket4j|bucket4j-xff) want_bucket4j=yes ;; esac
    if [[ "$sluice" != "$want_sluice" || "$bucket4j" != "$want_bucket4j" ]]; then
        echo "$variant: expected Sluice's headers: $want_sluice, Bucket4j's: $want_bucket4j; got:" >&2
        echo "$headers" >&2; exit 1
    fi
    if [[ "$variant" != without ]] && ! grep -qF "$address" "$run_dir/log/monitor-$variant.txt"; then
        echo "$variant: no Redis command named the client address $address (see $run_dir/log/monitor-$variant.txt)" >&2
        exit 1
    fi
}

# $1: the variant
start_wildfly() {
    local variant=$1 base="$run_dir/server-$1"
    rm -rf "$base"
    mkdir -p "$base/deployments" "$base/log"
    cp -R "$wildfly_home/standalone/configuration" "$base/"
    local flags=(-Dsluice.filter.enabled=false)
    case "$variant" in
        with) flags=(-Dsluice.filter.enabled=true) ;;
        with-budget) flags=(-Dsluice.filter.enabled=true -Dsluice.limit.e2e.local-budget=50ms) ;;
        with-xff) flags=(-Dsluice.filter.enabled=true -Dsluice.trusted-proxies=127.0.0.1) ;;
    esac
    if [[ "$variant" == bucket4j* ]]; then
        cp "$war_bucket4j" "$base/deployments/"
    elif [[ "$variant" == evalsha ]]; then
        cp "$war_evalsha" "$base/deployments/"
    else
        cp "$war" "$base/deployments/"
    fi
    if [[ "$variant" == bucket4j-xff ]]; then
        sed -i 's|<http-listener name="default" |<http-listener name="default" proxy-address-forwarding="true" |' \
            "$base/configuration/standalone-microprofile.xml"
        grep -q 'proxy-address-forwarding="true"' "$base/configuration/standalone-microprofile.xml" \
            || { echo "Could not set proxy-address-forwarding on WildFly's HTTP listener." >&2; exit 1; }
    fi
    local jfr=()
    if [[ -n "$jfr_dir" ]]; then
        mkdir -p "$jfr_dir"
        jfr=("JDK_JAVA_OPTIONS=-XX:StartFlightRecording=filename=$jfr_dir/$variant-round$round.jfr,settings=profile")
    fi
    env "${jfr[@]}" LAUNCH_JBOSS_IN_BACKGROUND=1 "$wildfly_home/bin/standalone.sh" \
        -c standalone-microprofile.xml \
        -Djboss.server.base.dir="$base" \
        -Djboss.socket.binding.port-offset="$offset" \
        -Djboss.bind.address=127.0.0.1 \
        -Dsluice.redis.uri="redis://127.0.0.1:${redis_port}" \
        -Dsluice.key-prefix="e2e-$variant" \
        -Dsluice.limit.api.enabled=false \
        -Dsluice.limit.e2e.rate=1000000/1s \
        -Dsluice.limit.e2e.paths=/api/hello \
        -Dbench.bucket4j.rate=1000000 \
        "${flags[@]}" > "$base/console.log" 2>&1 &
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
    check_variant "$variant"
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

fail_on_errors() {
    local errors
    errors=$(awk '/Non-2xx|Socket errors/' "$2")
    if [[ -n "$errors" ]]; then
        echo "$1: $errors (see $2)" >&2
        exit 1
    fi
}

# wrk with bench/e2e.lua: X-Forwarded-For for the -xff variants, pacing for the latency run.
# $1: variant, $2: pace in ms per request and connection (0: as fast as it can), then wrk's arguments
run_wrk() {
    local variant=$1 pace=$2; shift 2
    local xff=0
    [[ "$variant" == *-xff ]] && xff=1
    SLUICE_E2E_XFF=$xff SLUICE_E2E_PACE_MS=$pace wrk -s "$script" "$@" "$url"
}

# Seconds of JIT compilation in WildFly's JVM so far (jstat's Time column).
jit_seconds() {
    local seconds
    seconds=$(jstat -compiler "$1" 2>/dev/null | awk 'NR == 2 { print $4 }')
    [[ "$seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "jstat -compiler $1 gave no compile time; the warm-up cannot tell when the JIT has settled" >&2; exit 1; }
    echo "$seconds"
}

# The warm-up at saturation: $warmup, then more of it in steps of $warmup_step until the JIT compiler spent less
# than $jit_settled s of the last step compiling (at most $warmup_max in all). On two cores WildFly's compiler
# thread takes most of a core for a minute or more; measured during that, a variant would be charged for the
# compilation of its code rather than for running it, and more code (a filter, Jedis) would look dearer still.
# $1: variant, $2: the file for wrk's output
warm_up() {
    local variant=$1 file=$2 waited jit0 jit1
    run_wrk "$variant" 0 -t"$threads" -c"$connections" -d"$warmup" > "$file"
    waited=${warmup%s}
    jit1=$(jit_seconds "$java_pid") || exit 1
    while (( waited < ${warmup_max%s} )); do
        jit0=$jit1
        run_wrk "$variant" 0 -t"$threads" -c"$connections" -d"$warmup_step" >> "$file"
        waited=$((waited + ${warmup_step%s}))
        jit1=$(jit_seconds "$java_pid") || exit 1
        awk -v a="$jit0" -v b="$jit1" -v s="$jit_settled" 'BEGIN { exit !(b - a < s) }' && break
    done
    # A warm-up may time out while WildFly compiles; a wrong status means a broken variant.
    if grep -q 'Non-2xx' "$file"; then
        echo "round $round $variant warm-up: $(grep 'Non-2xx' "$file" | head -n 1)" >&2
        exit 1
    fi
    warmed_up=$waited
}

pace_ms=$(awk -v c="$latency_connections" -v r="$latency_rate" 'BEGIN { printf "%.0f", 1000 * c / r }')
echo "Throughput: wrk -t$threads -c$connections -d$duration after a warm-up of $warmup, then $warmup_step steps until" \
     "the JIT compiled for less than ${jit_settled}s of a step (at most $warmup_max); latency: wrk -t1" \
     "-c$latency_connections -d$latency_duration paced to about $latency_rate requests/s; $rounds round(s) of: ${variants[*]}"
for round in $(seq 1 "$rounds"); do
    # Rotate the order so that no variant always runs first (or right after another).
    n=${#variants[@]}
    for i in $(seq 0 $((n - 1))); do
        variant=${variants[$(((i + round - 1) % n))]}
        start_wildfly "$variant"
        java_pid=$(pgrep -P "$wildfly_pid" java | head -n 1)
        warm_up "$variant" "$run_dir/results/warmup-$round-$variant.txt"
        out="$run_dir/results/run-$round-$variant.txt"
        read -r wildfly_cpu0 < <(cpu_ticks "$java_pid"); read -r redis_cpu0 < <(cpu_ticks "$redis_pid")
        snapshot_children; wrk_cpu0=$(children_ticks_read)
        perf_pid=""
        if [[ -n "$perf_events" ]]; then
            perf stat -x , -o "$run_dir/results/perf-$round-$variant.csv" -e "$perf_events" -p "$java_pid" &
            perf_pid=$!
        fi
        run_wrk "$variant" 0 -t"$threads" -c"$connections" -d"$duration" > "$out"
        if [[ -n "$perf_pid" ]]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
        snapshot_children; wrk_cpu1=$(children_ticks_read)
        read -r wildfly_cpu1 < <(cpu_ticks "$java_pid"); read -r redis_cpu1 < <(cpu_ticks "$redis_pid")
        fail_on_errors "round $round $variant" "$out"
        latency_out="$run_dir/results/latency-$round-$variant.txt"
        run_wrk "$variant" "$pace_ms" -t1 -c"$latency_connections" -d"$latency_duration" --latency > "$latency_out"
        fail_on_errors "round $round $variant latency" "$latency_out"
        requests=$(awk '/requests in/ {print $1; exit}' "$out")
        cpu_per_request() { awk -v a="$1" -v b="$2" -v n="$requests" -v hz="$clock_ticks" 'BEGIN { printf "%.0f", (b - a) / hz * 1e6 / n }'; }
        wildfly_us=$(cpu_per_request "$wildfly_cpu0" "$wildfly_cpu1")
        redis_us=$(cpu_per_request "$redis_cpu0" "$redis_cpu1")
        wrk_us=$(cpu_per_request "$wrk_cpu0" "$wrk_cpu1")
        rps=$(awk '/^Requests\/sec:/ {print $2}' "$out")
        paced_rps=$(awk '/^Requests\/sec:/ {print $2}' "$latency_out")
        p99=$(to_us "$(awk '$1 == "99%" {print $2}' "$latency_out")")
        printf 'round %d  %-12s  %9.0f req/s  CPU per request: WildFly %4s us, redis-server %3s us, wrk %3s us;  paced %5.0f req/s: p99 %7.0f us  (warm-up %d s)\n' \
            "$round" "$variant" "$rps" "$wildfly_us" "$redis_us" "$wrk_us" "$paced_rps" "$p99" "$warmed_up"
        if [[ -n "$perf_pid" ]]; then
            awk -F, -v n="$requests" '$1 ~ /^[0-9]/ { printf "%s%s %.2f", (k++ ? ", " : "    WildFly per request: "), $3, $1 / n } END { print "" }' \
                "$run_dir/results/perf-$round-$variant.csv"
        fi
        echo "$round $variant $rps $p99 $wildfly_us $redis_us $wrk_us $paced_rps" >> "$run_dir/results/summary.txt"
        echo "$round $variant $warmed_up" >> "$run_dir/results/warmups.txt"
        stop_wildfly
    done
done

# Per round: ratios of requests/s and the added p99 within the round; reported as mean ± sample std dev.
awk -v rounds="$rounds" '
    { rps[$1, $2] = $3; p99[$1, $2] = $4; wf[$1, $2] = $5; rd[$1, $2] = $6; wk[$1, $2] = $7; seen[$2] = 1 }
    function mean(a, n,   i, s) { s = 0; for (i = 1; i <= n; i++) s += a[i]; return s / n }
    function sd(a, n,   i, m, s) { if (n < 2) return 0; m = mean(a, n); s = 0
        for (i = 1; i <= n; i++) s += (a[i] - m) ^ 2; return sqrt(s / (n - 1)) }
    function row(v, label,   r, x, p, w, d, k) {
        if (!(v in seen)) return
        for (r = 1; r <= rounds; r++) { x[r] = rps[r, v]; p[r] = p99[r, v]; w[r] = wf[r, v]; d[r] = rd[r, v]; k[r] = wk[r, v] }
        printf "| %s | %.0f ± %.0f | %.2f ± %.2f ms | %.0f ± %.0f | %.0f | %.0f |\n", label, mean(x, rounds), sd(x, rounds),
            mean(p, rounds) / 1000, sd(p, rounds) / 1000, mean(w, rounds), sd(w, rounds), mean(d, rounds), mean(k, rounds)
    }
    function target(label, a, b, goal,   r, q, m) {
        if (!(a in seen) || !(b in seen)) return
        for (r = 1; r <= rounds; r++) q[r] = rps[r, a] / rps[r, b]
        m = mean(q, rounds)
        printf "| %s | ≥ %.2f | %.3f ± %.3f | %s |\n", label, goal, m, sd(q, rounds), (m >= goal ? "met" : "not met")
    }
    END {
        print "| Variant | Requests/s | p99 (paced) | CPU µs per request: WildFly | redis-server | wrk |"
        print "|---|--:|--:|--:|--:|--:|"
        row("without", "Without a filter"); row("with", "Sluice, one address")
        row("with-budget", "Sluice with a local budget, one address"); row("bucket4j", "Bucket4j, one address")
        row("with-xff", "Sluice, many addresses"); row("bucket4j-xff", "Bucket4j, many addresses")
        row("evalsha", "One EVALSHA per request (reference), one address")
        print ""
        print "| Target | Goal | Measured | Verdict |"
        print "|---|--:|--:|---|"
        target("Sluice ÷ without, requests/s", "with", "without", 0.85)
        target("Sluice with a local budget ÷ without, requests/s", "with-budget", "without", 0.95)
        target("Sluice ÷ Bucket4j, one address", "with", "bucket4j", 1.5)
        target("Sluice ÷ Bucket4j, many addresses", "with-xff", "bucket4j-xff", 1.1)
        if (("evalsha" in seen) && ("without" in seen)) {
            for (r = 1; r <= rounds; r++) { q[r] = rps[r, "evalsha"] / rps[r, "without"]; c[r] = wf[r, "evalsha"] - wf[r, "without"] }
            printf "| One EVALSHA per request ÷ without (reference) | | %.3f ± %.3f, %.0f ± %.0f µs added | |\n", mean(q, rounds), sd(q, rounds), mean(c, rounds), sd(c, rounds)
        }
        if (("with" in seen) && ("without" in seen)) {
            for (r = 1; r <= rounds; r++) { c[r] = wf[r, "with"] - wf[r, "without"]; a[r] = p99[r, "with"] - p99[r, "without"] }
            printf "| Sluice: added WildFly CPU per request | ≤ 50 µs | %.0f ± %.0f µs | %s |\n", mean(c, rounds), sd(c, rounds), (mean(c, rounds) <= 50 ? "met" : "not met")
            printf "| Sluice: added p99 (paced) | < 1 ms | %.2f ± %.2f ms | %s |\n", mean(a, rounds) / 1000, sd(a, rounds) / 1000, (mean(a, rounds) < 1000 ? "met" : "not met")
        }
    }' "$run_dir/results/summary.txt" | { echo; cat; }
