"""Slack: the Bolt app, Block Kit builders, the notifier and a local Web API stand-in."""
