"""Wolf seer (P3, werewolf): a werewolf who each night (step 5, with the seer) checks a
living player's side, as the seer does (rules/werewolf.md §2; the specification:
"阵营/身份（按实现约定）"; the arena answers
the side, with every disguise, not the role). It also votes and talks with the pack. Its
result is a ``SEER`` line, like the seer's: the request's kind tells which one asked.
"""

from __future__ import annotations

from .registry import register
from .seer import SeerCheck
from .werewolf import Werewolf, WolfVote


class WolfSeerCheck(SeerCheck):
    kind = "wolf_seer_check"


@register
class WolfSeer(Werewolf):
    id = "wolf_seer"
    priority = "P3"
    actions = (WolfVote, WolfSeerCheck)
