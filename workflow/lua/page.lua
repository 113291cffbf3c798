-- A page of the index of all requests, newest first, flat: id, submission time (ms), id, ...
-- KEYS[1] = the index; ARGV = highest score, lowest score, offset, count.
-- (A script rather than ZREVRANGEBYSCORE so the client hands back the reply as it is: the
-- client's own reply of that command turns each score into a float, a cost per row.)
return redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES', 'LIMIT', ARGV[3], ARGV[4])
