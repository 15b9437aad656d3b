"""The one step of the turn structure still built into the engine: the action window.

Every other procedure is a verb of the base pack, written in the effect language:
content/base/procedures-setup.yaml (setup and the end of the game), procedures-movement.yaml
(movement cards, the invasion, the characters' moves, the activation of locations) and
procedures-votes.yaml (the attack, the votes, the sharing). The pack's `turn` section decides
which run, in what order and with which parameters.
"""

from __future__ import annotations

from coh_core.engine.compiler import Impl
from coh_core.engine.flow import window_frame
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import Frame
from coh_core.engine.runtime import Rt


def action_window(rt: Rt, windows: list[str], gifts: int) -> Frame:
    """Every player in turn order may act, up to `gifts` gifts each, until all pass in a row."""
    here = rt.env.get("here")
    return window_frame(rt.game, "round", tuple(windows), {}, gifts=gifts, here=here, question="act")


IMPLS["action_window"] = Impl(action_window, frame=True)
