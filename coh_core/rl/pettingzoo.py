"""Any pack as a PettingZoo environment: `env()` and `raw_env()` (AEC), `parallel_env()`.

    from coh_core.rl.pettingzoo import env
    table = env(game="base", players=4)
    table.reset(seed=1)
    for agent in table.agent_iter():
        observation, reward, termination, truncation, info = table.last()
        mask = observation["action_mask"]
        table.step(None if termination or truncation else table.action_space(agent).sample(mask))

The agents are the seats' colours. An action is an id of the ruleset's action space
(`Game.space`), the same for every seat; an observation is `{"observation": the seat's vector
(coh_core.engine.observe), "action_mask": 1 at each legal id}` (all 0 for a seat not asked). The
AEC environment asks the seats one at a time: the first of those waiting, so that the seats of a
simultaneous decision answer in seat order and none sees what the earlier ones answered. The
parallel environment asks every waiting seat at once and ignores the actions of the others. Rewards
come at the end: each seat's return (1 a win, -1 a loss). Illegal actions: `env()` ends the game
with -1 for the seat that tried one (PettingZoo's `TerminateIllegalWrapper`); `raw_env()` and
`parallel_env(illegal="raise")` raise `IllegalAction`, `parallel_env()` ends the game likewise.
Each `reset(seed=...)` deals the game of that seed; without a seed, the next of the environment's
own seeds.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from coh_core.engine import Game
from coh_core.engine.observe import Memo, observer_for
from coh_core.engine.rng import Rng
from coh_core.engine.runtime import IllegalAction
from coh_core.engine.views import seen_parts
from coh_core.rl.table import Table

ILLEGAL_POLICIES = ("raise", "lose")  # what an illegal action does: an error, or the game lost
ILLEGAL_REWARD = -1.0
_FLOATS, _BYTES = np.dtype(np.float32), np.dtype(np.int8)  # the observation's and the mask's


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's usual wrappers (an illegal action loses the game)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=ILLEGAL_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class _Seats:
    """What both environments share: the table, its spaces, and the game being played."""

    def __init__(self, game: str, rules: tuple[str, ...] | list[str], players: int):
        self.table = Table(game, tuple(rules), players)
        self.space = self.table.space
        self.observer = observer_for(self.table.ruleset, self.table.seats)
        self.possible_agents: list[str] = list(self.table.seats)
        self.game: Game | None = None
        self._seeds = Rng(0)
        self._memo = Memo()  # the seats' last observations (`observation`)

    def deal(self, seed: int | None) -> Game:
        if seed is not None:
            self._seeds = Rng(seed)
        self.game = self.table.new(seed if seed is not None else self._seeds.next64() >> 1)
        return self.game

    @cache  # noqa: B019  (one space object per seat, as PettingZoo asks)
    def observation_space_of(self, agent: str) -> spaces.Dict:
        return spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (self.observer.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.space),), np.int8),
            }
        )

    @cache  # noqa: B019
    def action_space_of(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(len(self.space))

    def observe_seat(self, agent: str, asked: bool = True) -> dict[str, np.ndarray]:
        """The seat's vector and its mask (all 0 unless `asked`)."""
        game = self.game
        assert game is not None
        vector = np.frombuffer(
            self.observer.observe(seen_parts(game, agent), self._memo, game.journal), _FLOATS
        )
        mask = bytearray(len(self.space))
        if asked:
            for ident in game.legal_ids(agent):  # (a few ids: cheaper than numpy's indexing)
                mask[ident] = 1
        return {"observation": vector, "action_mask": np.frombuffer(mask, _BYTES)}

    def returns(self) -> dict[str, float]:
        assert self.game is not None
        return self.game.returns()


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]
    """The AEC environment without wrappers: an illegal action raises `IllegalAction`."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "coh_v1",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str = "base",
        rules: tuple[str, ...] = (),
        players: int = 4,
        render_mode: str | None = None,
    ):
        EzPickle.__init__(self, game, rules, players, render_mode)
        super().__init__()
        self.seats = _Seats(game, rules, players)
        self.possible_agents = list(self.seats.possible_agents)
        self.render_mode = render_mode

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.seats.observation_space_of(agent)

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.seats.action_space_of(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.seats.observe_seat(agent, asked=agent == self.agent_selection)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game = self.seats.deal(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = game.waiting[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.seats.game
        assert game is not None
        self._cumulative_rewards[agent] = 0.0
        game.submit_id(agent, action)
        if game.over:
            self.rewards = dict(self.seats.returns())
            self.terminations = dict.fromkeys(self.agents, True)
            # (PettingZoo's order: the seats leave one by one, each after its last `last()`)
            self._accumulate_rewards()
        else:
            # (the rewards are all 0 until the end: PettingZoo's clearing and adding change nothing)
            self.agent_selection = game.waiting[0]

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.seats.game is None:
            return None
        game = self.seats.game
        decision = game.decision
        asked = "over" if decision is None else f"{decision.kind} asked of {', '.join(game.waiting)}"
        return f"turn {game.state['turn']}, {game.state['phase']}: {asked}"

    def close(self) -> None:
        self.seats.game = None


class parallel_env(ParallelEnv, EzPickle):  # type: ignore[misc]
    """The parallel environment: every seat waiting acts at once; the others' actions are ignored."""

    metadata: ClassVar[dict[str, Any]] = {"name": "coh_v1", "render_modes": ["ansi"]}

    def __init__(
        self,
        game: str = "base",
        rules: tuple[str, ...] = (),
        players: int = 4,
        illegal: str = "lose",
        render_mode: str | None = None,
    ):
        EzPickle.__init__(self, game, rules, players, illegal, render_mode)
        if illegal not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal={illegal!r}: one of {', '.join(ILLEGAL_POLICIES)}")
        self.seats = _Seats(game, rules, players)
        self.possible_agents = list(self.seats.possible_agents)
        self.agents: list[str] = []
        self.illegal = illegal
        self.render_mode = render_mode

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.seats.observation_space_of(agent)

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.seats.action_space_of(agent)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.seats.deal(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        game = self.seats.game
        assert game is not None
        agents = list(self.agents)
        rewards = dict.fromkeys(agents, 0.0)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        for agent in game.waiting:
            try:
                game.submit_id(agent, actions[agent])
            except (IllegalAction, KeyError) as problem:
                if self.illegal == "raise":
                    raise
                rewards[agent] = ILLEGAL_REWARD
                infos[agent]["illegal"] = str(problem)
                return self._end(agents, rewards, infos)
        if game.over:
            return self._end(agents, dict(self.seats.returns()), infos)
        done = dict.fromkeys(agents, False)
        return self._observations(), rewards, done, dict(done), infos

    def _end(
        self, agents: list[str], rewards: dict[str, float], infos: dict[str, Any]
    ) -> tuple[dict[str, Any], ...]:
        observations = self._observations()
        self.agents = []
        return observations, rewards, dict.fromkeys(agents, True), dict.fromkeys(agents, False), infos

    def _observations(self) -> dict[str, Any]:
        return {agent: self.seats.observe_seat(agent) for agent in self.agents}

    def render(self) -> str | None:
        return None

    def close(self) -> None:
        self.seats.game = None
