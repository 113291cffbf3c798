"""The approvals domain: directory, processes, requests, chains, calendar, balances, store."""
