"""Narration for spectators, as a library: a game's public lines told as short sentences.

``sentence`` holds what a sentence is (styled spans and the facts it states) and how it is
rendered (IRC formatting, ANSI, plain text); ``story`` the mechanics every game's narration
shares; ``narrator`` follows the lobby and the game channels and hands each public line to
its game's narration (``referees``: whose lines are a referee's, when one referee or several
share the lobby), which the game's kit gives (``arena/games/<game>/narration.py`` for
the built-in games). It imports no game: the games import it. Posting the sentences to a
channel and ``arena watch`` are ``arena.spectate``'s.

The narrator's only input is what any spectator sees: the referees' public lines and the
players' talk in a game channel. So it can never tell a secret: it has none.
"""
