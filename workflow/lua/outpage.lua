-- One page of who is out in the whole organisation on some days, and how many are out in all.
-- KEYS = the day indexes (whos_out.py, keys.out_day) of the days asked about, first to last:
-- sorted sets of the leaves touching that day, scored by each leave's first day (ordinal),
-- members sorting by name. ARGV[1] = the first day's ordinal, ARGV[2] = how many to skip,
-- ARGV[3] = the most to return. Returns {total, member, ...} in the order shown (first day,
-- then name): the first day's set whole, then from each later day the leaves starting on it.
-- These parts never overlap, so the total is their sizes' sum, and the cost is one count per
-- day plus the page, however many people are out.
local first = tonumber(ARGV[1])
local skip = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local total = 0
local page = {total}
for i, k in ipairs(KEYS) do
  local day = first + i - 1
  local n
  if i == 1 then
    n = redis.call('ZCARD', k)
  else
    n = redis.call('ZCOUNT', k, day, day)
  end
  if want > 0 and skip < total + n then
    local from = math.max(skip - total, 0)
    local got
    if i == 1 then
      got = redis.call('ZRANGE', k, from, from + want - 1)
    else
      got = redis.call('ZRANGEBYSCORE', k, day, day, 'LIMIT', from, want)
    end
    for _, m in ipairs(got) do
      table.insert(page, m)
    end
    want = want - #got
  end
  total = total + n
end
page[1] = total
return page
