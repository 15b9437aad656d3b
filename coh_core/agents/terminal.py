"""A human at the terminal: sees only their own view, answers by number.

Several humans at one terminal play hotseat: each prompt names the player it is for. Every
word shown comes from the pack's text (`ui.table.*`, `ui.decision.*`, `ui.action.*`), so the
terminal speaks the narrator's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from coh_core.i18n import text_forms
from coh_core.messages import action_message, placeholders
from coh_core.narrative import Narrator, Verbatim

Action = tuple[Any, ...]


class TerminalAgent:
    def __init__(self, narrator: Narrator):
        self.narrator = narrator
        self.seen: dict[str, int] = {}  # per player: log entries already shown to them

    def act(self, view: Any, legal: list[Action]) -> Action:
        self.show_news(view)
        state = view.to_json()
        click.echo("\n".join(self.table(state)))
        player = self.narrator.name("colour", view.colour)
        click.echo(click.style(f"[{player}] {self.question(state['decision'] or {})}", bold=True))
        for number, action in enumerate(legal, start=1):
            click.echo(f"  {number:>2}. {self.label(action)}")
        return legal[self._number(len(legal)) - 1]

    def _number(self, high: int) -> int:
        """A number from 1 to `high`, asked again (in the narrator's language) until it is one."""
        while True:
            answer = str(click.prompt(self.narrator.ui("ui.prompt"), default="1")).strip()
            if answer.isdigit() and 1 <= int(answer) <= high:
                return int(answer)
            click.echo(self.narrator.ui("ui.prompt.range", low=1, high=high))

    def label(self, action: Action) -> str:
        """One legal answer in words."""
        key, params = action_message(action)
        return self.narrator.text(key, params)

    def question(self, decision: Mapping[str, Any]) -> str:
        """What the decision asks, in words."""
        kind = str(decision.get("kind"))
        prompt = decision.get("prompt") or {}
        for key in (f"ui.decision.{kind}.{prompt.get('purpose')}", f"ui.decision.{kind}"):
            if self.narrator.has(key) and _fills(self.narrator.messages[key], prompt):
                return self.narrator.text(key, prompt)
        return self.narrator.text("ui.decision.other", {"kind": kind})

    def table(self, state: Mapping[str, Any]) -> list[str]:
        """The public board and the player's own hand and tokens."""
        ui = self.narrator.ui
        rows = [
            ui(
                "ui.table.header",
                turn=state["turn"],
                phase=state["phase"],
                first=state["first"],
                leader=state["leader"],
            )
        ]
        for location, place in state["locations"].items():
            people = [
                self._character(c, ch)
                for c, ch in state["characters"].items()
                if ch["alive"] and ch["at"] == location
            ]
            line = ui(
                "ui.table.location",
                location=location,
                side=place["side"],
                zombies=place["zombies"],
                characters=Verbatim(", ".join(people) or "-"),
            )
            if place["antidotes"] or place["cards"]:
                line += " " + ui("ui.table.items", antidotes=place["antidotes"], cards=place["cards"])
            rows.append("  " + line)
        rows.append(ui("ui.table.hand", cards=list(state["hand"])))
        rows.append(
            ui(
                "ui.table.tokens",
                antidotes=state["antidotes"][state["me"]],
                food=Verbatim(_food(state["food"])),
            )
        )
        return rows

    def _character(self, character: str, ch: Mapping[str, Any]) -> str:
        key = "ui.table.character.exhausted" if ch["exhausted"] else "ui.table.character"
        return self.narrator.ui(key, character=character, player=ch["owner"])

    def show_news(self, view: Any) -> None:
        """What happened since this player last answered."""
        entries = view.log()
        start = self.seen.get(view.colour, 0)
        self.seen[view.colour] = len(entries)
        for line in self.narrator.lines(entries[start:]):
            click.echo(f"  {line}")


def _fills(text: Any, prompt: Mapping[str, Any]) -> bool:
    """Whether the prompt has a value for every placeholder of the message."""
    return all(name in prompt for form in text_forms(text) for name in placeholders(form))


def _food(values: list[Any]) -> str:
    return ", ".join(str(v) for v in values) or "-"
