-- One atomic transition: check every version guard, then apply every operation.
-- ARGV[1] = JSON {"g": [[key_index, expected_version], ...], "o": [[op, key_index, args...], ...]}
-- Returns {"ok", {stream ids of xadd ops}} or {"conflict", key_index}. Keys are only ever
-- reached through KEYS so the script is valid on Redis Cluster (all keys share one hash tag).
local spec = cjson.decode(ARGV[1])
for _, g in ipairs(spec.g) do
  local v = tonumber(redis.call('HGET', KEYS[g[1]], 'v') or '0')
  if v ~= g[2] then
    return {'conflict', g[1]}
  end
end
local known = {put=1, hset=1, hdel=1, hincrby=1, hincrbyfloat=1, zadd=1, zrem=1,
               sadd=1, srem=1, pexpire=1, persist=1, xadd=1,
               zremrangebyscore=1, zprune=1}
for _, o in ipairs(spec.o) do
  -- validate everything first: Redis does not roll back a script that fails half way
  if not known[o[1]] or not KEYS[o[2]] or (o[1] == 'zprune' and not KEYS[o[3]]) then
    return redis.error_reply('apply.lua: bad operation ' .. tostring(o[1]))
  end
end
local ids = {}
for _, o in ipairs(spec.o) do
  local op, k = o[1], KEYS[o[2]]
  if op == 'put' then
    redis.call('HINCRBY', k, 'v', 1)
    redis.call('HSET', k, 'data', o[3])
  elseif op == 'hset' then
    redis.call('HSET', k, o[3], o[4])
  elseif op == 'hdel' then
    redis.call('HDEL', k, o[3])
  elseif op == 'hincrby' then
    redis.call('HINCRBY', k, o[3], o[4])
  elseif op == 'hincrbyfloat' then
    redis.call('HINCRBYFLOAT', k, o[3], o[4])
  elseif op == 'zadd' then
    redis.call('ZADD', k, o[3], o[4])
  elseif op == 'zrem' then
    redis.call('ZREM', k, o[3])
  elseif op == 'sadd' then
    redis.call('SADD', k, o[3])
  elseif op == 'srem' then
    redis.call('SREM', k, o[3])
  elseif op == 'pexpire' then
    redis.call('PEXPIRE', k, o[3])
  elseif op == 'persist' then
    redis.call('PERSIST', k)
  elseif op == 'zremrangebyscore' then
    redis.call('ZREMRANGEBYSCORE', k, '-inf', o[3])
  elseif op == 'zprune' then
    -- drop members scored <= o[4] from the sorted set and the same fields from the hash KEYS[o[3]]
    local old = redis.call('ZRANGEBYSCORE', k, '-inf', o[4])
    for _, f in ipairs(old) do
      redis.call('HDEL', KEYS[o[3]], f)
    end
    redis.call('ZREMRANGEBYSCORE', k, '-inf', o[4])
  elseif op == 'xadd' then
    table.insert(ids, redis.call('XADD', k, 'MAXLEN', '~', o[3], '*', unpack(o[4])))
  end
end
return {'ok', ids}
