"""Local stand-ins for the Slack Web API and the Feishu open API: the sandbox and the tests talk
to them over HTTP with the real clients. Test and sandbox code only; the product never imports them."""
