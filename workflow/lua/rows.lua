-- A page of the index of all requests, newest first, each with its record prepared for
-- `requests list|export` (bot/request_pages.py), flat:
--   id, submission ms, kind, body, ...                                  ('head')
--   id, submission ms, kind, body, people, submitted, decided, ...      ('export')
-- KEYS[1] = the index; ARGV = highest score, lowest score, offset, count, the records' key
-- prefix, 'head' or 'export'. The records are named from the index's ids rather than passed
-- as keys: the client packs each argument in Python, which was most of the cost of sending a
-- page's keys, and the page is read in one round trip. The records carry the index's hash
-- tag, so they are in its slot (on a Cluster too).
-- Plain searches only, no JSON decoding: cjson took ~20 µs a record, and then Redis, not the
-- client, would be what a month waits for.
-- kind 1: body = the record's own fields before its steps: a JSON object without its closing
--   brace (the top-level `,"st":` ends them: codec.py writes them in order; a first one
--   nested in the form's fields cuts inside an object, and the client, failing to parse what
--   it is given, reads that record whole);
--   people = the steps' approvers joined by \29, \28, the holder of the current step, \28,
--   who decided, joined by \29; submitted and decided with UTC as "+00:00".
-- kind 2: body = the whole compact record, where the steps' people cannot be found by plain
--   searches: Python prepares it.
-- kind 3: body = the older layout's JSON. kind 0: gone since the index was read.
local page = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES', 'LIMIT', ARGV[3], ARGV[4])
local prefix, export = ARGV[5], ARGV[6] == 'export'
local find, sub = string.find, string.sub

-- the value of the string key `key` (e.g. '"a":"') found in d[from, to), or nil
local function value(d, key, from, to)
  local at = find(d, key, from, true)
  if not at or at >= to then return nil end
  return sub(d, at + #key, find(d, '"', at + #key, true) - 1)
end

-- a time's value as Python's isoformat writes it (pydantic writes UTC as 'Z'), or ''
local function iso(d, key, from, to)
  local v = value(d, key, from, to)
  if not v then return '' end
  if sub(v, -1) == 'Z' then return sub(v, 1, -2) .. '+00:00' end
  return v
end

-- Between the steps and the history there are no keys the steps use ("ca" is always written,
-- "c" is the current step) and, without backslashes, every '"' delimits a string, so a key
-- pattern found there is that key. A counter offer (free-form dates) is left to Python.
-- Positions only: a substring is a copy.
local function people(d, cut)
  local stop = find(d, ',"h":[', cut, true) or #d
  local at = find(d, '\\', cut, true)
  if at and at < stop then return nil end
  at = find(d, ',"co":', cut, true)
  if at and at < stop then return nil end
  local ca = find(d, ',"ca":"', cut, true)
  if not ca or ca > stop then return nil end
  local current = find(d, ',"c":', cut, true)
  current = current and current < ca and tonumber(string.match(d, '^%d+', current + 5))
  local approvers, decided, holder, n, nd = '', '', '', 0, 0
  at = find(d, '{"i":', cut, true)
  while at and at < ca do
    local after = find(d, '{"i":', at + 5, true)
    local limit = (after and after < ca) and after or ca
    local a = value(d, '"a":"', at, limit)
    if not a then return nil end
    approvers = n == 0 and a or approvers .. '\29' .. a
    local by = value(d, '"by":"', at, limit)
    if by then
      decided = nd == 0 and by or decided .. '\29' .. by
      nd = nd + 1
    end
    if current == n then holder = value(d, '"h":"', at, limit) or '' end
    n, at = n + 1, after
  end
  if current and current >= n then return nil end
  return approvers .. '\28' .. holder .. '\28' .. decided, iso(d, ',"sa":"', ca, stop), iso(d, ',"da":"', ca, stop)
end

local out = {}
for i = 1, #page, 2 do
  local d = redis.call('HGET', prefix .. page[i], 'd')
  local kind, body, who, sa, da = 0, '', '', '', ''
  if d then
    kind, body = 2, d
    local cut = find(d, ',"st":', 1, true)
    if cut then
      if not export then
        kind, body = 1, sub(d, 1, cut - 1)
      else
        who, sa, da = people(d, cut)
        if who then kind, body = 1, sub(d, 1, cut - 1) else who, sa, da = '', '', '' end
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
return out
