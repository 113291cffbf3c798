-- Read who of a few people is away or has delegated: the availability one transition routes by.
-- KEYS[1] = away_by hash (person -> "end|start|request;..." approved leave not yet ended)
-- KEYS[2] = deleg_by hash (person -> "end|start|delegate|id|manager,manager;..." delegations)
-- KEYS[3] (optional) = a request's hash: its field 'r' lists the people its routing can reach.
-- ARGV[1] = most people to visit; ARGV[2..] = more people to look up.
-- A delegate (and the managers above them, stored with the delegation) is visited too, so a
-- step routed through a delegation needs no second read. Returns {person, away, delegations, ...}
-- for the visited people who have either: its size never depends on how many others are away.
local max = tonumber(ARGV[1])
local queue, seen, out = {}, {}, {}
if KEYS[3] then
  local r = redis.call('HGET', KEYS[3], 'r') or ''
  for p in string.gmatch(r, '[^,]+') do
    if not seen[p] then
      seen[p] = true
      table.insert(queue, p)
    end
  end
end
for i = 2, #ARGV do
  if not seen[ARGV[i]] then
    seen[ARGV[i]] = true
    table.insert(queue, ARGV[i])
  end
end
local i = 1
while i <= #queue and i <= max do
  local p = queue[i]
  local a = redis.call('HGET', KEYS[1], p) or ''
  local d = redis.call('HGET', KEYS[2], p) or ''
  if a ~= '' or d ~= '' then
    table.insert(out, p)
    table.insert(out, a)
    table.insert(out, d)
  end
  for item in string.gmatch(d, '[^;]+') do
    local parts = {}
    for f in string.gmatch(item .. '|', '([^|]*)|') do
      table.insert(parts, f)
    end
    local reach = {parts[3]}
    for m in string.gmatch(parts[5] or '', '[^,]+') do
      table.insert(reach, m)
    end
    for _, n in ipairs(reach) do
      if n and n ~= '' and not seen[n] then
        seen[n] = true
        table.insert(queue, n)
      end
    end
  end
  i = i + 1
end
return out
