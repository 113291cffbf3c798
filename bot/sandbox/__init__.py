"""The sandbox: the whole product on one machine, in a browser, with no Slack workspace.

`server` serves, on one port, the real Bolt app (/slack/events), the local Slack Web API
stand-in it talks to (/api/), a Slack-like web page (/) and its JSON API and live change
feed (/sandbox/...); `slack_simulator` signs and posts what people do there exactly as Slack would.
"""
