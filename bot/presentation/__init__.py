"""Presentation as data: cards and notices built once in the reader's language (see model.py).

- model.py: Card, Paragraph, Fact, Action, Tone, Reader
- times.py: times in the reader's zone, with the zone named
- requests.py: the approver's card (open, reminded, closed) and the requester's notices
- confirm.py: the confirm card of a proposal and the same card after the click
- notices.py: the worker's notices (digest, who's out, expiry, escalation)
- text.py: any card as terminal text; history.py: a conversation as a person reads it

Each surface serializes a Card: bot/slack/blocks_cards.py (Block Kit), bot/feishu/cards.py
(card JSON), text.py (terminal and logs). Sentences come from the catalogue (agent/catalogue.py,
composed by bot/wording.py); forms.py is the leave form, which Slack and Feishu serialize.
"""
