-- Read the bodies of many records in one call (a page of an export): for each key, its compact
-- field 'd' and, only where that is absent, its older-layout field 'data' (false where absent).
-- All keys share the org's tag.
local out = {}
for i, k in ipairs(KEYS) do
  local d = redis.call('HGET', k, 'd')
  out[2 * i - 1] = d
  out[2 * i] = not d and redis.call('HGET', k, 'data')
end
return out
