"""Spectators on IRC: a connection that hears the lobby and its games and tells them with
the narrator (``spectator``), the live narrator service that posts that narration to the
spectators' channel at its own rate (``service``, ``backlog``), and ``arena watch``, the
same narration in a terminal (``watch``)."""
