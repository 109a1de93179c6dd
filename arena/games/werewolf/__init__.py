"""Werewolf (Mafia): a pure rules engine with one module per role.

- ``engine.WerewolfGame(players, options=None, seed=0)``: the state machine (flow, decisions,
  events: see its module docstring), with the collaborators it owns: ``night.Night`` (the
  night's requests and settling, dawn), ``assembly.Assembly`` (the day's election, speaking
  turns and votes), ``deaths.Deaths`` (deaths, the execution, death triggers); ``wins``:
  the win check (§5).
- ``options.WerewolfOptions``: every option of rules/werewolf.md §6 by its spec name, plus
  ``vigilanteShots`` and ``maxDays``.
- ``resolution``: kills against protections (rules/werewolf.md §3.10), pure.
- ``day``: speaking order, vote counting (§4, step 6), last words (§4.1), pure.
- ``roles/``: one module per role, registered in ``roles.registry``; ``choice.Choice`` is the
  decision type (options mix seats, ints first, with reserved words such as "none"/"abstain",
  so a transport shows ``choice.seats`` as nicks and ``choice.words`` as they are).
"""
