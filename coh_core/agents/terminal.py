"""A human at the terminal: sees only their own view, answers by number.

Several humans at one terminal play hotseat: each prompt names the player it is for.
"""

from __future__ import annotations

from typing import Any

import click

Action = tuple[Any, ...]
_NAME_KEYS = ("character.{}.name", "action.{}.name", "location.{}.name", "colour.{}.name", "invasion.{}.name")


class TerminalAgent:
    def __init__(self, narrator: Any):
        self.narrator = narrator
        self.messages: dict[str, str] = narrator.pack.messages("en") if narrator is not None else {}
        self.seen: dict[str, int] = {}

    def name(self, value: Any) -> str:
        for key in _NAME_KEYS:
            text = self.messages.get(key.format(value))
            if text:
                return text
        return str(value)

    def label(self, action: Action) -> str:
        verb, *rest = action
        return " ".join([str(verb), *(self.name(v) for v in rest)])

    def act(self, view: Any, legal: list[Action]) -> Action:
        me = view.colour
        self._show_news(view)
        state = view.to_json()
        click.echo(self._table(state))
        decision = state["decision"] or {}
        prompt = ", ".join(f"{k}={self.name(v)}" for k, v in decision.get("prompt", {}).items())
        click.echo(click.style(f"[{self.name(me)}] {decision.get('kind')} {prompt}", bold=True))
        for number, action in enumerate(legal, start=1):
            click.echo(f"  {number:>2}. {self.label(action)}")
        choice = click.prompt("choice", type=click.IntRange(1, len(legal)), default=1)
        return legal[choice - 1]

    def _show_news(self, view: Any) -> None:
        entries = view.log()
        start = self.seen.get(view.colour, 0)
        self.seen[view.colour] = len(entries)
        if self.narrator is not None:
            for line in self.narrator.lines(entries[start:]):
                click.echo(f"  {line}")

    def _table(self, state: dict[str, Any]) -> str:
        rows = [f"turn {state['turn']} · {state['phase']} · first {self.name(state['first'])}"]
        rows.append(f"leader {self.name(state['leader'])}")
        for location, place in state["locations"].items():
            people = [
                f"{self.name(c)}({self.name(ch['owner'])}{'*' if ch['exhausted'] else ''})"
                for c, ch in state["characters"].items()
                if ch["alive"] and ch["at"] == location
            ]
            items = (
                f" antidotes {place['antidotes']} cards {place['cards']}"
                if place["antidotes"] or place["cards"]
                else ""
            )
            head = f"  {self.name(location)} [{place['side']}] zombies {place['zombies']}{items}"
            rows.append(f"{head}: {', '.join(people)}")
        rows.append(f"hand: {', '.join(self.name(c) for c in state['hand'])}")
        rows.append(f"antidotes {state['antidotes'][state['me']]} · food {state['food']}")
        return "\n".join(rows)
