"""State paths, loose equality and patches used by conditions and parameter samplers."""

from __future__ import annotations

import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.spec import Condition, fill, template_pieces
from mobile_r1.env.sim.state import check, resolve, same, set_path, split_path


@pytest.fixture
def phone() -> Phone:
    return Phone(apps=["Notes", "Shop", "Maps"], seed=4)


def test_paths_walk_keys_filters_and_indexes(phone: Phone) -> None:
    notes = phone.app_state("notes")["notes"]
    assert resolve(phone, "notes.notes[*].title") == [n["title"] for n in notes]
    first = notes[0]["title"]
    assert resolve(phone, f"notes.notes[title={first}].id") == [notes[0]["id"]]
    assert resolve(phone, "notes.notes[0].title") == [first]
    assert resolve(phone, "notes.notes[title=nothing like this].id") == []
    assert resolve(phone, "NOTES.notes[-1].title") == [notes[-1]["title"]]


def test_filters_chain_to_keep_the_items_matching_all(phone: Phone) -> None:
    notes = phone.app_state("notes")["notes"]
    notes[0]["pinned"], notes[1]["pinned"] = True, True
    notes[1]["title"] = notes[0]["title"]
    title = notes[0]["title"]
    assert resolve(phone, f"notes.notes[title={title}][pinned=true].id") == [notes[0]["id"], notes[1]["id"]]
    notes[1]["pinned"] = False
    assert resolve(phone, f"notes.notes[title={title}][pinned=true].id") == [notes[0]["id"]]
    assert resolve(phone, f"notes.notes[pinned=false][title={title}].id") == [notes[1]["id"]]


def test_dots_inside_filters_do_not_split(phone: Phone) -> None:
    assert split_path("maps.places[name=Dr. Who Clinic].id") == ["maps", "places[name=Dr. Who Clinic]", "id"]
    phone.app_state("maps")["places"][0]["name"] = "Dr. Who Clinic"
    assert resolve(phone, "maps.places[name=Dr. Who Clinic].id") == [phone.app_state("maps")["places"][0]["id"]]


def test_bad_paths_say_what_is_wrong(phone: Phone) -> None:
    with pytest.raises(ConfigError, match="not an installed app"):
        resolve(phone, "wallet.balance")
    with pytest.raises(ConfigError, match="bad filter"):
        resolve(phone, "notes.notes[a<b].id")


def test_same_is_loose_on_case_numbers_and_bools() -> None:
    assert same("Green Tea", " green tea ")
    assert same(12.5, "12.50") and not same(12.5, "12.6")
    assert same(True, "true") and not same(True, "false")
    assert not same("abc", 3)


def test_fill_keeps_types_of_whole_placeholders() -> None:
    params = {"n": 3, "name": "Ann"}
    assert fill("{n}", params) == 3
    assert fill("give {name} {n}", params) == "give Ann 3"
    assert fill({"a": ["{name}"]}, params) == {"a": ["Ann"]}


def test_template_pieces_cut_literal_text_from_placeholders() -> None:
    template = "Send '{text}' to {contact}{suffix} on Chat"
    pieces = template_pieces(template)
    assert pieces == [("Send '", False), ("text", True), ("' to ", False), ("contact", True), ("suffix", True),
                      (" on Chat", False)]
    assert "".join("{" + t + "}" if ph else t for t, ph in pieces) == template
    assert template_pieces("{n}") == [("n", True)] and template_pieces("plain") == [("plain", False)]


def test_conditions_on_state_and_answers(phone: Phone) -> None:
    title = phone.app_state("notes")["notes"][1]["title"]
    params = {"title": title}
    assert check(phone, Condition(state="notes.notes[*].title", contains="{title}"), params)
    assert not check(phone, Condition(state="notes.notes[*].title", not_contains="{title}"), params)
    assert check(phone, Condition(state="notes.notes[*].title", count=7), params)
    assert check(phone, Condition(state="shop.cart", absent=True), params)
    assert not check(phone, Condition(answer_contains="42"), params)
    phone.state.answers.append("It costs 42 dollars")
    assert check(phone, Condition(answer_contains="42"), params)
    assert check(phone, Condition(no_effect="delete"), params)


def test_set_path_sets_and_appends(phone: Phone) -> None:
    set_path(phone, "shop.logged_in", False)
    assert phone.app_state("shop")["logged_in"] is False
    set_path(phone, "shop.cart", {"product": 1, "qty": 1, "selected": True}, append=True)
    assert phone.app_state("shop")["cart"][-1]["product"] == 1
    set_path(phone, "permissions.maps.location", True)
    assert phone.state.permissions["maps"]["location"] is True
    with pytest.raises(ConfigError, match="cannot patch"):
        set_path(phone, "shop.nothing.here", 1)
