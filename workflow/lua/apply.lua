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
               zremrangebyscore=1, zprune=1, zswap=1, span=1, lprune=1, del=1, renew=1}
for _, o in ipairs(spec.o) do
  -- validate everything first: Redis does not roll back a script that fails half way
  if not known[o[1]] or not KEYS[o[2]] or ((o[1] == 'zprune' or o[1] == 'zswap') and not KEYS[o[3]]) then
    return redis.error_reply('apply.lua: bad operation ' .. tostring(o[1]))
  end
end
local ids = {}
for _, o in ipairs(spec.o) do
  local op, k = o[1], KEYS[o[2]]
  if op == 'put' then
    -- o[3] = the record, o[4] = the field it goes in, o[5] = a field of an older layout to drop
    redis.call('HINCRBY', k, 'v', 1)
    redis.call('HSET', k, o[4], o[3])
    if o[5] ~= '' then
      redis.call('HDEL', k, o[5])
    end
  elseif op == 'renew' then
    -- a record that only shrinks from now on (a done pending action), written as a new hash
    -- {v, o[4] = o[3]} with its version bumped and its expiry kept: Redis never turns a hash
    -- table back into a listpack, so a hash once holding a large value stays ~150 bytes larger
    local v = tonumber(redis.call('HGET', k, 'v') or '0') + 1
    local ttl = redis.call('PTTL', k)
    redis.call('DEL', k)
    redis.call('HSET', k, 'v', v, o[4], o[3])
    if ttl > 0 then
      redis.call('PEXPIRE', k, ttl)
    end
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
  elseif op == 'zswap' then
    -- replace in the sorted set the member the hash KEYS[o[3]] holds under field o[4] by o[6]
    -- (score o[5]; '' only removes it), then keep the set o[7] ms
    local old = redis.call('HGET', KEYS[o[3]], o[4])
    if old and old ~= o[6] then
      redis.call('ZREM', k, old)
    end
    if o[6] ~= '' then
      redis.call('ZADD', k, o[5], o[6])
      redis.call('PEXPIRE', k, o[7])
    end
  elseif op == 'span' then
    -- a list kept in one hash field, items "YYYY-MM-DD|..." (their last day first) joined by ';':
    -- drop items ended before o[6] and the item o[5], then add the item o[4] ('' adds nothing)
    local cur = redis.call('HGET', k, o[3])
    local keep = {}
    if cur then
      for it in string.gmatch(cur, '[^;]+') do
        if it:sub(1, 10) >= o[6] and it ~= o[5] and it ~= o[4] then
          table.insert(keep, it)
        end
      end
    end
    if o[4] ~= '' then
      table.insert(keep, o[4])
    end
    if #keep == 0 then
      redis.call('HDEL', k, o[3])
    else
      redis.call('HSET', k, o[3], table.concat(keep, ';'))
    end
  elseif op == 'lprune' then
    -- drop the fields starting with o[3] whose leave ended before o[4]: the value starts with
    -- its last day ("YYYY-MM-DD|..."), or is the older JSON with an "end" member
    local all = redis.call('HGETALL', k)
    local plen = #o[3]
    for j = 1, #all, 2 do
      local f, v = all[j], all[j + 1]
      if f:sub(1, plen) == o[3] then
        local last = v:sub(1, 1) == '{' and string.match(v, '"end":"([%d%-]+)"') or v:sub(1, 10)
        if last and last < o[4] then
          redis.call('HDEL', k, f)
        end
      end
    end
  elseif op == 'del' then
    redis.call('DEL', k)
  elseif op == 'xadd' then
    table.insert(ids, redis.call('XADD', k, 'MAXLEN', '~', o[3], '*', unpack(o[4])))
  end
end
return {'ok', ids}
