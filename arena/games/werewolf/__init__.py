"""Werewolf (Mafia): a pure rules engine with one module per role (see engine.py)."""
