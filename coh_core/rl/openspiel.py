"""Any pack as an OpenSpiel game, registered from Python as `python_coh`.

    import pyspiel
    import coh_core.rl.openspiel  # registers the game
    game = pyspiel.load_game("python_coh", {"game": "base", "players": 4, "seed": 1})

Parameters: `game` (a shipped game's name, or a pack's folder), `rules` (overlays, separated by
commas), `players`, `seed` (the seed of every initial state). A coh game is sequential: the seats
of a simultaneous decision (votes, movement) answer one after the other, in seat order, and none
sees what the seats before it answered. The engine draws what chance decides from the seed, so
each seed is a game of its own and OpenSpiel is told so (`DETERMINISTIC`): a clone copies the
draws to come, and a search that clones the real state sees them; a fair search starts from
`resample_from_infostate`, which draws again everything the
player cannot see (others' hands, the decks' order, what others answered to the open question,
the generator), as `open_spiel.python.algorithms.ismcts.ISMCTSBot` does. `clone` is the engine's
fork; `serialize` is its JSON position; the information state is the player's view and the log it
saw; the observation tensor is the view's vector (`coh_core.engine.observe`), its fields named.
Returns: 1 a win, -1 a loss (`Game.returns`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyspiel

from coh_core.engine import Game
from coh_core.engine.game import RETURN_BOUNDS
from coh_core.engine.observe import Memo, observation_string, observer_for
from coh_core.engine.rng import Rng
from coh_core.engine.views import observation
from coh_core.engine.worlds import sample_world
from coh_core.limits import MAX_DECISIONS
from coh_core.rl.table import Table

SHORT_NAME = "python_coh"
MAX_SEATS = 6  # OpenSpiel registers one game type: the most seats any shipped game has
DEFAULTS: dict[str, Any] = {"game": "base", "rules": "", "players": 4, "seed": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="coh: a board game played from its content pack",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    # (every draw follows from the `seed` parameter: each seed is a game of its own, whose
    # hidden draws only `resample_from_infostate` draws again)
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_SEATS,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def table_of(params: dict[str, Any]) -> Table:
    """The table a game's parameters name."""
    given = {**DEFAULTS, **params}
    rules = tuple(r.strip() for r in str(given["rules"]).split(",") if r.strip())
    return Table(str(given["game"]), rules, int(given["players"]))


class CohGame(pyspiel.Game):  # type: ignore[misc]
    """A pack at a table of `players` seats, every initial state from `seed`."""

    def __init__(self, params: dict[str, Any] | None = None):
        given = {**DEFAULTS, **(params or {})}
        self.table = table_of(given)
        self.seed = int(given["seed"])
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.table.space),
            max_chance_outcomes=0,
            num_players=self.table.players,
            min_utility=RETURN_BOUNDS[0],
            max_utility=RETURN_BOUNDS[1],
            max_game_length=MAX_DECISIONS * self.table.players,
        )
        super().__init__(_GAME_TYPE, info, given)

    def new_initial_state(self) -> CohState:
        return CohState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CohObserver:
        recall = bool(iig_obs_type.perfect_recall) if iig_obs_type is not None else False
        return CohObserver(self.table, recall)


class Position:
    """The coh game behind a state: made on first use (a clone replaces it before), copied by the
    engine's fork, pickled as its JSON position."""

    __slots__ = ("_game", "seed", "table")

    def __init__(self, table: Table, seed: int, game: Game | None = None):
        self.table = table
        self.seed = seed
        self._game = game

    @property
    def game(self) -> Game:
        if self._game is None:
            self._game = _initial_game(self.table, self.seed).fork()
        return self._game

    @property
    def fresh(self) -> bool:
        """Whether the state is an initial one nothing has read yet."""
        return self._game is None

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return Position(self.table, self.seed, self.game.fork())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restored, (self.table, self.seed, self.game.to_json()))


def _restored(table: Table, seed: int, doc: dict[str, Any]) -> Position:
    return Position(table, seed, Game.from_json(table.ruleset, doc, copy=False))  # (the pickle's own)


# OpenSpiel makes a new initial state, and writes a player's tensor of it, at each call of a
# state's `observation_tensor` (to learn the tensor's shape): the initial game of a table and seed
# is made once, each state forks it, and the tensors of an untouched one are read from here.
@functools.lru_cache(maxsize=64)
def _initial_game(table: Table, seed: int) -> Game:
    return table.new(seed)


@functools.lru_cache(maxsize=256)
def _initial_observation(table: Table, seed: int, player: int) -> bytes:
    game = _initial_game(table, seed)
    return bytes(observation(game, game.players[player]))


class CohState(pyspiel.State):  # type: ignore[misc]
    """A position of the game: the seat to answer is the first of those waiting."""

    def __init__(self, game: CohGame):
        super().__init__(game)
        self.position = Position(game.table, game.seed)

    @property
    def coh(self) -> Game:
        """The engine's game at this state."""
        return self.position.game

    def current_player(self) -> int:
        game = self.coh
        if game.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return game.players.index(game.waiting[0])

    def _legal_actions(self, player: int) -> list[int]:
        game = self.coh
        return sorted(game.legal_ids(game.players[player]))

    def _apply_action(self, action: int) -> None:
        game = self.coh
        game.submit_id(game.waiting[0], int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return " ".join(str(v) for v in self.coh.space.action(int(action)))

    def is_terminal(self) -> bool:
        return self.coh.over

    def returns(self) -> list[float]:
        game = self.coh
        found = game.returns()
        return [found[seat] for seat in game.players]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CohState:
        """A state the player cannot tell from this one: everything it cannot see drawn again."""
        seed = int(probability_sampler() * 2**53)
        game = self.coh
        world = sample_world(game, game.players[player_id], Rng(seed), redraw_answers=True)
        state: CohState = self.clone()
        state.position = Position(self.position.table, self.position.seed, world)
        return state

    def __str__(self) -> str:
        game = self.coh
        decision = game.decision
        asked = "over" if decision is None else f"{decision.kind} asked of {', '.join(game.waiting)}"
        return f"turn {game.state['turn']}, {game.state['phase']}: {asked} ({game.digest()})"


class CohObserver:
    """A player's observation tensor (the view's vector, by field) and its string: the information
    state with perfect recall, else the view alone."""

    def __init__(self, table: Table, perfect_recall: bool):
        self.observer = observer_for(table.ruleset, table.seats)
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(self.observer.size, np.float32)
        self.memo = Memo()  # the seats' last observations (`observation`)
        self.dict = {f.name: self.tensor[f.start : f.start + f.size] for f in self.observer.layout}

    def set_from(self, state: CohState, player: int) -> None:
        position = state.position
        if position.fresh:
            seen: Any = _initial_observation(position.table, position.seed, player)
        else:
            seen = observation(position.game, position.game.players[player], self.memo)
        self.tensor[:] = np.frombuffer(seen, np.float32)

    def string_from(self, state: CohState, player: int) -> str:
        view = state.coh.view(state.coh.players[player])
        if self.perfect_recall:
            return view.information_state()
        return observation_string(view.to_json())


pyspiel.register_game(_GAME_TYPE, CohGame)
