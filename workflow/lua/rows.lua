-- A page of the index of all requests, newest first, each with its record prepared for
-- `requests list|export` (bot/admin.py), as one string: per request, fields joined by \31
-- (which JSON text never holds: it escapes control characters), requests joined by \31 too:
--   id, submission ms, kind, body                      ('head')
--   id, submission ms, kind, body, people, submitted, decided   ('export')
-- KEYS[1] = the index; ARGV = highest score, lowest score, offset, count, the records' key
-- prefix, 'head' or 'export'. One string, and the records named from the index's ids rather
-- than passed as keys: the client packs each argument and makes each reply item in Python,
-- which was most of the cost of reading a page. The records carry the index's hash tag, so
-- they are in its slot (on a Cluster too).
-- Only plain searches here, no JSON decoding (cjson took ~20 µs a record: Redis, not the
-- client, would have been what a month waits for).
-- kind 1: body = the record's own fields before its steps, as a JSON object (the top-level
--   `,"st":` ends them: codec.py writes them in order; trusted only where it occurs once);
--   people = the steps' approvers joined by \29, \28, the holder of the current step, \28,
--   who decided, joined by \29; submitted and decided with UTC as "+00:00".
-- kind 2: body = the whole compact record, where a cut cannot be trusted: Python prepares it.
-- kind 3: body = the older layout's JSON. kind 0: gone since the index was read.
local page = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES', 'LIMIT', ARGV[3], ARGV[4])
local prefix, export = ARGV[5], ARGV[6] == 'export'
local find, sub = string.find, string.sub

local function iso(d, from, key)
  local at = find(d, key, from, true)
  if not at then return '' end
  local stop = find(d, '"', at + #key, true)
  if sub(d, stop - 1, stop - 1) == 'Z' then return sub(d, at + #key, stop - 2) .. '+00:00' end
  return sub(d, at + #key, stop - 1)
end

-- Between the steps and the history there are no keys the steps use ("ca" is always written,
-- "c" is the current step) and, without backslashes, every '"' delimits a string, so a key
-- pattern found there is that key. A counter offer (free-form dates) is left to Python.
local function people(d, cut)
  local stop = find(d, ',"h":[', cut, true) or #d
  local mid = sub(d, cut, stop - 1)
  if find(mid, '\\', 1, true) or find(mid, ',"co":', 1, true) then return nil end
  local ca = find(mid, ',"ca":"', 1, true)
  if not ca then return nil end
  local steps = sub(mid, 1, ca - 1)
  local current = find(steps, ',"c":', 1, true)
  current = current and tonumber(string.match(steps, '^%d+', current + 5))
  local approvers, decided, holder = {}, {}, ''
  local at, n = find(steps, '{"i":', 1, true), 0
  while at do
    local after = find(steps, '{"i":', at + 5, true)
    local step = sub(steps, at, (after or ca) - 1)
    local a = find(step, '"a":"', 1, true)
    if not a then return nil end
    approvers[#approvers + 1] = sub(step, a + 5, find(step, '"', a + 5, true) - 1)
    local by = find(step, '"by":"', 1, true)
    if by then decided[#decided + 1] = sub(step, by + 6, find(step, '"', by + 6, true) - 1) end
    if current == n then
      local h = find(step, '"h":"', 1, true)
      if h then holder = sub(step, h + 5, find(step, '"', h + 5, true) - 1) end
    end
    n, at = n + 1, after
  end
  if current and current >= n then return nil end
  return table.concat(approvers, '\29') .. '\28' .. holder .. '\28' .. table.concat(decided, '\29'),
    iso(mid, ca, ',"sa":"'), iso(mid, ca, ',"da":"')
end

local out = {}
for i = 1, #page, 2 do
  local d = redis.call('HGET', prefix .. page[i], 'd')
  local kind, body, who, sa, da = 0, '', '', '', ''
  if d then
    kind, body = 2, d
    local cut = find(d, ',"st":', 1, true)
    if cut and not find(d, ',"st":', cut + 6, true) then
      if not export then
        kind, body = 1, sub(d, 1, cut - 1) .. '}'
      else
        who, sa, da = people(d, cut)
        if who then kind, body = 1, sub(d, 1, cut - 1) .. '}' else who, sa, da = '', '', '' end
      end
    end
  else
    local old = redis.call('HGET', prefix .. page[i], 'data')
    if old then kind, body = 3, old end
  end
  out[#out + 1] = page[i]
  out[#out + 1] = page[i + 1]
  out[#out + 1] = kind
  out[#out + 1] = body
  if export then
    out[#out + 1] = who
    out[#out + 1] = sa
    out[#out + 1] = da
  end
end
return table.concat(out, '\31')
