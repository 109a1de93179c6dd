"""Example bots built on the SDK; each runs as ``python -m arena.bots.<name> --server HOST:PORT --nick NICK``
(or ``python bots/<name>.py ...`` from a checkout)."""
