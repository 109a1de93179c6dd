"""Odd one out: a game that lives outside the arena, to prove a game is added by its kit
alone (``kit.py``) and registered at run time. The worked example of docs/games.md."""
