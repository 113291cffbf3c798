"""A pytest plugin for bench/cluster.py: lets the test fixtures open a `redis+cluster://` URL.

tests/conftest.py opens the real Redis with `redis.asyncio.from_url(url)`, which knows only
redis://, rediss:// and unix:// URLs. This plugin (loaded with `-p _cluster_plugin`) sends a
`redis+cluster://` URL to the product's own `workflow.store.connect` instead, which returns a
RedisCluster client; every other URL goes to redis-py as before. No test file is changed.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from workflow.store import connect

_from_url = aioredis.from_url


def _from_url_or_cluster(url: str, **kwargs):  # type: ignore[no-untyped-def]
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        return connect(url)
    return _from_url(url, **kwargs)


aioredis.from_url = _from_url_or_cluster
