"""Verbs a pack defines, and lists in effects: called and played like built-ins, with
defaults, choices and dry runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main

VERBS = """\
verbs:
  - id: reinforce
    params: {at: location, n: count = 2}
    doc: Zombies pour in at a location.
    do: add_zombies(n, at=at)
  - id: reinforce_somewhere
    params: {n: count = 1}
    doc: Zombies pour in at a location the player chooses.
    do: reinforce(choose(locations()), n=n)
  - id: clear_out
    params: {at: location}
    doc: Kill every zombie at a location.
    do: kill_zombies(zombies(at), at=at)
  - id: busiest
    params:
      places: list[location]
    returns: location
    doc: The first of the locations with the most zombies.
    do: |
      let best = first(places)
      for place in places {
        if zombies(place) > zombies(best) { return place }
      }
      return best
  - id: noisier
    params:
      among: list[location]
    returns: location
    asks: true
    doc: The player picks one of the locations and makes it noisier; the location picked.
    do: |
      let place = choose(among)
      add_zombies(1, at=place)
      return place
  - id: top_up
    params: {at: location}
    doc: Add zombies up to 4, or stop at once when there are some already.
    do: |
      if zombies(at) > 0 { return }
      add_zombies(4, at=at)
"""

SCENARIO = """\
name: {name}
players: [red, blue, green]
given:
  turn: 1
  phase: location_resolution
  at: church
  step: zombie_attack
  zombies: {zombies}
  characters:
    red: {{housewife: church}}
    blue: {{student: bank}}
    green: {{rasta: hospital}}
  hands: {{red: [{card}, hideout]}}
when:
{when}
then:
{then}
"""


def _pack_with_verbs(base_copy: Path, card: str, effect: str) -> Path:
    (base_copy / "verbs.yaml").write_text(VERBS, encoding="utf-8")
    manifest = base_copy / "pack.yaml"
    manifest.write_text(
        manifest.read_text().replace("  - params.yaml\n", "  - params.yaml\n  - verbs.yaml\n")
    )
    actions = base_copy / "actions.yaml"
    text = actions.read_text(encoding="utf-8")
    start = text.index(f"  - id: {card}\n")
    old = text.index("    effect: ", start)
    end = text.index("\n", old)
    actions.write_text(text[:old] + f"    effect: {effect}" + text[end:], encoding="utf-8")
    return base_copy


@pytest.mark.parametrize(
    ("name", "card", "effect", "zombies", "when", "then"),
    [
        (
            "a default is used when the caller gives none",
            "alarm",
            "reinforce(choose(locations()))",
            "{}",
            ["{red: [play, alarm]}", "{red: [choose, bank]}"],
            ["zombies: {bank: 2}"],
        ),
        (
            "a choice inside a verb is asked of the caller's player",
            "alarm",
            "reinforce_somewhere(3)",
            "{}",
            ["{red: [play, alarm]}", "{red: [choose, hospital]}"],
            ["zombies: {hospital: 3, bank: 0}"],
        ),
        (
            "a card whose verb could do nothing is not offered (the dry run goes through the verb)",
            "shotgun",
            "clear_out(choose(locations()))",
            "{}",
            [],
            ["decision: {refuses: {red: [[play, shotgun]]}, offers: {red: [[play, hideout]]}}"],
        ),
        (
            "a list and an index give the second number of the list",
            "alarm",
            "reinforce(choose([@bank, @church]), n=[2, 5][1])",
            "{}",
            ["{red: [play, alarm]}", "{red: [choose, church]}"],
            ["zombies: {church: 5}"],
        ),
        (
            "an index past the end of a list is nothing, so the card is not offered",
            "alarm",
            "reinforce(@bank, n=[2, 5][2])",
            "{}",
            [],
            ["decision: {refuses: {red: [[play, alarm]]}, offers: {red: [[play, hideout]]}}"],
        ),
        (
            "a while loop runs its body as long as its test holds",
            "alarm",
            "while zombies(@bank) < 5 { add_zombies(2, at=@bank) }",
            "{bank: 1}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 5}"],
        ),
        (
            "a selector of the pack returns a value (here, the location with more zombies)",
            "alarm",
            "reinforce(busiest([@church, @bank]), n=1)",
            "{bank: 2, church: 1}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 3, church: 1}"],
        ),
        (
            "a selector of the pack that asks is asked first; its value is what it returns",
            "alarm",
            "reinforce(noisier([@bank, @church]), n=2); add_zombies(1, at=noisier([@hospital]))",
            "{}",
            ["{red: [play, alarm]}", "{red: [choose, church]}"],
            ["zombies: {church: 3, bank: 0, hospital: 2}"],
        ),
        (
            "return leaves a pack verb early",
            "alarm",
            "top_up(@bank); top_up(@church)",
            "{bank: 1}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 1, church: 4}"],
        ),
        (
            "a list built with for keeps the items its test lets through",
            "alarm",
            "for place in [p for p in [@bank, @church, @hospital] if p != @church]"
            " { add_zombies(1, at=place) }",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 1, church: 0, hospital: 1}"],
        ),
        (
            "in and not in test whether a list holds a value",
            "alarm",
            "if @bank in [@bank, @church] { add_zombies(2, at=@bank) }"
            " if @church not in [@bank] { add_zombies(3, at=@church) }"
            " if @hospital in [@bank] { add_zombies(1, at=@hospital) }",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 2, church: 3, hospital: 0}"],
        ),
        (
            "+ puts lists end to end",
            "alarm",
            "for place in [@bank] + [@church, @bank] { add_zombies(1, at=place) }",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 2, church: 1}"],
        ),
        (
            "the name a list built with for binds is its own (a name outside keeps its value)",
            "alarm",
            "let place = @church; let others = [place for place in [@bank]]; add_zombies(2, at=place)",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {church: 2, bank: 0}"],
        ),
        (
            "the same card is offered once its verb could do something",
            "shotgun",
            "clear_out(choose(locations()))",
            "{bank: 2}",
            [],
            ["decision: {offers: {red: [[play, hideout], [play, shotgun]]}}"],
        ),
    ],
)
def test_a_pack_verb_plays_like_a_built_in(
    base_copy: Path,
    tmp_path: Path,
    name: str,
    card: str,
    effect: str,
    zombies: str,
    when: list[str],
    then: list[str],
) -> None:
    pack = _pack_with_verbs(base_copy, card, effect)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(
        SCENARIO.format(
            name=name,
            card=card,
            zombies=zombies,
            when="\n".join(f"  - {w}" for w in when) or "  []",
            then="\n".join(f"  {t}" for t in then),
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["scenario", "run", "--pack", str(pack), str(scenario)])
    assert result.exit_code == 0, result.output
