-- bench/e2e.sh's wrk script. SLUICE_E2E_XFF=1: every request carries X-Forwarded-For with one of 100,000
-- addresses (10.0.0.0 - 10.1.134.159) picked at random, as if a proxy on loopback forwarded many clients.
-- SLUICE_E2E_PACE_MS > 0: each connection waits that long after a response before its next request, which
-- holds the load at about connections / (pace + latency) requests/s, far below saturation.
local xff = os.getenv("SLUICE_E2E_XFF") == "1"
local pace = tonumber(os.getenv("SLUICE_E2E_PACE_MS") or "0") or 0
local threads = 0

function setup(thread)
    threads = threads + 1
    thread:set("seed", threads)
end

function init(args)
    math.randomseed(os.time() * 1000 + (seed or 0))
end

if xff then
    local headers = {}
    function request()
        local n = math.random(0, 99999)
        headers["X-Forwarded-For"] = "10." .. math.floor(n / 65536) .. "." .. (math.floor(n / 256) % 256) .. "." .. (n % 256)
        return wrk.format(nil, nil, headers)
    end
end

if pace > 0 then
    function delay()
        return pace
    end
end
