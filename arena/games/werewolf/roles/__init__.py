"""Werewolf roles, one module each, found by the engine through the registry.

P0: villager, werewolf, seer, doctor, hunter, witch. P1: bodyguard, cupid, vigilante, idiot,
jester, piper. P2: guardian angel, roleblocker, jailer, detective, tracker, watcher,
mason, oracle, bomb, little girl, thief. P3: serial killer, miller, godfather, alpha werewolf,
wolf seer, silencer, priest, werewolf leader, wolf witch, wolf guard, warder, decoy,
avenger, scapegoat; bus driver, trickster, shadow. Import order is
registration order.
"""

from __future__ import annotations

from .base import DIES, SPARED, Action, Role, Team
from .registry import ACTIONS, REGISTRY, register
from . import villager, werewolf, seer, doctor, hunter, witch  # noqa: F401,E402  (P0)
from . import bodyguard, cupid, vigilante, idiot, jester, piper  # noqa: F401,E402  (P1)
from . import guardian_angel, roleblocker, jailer, detective, tracker, watcher, mason, oracle, bomb, little_girl, thief  # noqa: F401,E402  (P2)
from . import serial_killer, miller, godfather, alpha_werewolf, wolf_seer, silencer, priest  # noqa: F401,E402  (P3)
from . import werewolf_leader, wolf_witch, wolf_guard, warder, decoy, avenger, scapegoat  # noqa: F401,E402  (P3, part)
from . import bus_driver, trickster, shadow  # noqa: F401,E402  (P3: where actions land and what is seen of them)

__all__ = ["ACTIONS", "DIES", "REGISTRY", "SPARED", "Action", "Role", "Team", "register"]
