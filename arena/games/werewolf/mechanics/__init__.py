"""Mechanics that several Werewolf roles share, each built once.

- ``blocks``: who cannot act tonight (jail, roleblock, exile): a blocked player's night
  answers take no effect, and a request that comes after the block offers ``none`` alone.
- ``visits``: who visited whom tonight (a night action aimed at a player visits them), for
  roles that learn about visits (tracker, watcher) and those that fake or move them.
- ``redirects``: swaps that move where the night's actions land (bus driver).
- ``copies``: a player who repeats another's night actions as their own (shadow).
- ``statuses``: marks on players with a lifetime (charmed, silenced, doused...), their
  expiry and their removal.

The engine settles a night's answers in the order of their steps (rules/werewolf.md §3.2), whatever order they
arrived in (``night.Night.settle``): a step settles once all its answers are in,
and once every earlier step that ``controls`` others (a block) has settled.
"""
