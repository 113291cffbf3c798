-- Claim due scheduled items for one worker: items whose lease ran out (their worker died)
-- first, then items now due. Each claimed item moves to the lease set until the worker
-- completes it (ZREM in the same Lua call as the change it makes) or the lease expires.
-- KEYS[1] = due, KEYS[2] = leases; ARGV = now_ms, lease_ms, limit
local now = tonumber(ARGV[1])
local lease_until = now + tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local out = {}
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
for _, m in ipairs(stale) do
  redis.call('ZADD', KEYS[2], lease_until, m)
  table.insert(out, m)
end
if #out < limit then
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit - #out)
  for _, m in ipairs(due) do
    redis.call('ZREM', KEYS[1], m)
    redis.call('ZADD', KEYS[2], lease_until, m)
    table.insert(out, m)
  end
end
return out
