-- The request mix of scripts/soak.sh: reads and writes on all five APIs, every request valid
-- and expected to succeed. wrk runs one connection per thread, so each response answers the
-- request this thread made just before it; that is what lets a response be matched to its write.
--
-- Arguments (key=value, from soak.sh): dir (where the ack and failure files go), threads,
-- write_rate (writes per second, all threads and APIs together), and the ids and tokens that
-- soak.sh set up: threads_token, threads_thread, cse118_token, cse118_channel, cse118_workspace,
-- cse118_student_workspace, cse118_student_channel, wsuv_session, otp_token, ip_token.
--
-- done() writes every acknowledged write to <dir>/acks.txt as "<api> <kind> <id>", so the checker
-- can find each of them in the exported state afterwards, and a few failed answers to
-- <dir>/failures.txt. The threads keep both in tables rather than files: wrk sizes each thread's
-- event loop for its sockets only, and a file descriptor numbered above that size makes
-- the connection fail to register (a "connect error").

local all_threads = {}

function setup(thread)
    table.insert(all_threads, thread)
    thread:set("tid", #all_threads)
end

local cfg = {}
local started
local write_budget_per_second
local writes_sent, reads_sent = 0, 0
-- Counters read by done(); per-API counts of writes sent and acknowledged.
requests, failures = 0, 0
ack_lines, failure_samples = {}, {}
sent = { threads = 0, otp = 0, wsuv = 0, internproducts = 0, cse118 = 0 }
acked = { threads = 0, otp = 0, wsuv = 0, internproducts = 0, cse118 = 0 }

-- What the request in flight was: its API, how to tell success, and the write it carries.
local inflight
-- An OTP sign-up in progress: the code was sent to this phone; verifying it is the write.
local pending_phone

local function form(path, body, headers)
    headers = headers or {}
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    return wrk.format("POST", path, headers, body)
end

local function json(method, path, body, headers)
    headers = headers or {}
    headers["Content-Type"] = "application/json"
    return wrk.format(method, path, headers, body)
end

local function contains(text) return function(status, body) return body:find(text, 1, true) ~= nil end end
local function status_ok(status) return status >= 200 and status < 300 end

-- Reads, in rotation; some appear twice to weigh them. None grows with the writes except the
-- threads list (thread adds are one in 50 threads writes), so a read costs the same at the end
-- of a long run as at its start.
local reads = {
    function()
        return "threads", wrk.format("GET", "/api/messages/" .. (1 + reads_sent % 4), { Authorization = "BEARER " .. cfg.threads_token }),
            contains('{"status":"ok","messages":[')
    end,
    function()
        return "threads", wrk.format("GET", "/api/threads", { Authorization = "BEARER " .. cfg.threads_token }),
            contains('{"status":"ok","threads":[')
    end,
    function()
        return "otp", json("POST", "/api/user", "{}", { ["x-authtoken"] = cfg.otp_token }), contains('"status":"ok"')
    end,
    function()
        -- A client polling for news when there is none: the whole list is filtered, none sent.
        return "wsuv", wrk.format("GET", "/cgi-bin/get-tweets.cgi?date=2099-01-01%2000%3A00%3A00"), contains('{"tweets":[]}')
    end,
    function()
        return "internproducts", wrk.format("GET", "/login?username=admin&password=1234"), contains('"status":"SUCCESS"')
    end,
    function()
        return "cse118", wrk.format("GET", "/api/v2/workspace", { Authorization = "Bearer " .. cfg.cse118_token }), contains('"name":"Soak"')
    end,
    function()
        return "cse118", wrk.format("GET", "/api/v2/channel/" .. cfg.cse118_student_channel .. "/message",
            { Authorization = "Bearer " .. cfg.cse118_token }), contains('"content":"Welcome to your Student Workspace!"')
    end,
    function()
        return "cse118", wrk.format("GET", "/api/v2/workspace/" .. cfg.cse118_student_workspace .. "/channel",
            { Authorization = "Bearer " .. cfg.cse118_token }), contains('"name":"Student Channel"')
    end,
    function()
        return "cse118", wrk.format("GET", "/api/v2/member", { Authorization = "Bearer " .. cfg.cse118_token }), contains('"name":"Sammy Slug"')
    end,
    function()
        return "otp", json("POST", "/api/user", "{}", { ["x-authtoken"] = cfg.otp_token }), contains('"status":"ok"')
    end,
    function()
        return "internproducts", wrk.format("GET", "/login?username=endavaStudent&password=schoolOfiOS"), contains('"status":"SUCCESS"')
    end,
    function()
        -- Replaces carol's session token each time: state that is rewritten, never grows.
        return "wsuv", form("/cgi-bin/login.cgi", "username=carol&password=carol2016"), contains('{"session_token":"')
    end,
}
-- Lists that are big (the product list carries every picture, about 1 MB) or grow with the run
-- (every tweet, every message of the soak thread): one read in 1000 fetches one of them.
local big_reads = {
    function()
        return "internproducts", wrk.format("GET", "/products?loginToken=" .. cfg.ip_token), contains('"status":"SUCCESS"')
    end,
    function() return "wsuv", wrk.format("GET", "/cgi-bin/get-tweets.cgi"), contains('"tweet":"soak-') end,
    function()
        return "threads", wrk.format("GET", "/api/messages/" .. cfg.threads_thread, { Authorization = "BEARER " .. cfg.threads_token }),
            contains('"message":"soak-')
    end,
}

-- Writes, in rotation over the APIs. Each returns the request, the success check and a function
-- that pulls the acknowledged id out of the answer ("kind id").
local writes = {
    function(tag)
        if writes_sent % 250 == 0 then
            return "threads", form("/api/thread/add", "title=" .. tag, { Authorization = "BEARER " .. cfg.threads_token }),
                contains('"status":"ok"'), function(body) return "thread " .. body:match('"thread_id":(%d+)') end
        end
        return "threads", form("/api/message/add", "thread_id=" .. cfg.threads_thread .. "&message=" .. tag,
            { Authorization = "BEARER " .. cfg.threads_token }),
            contains('"status":"ok"'), function(body) return "message " .. body:match('"message_id":(%d+)') end
    end,
    function(tag, n)
        -- Area code 4xx from the thread number, exchange 2xx-7xx: a valid, unique US number.
        local phone = string.format("+14%02d%07d", tid % 100, 2000000 + n)
        return "otp", json("POST", "/api/send_verification_code", '{"phone_number":"' .. phone .. '"}'),
            contains('{"status":"ok"}'), nil, phone
    end,
    function(tag)
        return "wsuv", form("/cgi-bin/add-tweet.cgi", "username=alice&session_token=" .. cfg.wsuv_session .. "&tweet=" .. tag),
            contains('{"tweet":"' .. tag .. '"}'), function() return "tweet " .. tag end
    end,
    function(tag)
        return "internproducts", wrk.format("GET", "/register?username=" .. tag .. "&password=pw"),
            contains('"status":"SUCCESS"'), function() return "user " .. tag end
    end,
    function(tag)
        return "cse118", json("POST", "/api/v2/channel/" .. cfg.cse118_channel .. "/message", '{"content":"' .. tag .. '"}',
            { Authorization = "Bearer " .. cfg.cse118_token }),
            function(status, body) return status == 201 end, function(body) return "message " .. body:match('^{"id":"([^"]+)"') end
    end,
}

function init(args)
    for _, arg in ipairs(args) do
        local key, value = arg:match("^([^=]+)=(.*)$")
        cfg[key] = value
    end
    work_dir = cfg.dir
    started = os.time()
    write_budget_per_second = tonumber(cfg.write_rate) / tonumber(cfg.threads)
end

function request()
    requests = requests + 1
    local api, req, check, ack, phone
    if pending_phone then
        api, req = "otp", json("POST", "/api/verify_code", '{"e164_phone_number":"' .. pending_phone .. '","code":"123456"}')
        check = contains('"status":"ok"')
        local verified = pending_phone
        ack = function() return "user " .. verified end
        pending_phone = nil
        sent.otp = sent.otp + 1
    elseif writes_sent < (os.time() - started + 1) * write_budget_per_second then
        -- Writes are paced, so the store (and RSS) grows by a bounded amount per minute.
        writes_sent = writes_sent + 1
        local tag = "soak-" .. tid .. "-" .. writes_sent
        api, req, check, ack, phone = writes[1 + writes_sent % #writes](tag, writes_sent)
        -- The OTP send is only the first half of its sign-up; the verify that follows is the write.
        if not phone then sent[api] = sent[api] + 1 end
    else
        reads_sent = reads_sent + 1
        if reads_sent % 1000 == 0 then
            api, req, check = big_reads[1 + (reads_sent / 1000) % #big_reads]()
        else
            api, req, check = reads[1 + (reads_sent + tid) % #reads]()
        end
    end
    inflight = { api = api, check = check, ack = ack, phone = phone }
    return req
end

function response(status, headers, body)
    local this = inflight
    inflight = nil
    if not this then return end
    if status_ok(status) and this.check(status, body) then
        if this.phone then pending_phone = this.phone end
        if this.ack then
            acked[this.api] = acked[this.api] + 1
            ack_lines[#ack_lines + 1] = this.api .. " " .. this.ack(body)
        end
    else
        failures = failures + 1
        if #failure_samples < 5 then
            failure_samples[#failure_samples + 1] = this.api .. " " .. status .. " " .. body:sub(1, 300):gsub("\n", " ")
        end
    end
end

function done(summary, latency, requests_done)
    local body_failures = 0
    local totals_sent, totals_acked = {}, {}
    -- done() runs in wrk's main Lua state, which never saw the arguments.
    local dir = all_threads[1]:get("work_dir")
    local acks = io.open(dir .. "/acks.txt", "w")
    local failure_log = io.open(dir .. "/failures.txt", "w")
    for _, thread in ipairs(all_threads) do
        body_failures = body_failures + thread:get("failures")
        for _, line in ipairs(thread:get("ack_lines")) do acks:write(line, "\n") end
        for _, line in ipairs(thread:get("failure_samples")) do failure_log:write(line, "\n") end
        for api, count in pairs(thread:get("sent")) do totals_sent[api] = (totals_sent[api] or 0) + count end
        for api, count in pairs(thread:get("acked")) do totals_acked[api] = (totals_acked[api] or 0) + count end
    end
    acks:close()
    failure_log:close()
    local errors = summary.errors
    io.write(string.format("SOAK requests=%d non2xx=%d connect=%d read=%d write=%d timeout=%d failed_checks=%d\n",
        summary.requests, errors.status, errors.connect, errors.read, errors.write, errors.timeout, body_failures))
    for api, count in pairs(totals_sent) do
        io.write(string.format("SOAK_WRITES %s sent=%d acked=%d\n", api, count, totals_acked[api] or 0))
    end
    io.write(string.format("SOAK_LATENCY p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
