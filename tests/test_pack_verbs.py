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
  - id: reinforce_each
    params:
      counts: map[location, count]
      otherwise: map[location,count] = {}
    doc: Zombies pour in at each location of a map, as many as it says (else as many as the other).
    do: |
      for place in locations() {
        if place in counts { add_zombies(counts[place], at=place) }
        else if place in otherwise { add_zombies(otherwise[place], at=place) }
      }
  - id: tally
    params:
      ballots: list[player]
    returns: map[player, int]
    doc: How many of the ballots name each player, in the order they are first named.
    do: |
      let votes = {}
      for p in ballots { let votes = votes + {p: get(votes, p, 0) + 1} }
      return votes
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
  - id: louder
    params: {at: location}
    returns: location
    asks: true
    doc: Zombies pour in at a location without a question (it changes the game); the location.
    do: |
      add_zombies(1, at=at)
      return at
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
    # in block style: a map literal's `key: value` would be YAML's own in a plain scalar
    actions.write_text(text[:old] + f"    effect: |\n      {effect}" + text[end:], encoding="utf-8")
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
            "a selector of the pack that may ask but asks nothing gives its value, in the dry run"
            " that offers the card too",
            "alarm",
            "let start = choose(locations_with_zombies()); add_zombies(2, at=louder(start))"
            " for place in [@church, @hospital] { add_zombies(1, at=louder(place)) }",
            "{bank: 1}",
            ["{red: [play, alarm]}"],  # (the only location with zombies is taken without asking)
            ["zombies: {bank: 4, church: 2, hospital: 2}"],
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
            "a map gives the value of a key (here, antidotes per player)",
            "alarm",
            "let blue = owner(@student); let share = {me: 2, blue: 1}"
            " take_antidotes(share[me]); take_antidotes(share[blue], player=blue)",
            "{}",
            ["{red: [play, alarm]}"],
            ["antidotes: {red: 2, blue: 1, green: 0}"],
        ),
        (
            "a map built with for keeps an entry per item its test lets through",
            "alarm",
            "let doubled = {p: zombies(p) * 2 for p in locations() if zombies(p) > 0}"
            " for p in [@bank, @church, @hospital] { if p in doubled { add_zombies(doubled[p], at=p) } }",
            "{bank: 2, church: 1}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 6, church: 3, hospital: 0}"],
        ),
        (
            "+ on two maps gives a new map in which the right one's values win",
            "alarm",
            "let m = {@bank: 1, @church: 1}; let n = m + {@church: 3, @hospital: 2}"
            " for p in [@bank, @church, @hospital] { add_zombies(n[p], at=p) }"
            " add_zombies(m[@church], at=@church)",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 1, church: 4, hospital: 2}"],
        ),
        (
            "in and not in test a map's keys",
            "alarm",
            "let m = {@bank: 0}; if @bank in m { add_zombies(2, at=@bank) }"
            " if @church not in m { add_zombies(3, at=@church) }"
            " if @hospital in m { add_zombies(1, at=@hospital) }",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 2, church: 3, hospital: 0}"],
        ),
        (
            "a key a map does not hold is nothing, so the card is not offered",
            "alarm",
            "add_zombies({@bank: 1}[@church], at=@church)",
            "{}",
            [],
            ["decision: {refuses: {red: [[play, alarm]]}, offers: {red: [[play, hideout]]}}"],
        ),
        (
            "a verb of the pack takes maps (a default `{}` is a map of the parameter's type)",
            "alarm",
            "reinforce_each({@bank: 2, @hospital: 1}, otherwise={@bank: 5, @church: 3})"
            " reinforce_each({@hospital: 1})",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 2, church: 3, hospital: 2}"],
        ),
        (
            "keys and values in the order the keys came in; + keeps the left one's order",
            "alarm",
            "let m = {@church: 1, @bank: 2} + {@hospital: 3, @church: 4}"
            " for place in keys(m) { add_zombies(values(m)[1], at=place) }"
            " add_zombies(values(m)[0], at=keys(m)[0]); add_zombies(values(m)[2], at=keys(m)[1])",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {church: 6, bank: 5, hospital: 2}"],
        ),
        (
            "get gives a default for a key the map does not hold; size counts its keys",
            "alarm",
            "let m = {@bank: 1}; add_zombies(get(m, @bank, 5), at=@bank)"
            " add_zombies(get(m, @church, 5), at=@church); add_zombies(size(m) + size({}), at=@hospital)",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 1, church: 5, hospital: 1}"],
        ),
        (
            "votes per player, as a selector of the pack tallies ballots into a map",
            "alarm",
            "let blue = owner(@student); let votes = tally([me, blue, me])"
            " for p in keys(votes) { take_antidotes(votes[p], player=p) }",
            "{}",
            ["{red: [play, alarm]}"],
            ["antidotes: {red: 2, blue: 1, green: 0}"],
        ),
        (
            "sum, max and min of numbers",
            "alarm",
            "add_zombies(sum([1, 2, 3]), at=@bank); add_zombies(max([zombies(@bank), 2]) - 1, at=@church)"
            " add_zombies(min([5, zombies(@church), 4]), at=@hospital)",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 6, church: 5, hospital: 4}"],
        ),
        (
            "the max of no numbers is nothing, so the card is not offered",
            "alarm",
            "add_zombies(max([z for z in [zombies(@bank)] if z > 0]), at=@bank)",
            "{}",
            [],
            ["decision: {refuses: {red: [[play, alarm]]}, offers: {red: [[play, hideout]]}}"],
        ),
        (
            "range counts from its low end to its high end, both included (none when low is above high)",
            "alarm",
            "for n in range(1, 3) { add_zombies(n, at=@bank) }"
            " for n in range(3, 1) { add_zombies(1, at=@church) }",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 6, church: 0}"],
        ),
        (
            "reversed turns a list round; index_of counts from 0",
            "alarm",
            "let order = reversed([@bank, @church, @hospital])"
            " add_zombies(index_of(order, @bank) + 1, at=order[0]); add_zombies(1, at=order[2])",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {hospital: 3, church: 0, bank: 1}"],
        ),
        (
            "the index of an item the list does not hold is nothing, so the card is not offered",
            "alarm",
            "add_zombies(index_of([@bank], @church), at=@church)",
            "{}",
            [],
            ["decision: {refuses: {red: [[play, alarm]]}, offers: {red: [[play, hideout]]}}"],
        ),
        (
            "an empty map takes the type it is used as, and a map of maps is indexed twice",
            "alarm",
            "let none = {}; let nested = {me: {@bank: 3}} + none; add_zombies(nested[me][@bank], at=@bank)",
            "{}",
            ["{red: [play, alarm]}"],
            ["zombies: {bank: 3}"],
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
