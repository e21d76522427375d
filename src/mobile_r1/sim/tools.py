"""Looking at the simulated phone: render one screen, write a gallery of every screen, drive it from a terminal."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, ConfigError
from mobile_r1.core.records import UIElement
from mobile_r1.sim.apps import Ctx, load_all, resolve
from mobile_r1.sim.system import Phone


def render_screen(app: str, screen: str | None = None, seed: int = 0, randomize: bool = False,
                  locale: str = "en") -> Phone:
    """A phone in `locale` showing `screen` (default: the home screen) of `app`; read `.screenshot()`, `.elements()`,
    `.xml()`."""
    key = resolve(app)
    if key is None:
        raise ConfigError(f"unknown app '{app}'; apps: {', '.join(sorted(load_all()))}")
    phone = Phone(apps=[key], seed=seed, randomize=randomize, ad_rate=0.0, locale=locale)
    phone.goto(key, screen)
    return phone


def format_elements(elements: list[UIElement], only_labeled: bool = False) -> str:
    """One line per element: id, class, text/desc, resource id, flags, bounds."""
    lines = []
    for e in elements:
        if only_labeled and not (e.label or e.clickable or e.editable or e.scrollable):
            continue
        flags = [name for name in ("clickable", "long_clickable", "editable", "scrollable", "checked", "focused",
                                   "selected") if getattr(e, name)]
        if not e.enabled:
            flags.append("disabled")
        label = f'"{e.text}"' if e.text else (f"<{e.content_desc}>" if e.content_desc else "")
        rid = e.resource_id.split(":id/")[-1] if e.resource_id else ""
        lines.append(f"[{e.id}] {e.class_name.rsplit('.', 1)[-1]} {label} {('#' + rid) if rid else ''} "
                     f"{' '.join(flags)} {list(e.bounds)}".replace("  ", " ").strip())
    return "\n".join(lines)


@dataclass(frozen=True)
class GalleryEntry:
    app: str
    screen: str
    paths: dict[str, Path]  # locale -> PNG


LANGUAGES = {"en": "English", "zh": "Chinese"}


def write_gallery(out: Path, scale: float = 0.2, seed: int = 0, randomize: bool = False, apps: list[str] | None = None,
                  locales: Iterable[str] = ("en", "zh"), every: bool = False,
                  progress: Callable[[str], None] | None = None) -> list[GalleryEntry]:
    """One PNG per main screen (`App.main_screens`; with `every`, per screen) of every app and the launcher, in each
    locale (`out/<locale>/<app>_<screen>.png`), and an index.md and index.html showing the languages side by side."""
    langs = list(dict.fromkeys(locales))
    bad = [loc for loc in langs if loc not in LANGUAGES]
    if bad or not langs:
        raise ConfigError(f"unknown locale {bad[0] if bad else '(none)'!r}; the phone speaks en and zh")
    registry = load_all()
    keys = sorted(registry) if apps is None else [resolve(a) or a for a in apps]
    unknown = [k for k in keys if k not in registry]
    if unknown:
        raise ConfigError(f"unknown app '{unknown[0]}'; apps: {', '.join(sorted(registry))}")
    for loc in langs:
        (out / loc).mkdir(parents=True, exist_ok=True)
    entries = [GalleryEntry("launcher", "home", {loc: out / loc / "launcher.png" for loc in langs})]
    for loc in langs:
        Phone(apps=sorted(registry), seed=seed, randomize=randomize, ad_rate=0.0, locale=loc).screenshot(scale).save(
            entries[0].paths[loc])
    for key in keys:
        for screen in registry[key].screens() if every else registry[key].main_screens():
            paths = {loc: out / loc / f"{key}_{screen}.png" for loc in langs}
            for loc in langs:
                phone = Phone(apps=[key], seed=seed, randomize=randomize, ad_rate=0.0, locale=loc)
                params = phone.apps[key].gallery_setup(Ctx(phone, key))
                phone.goto(key, screen, **params.get(screen, {}))
                phone.screenshot(scale).save(paths[loc])
            entries.append(GalleryEntry(registry[key].name, screen, paths))
            if progress is not None:
                progress(f"{key}/{screen}")
    which = "Every screen" if every else "The main screens"
    regenerate = f"mobile-r1 sim gallery --out {out.as_posix()}" + (" --every" if every else "")
    md = ["# Gallery of the simulated phone", "",
          f"{which} of every app in {' and '.join(LANGUAGES[loc] for loc in langs)}, seed {seed}, "
          f"{'randomised' if randomize else 'canonical'} look, scale {scale}. Regenerate with `{regenerate}`.", ""]
    html = ["<!doctype html><meta charset='utf-8'><title>Simulated phone gallery</title>",
            "<style>figure{display:inline-block;margin:8px;text-align:center}</style>"]
    current = None
    for e in entries:
        if e.app != current:
            md += ["", f"## {e.app}", "", "| screen | " + " | ".join(LANGUAGES[loc] for loc in langs) + " |",
                   "|---|" + "---|" * len(langs)]
            html.append(f"<h2>{e.app}</h2>")
            current = e.app
        cells = [f"![{e.app} {e.screen} {loc}]({e.paths[loc].relative_to(out).as_posix()})" for loc in langs]
        md.append(f"| {e.screen} | " + " | ".join(cells) + " |")
        html += [f"<figure><img src='{e.paths[loc].relative_to(out).as_posix()}' width='216'>"
                 f"<figcaption>{e.screen} ({loc})</figcaption></figure>" for loc in langs]
    (out / "index.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "index.html").write_text("\n".join(html) + "\n", encoding="utf-8")
    return entries


HELP = """Actions: JSON like {"action":"click","coordinate":[540,1200]} or short forms:
  click X Y | long_press X Y | swipe X1 Y1 X2 Y2 | type TEXT | key NAME | back | home | menu | enter
  open APP | wait [SECONDS] | answer TEXT | call_user TEXT | terminate success|failure
Commands: elements | xml | shot [PATH] | state | help | quit"""


def parse_line(line: str) -> Action | str:
    """An Action from a JSON object or a short form; a command name ('elements', 'shot x.png', ...) as text."""
    line = line.strip()
    if line.startswith("{"):
        return Action.from_json(line)
    word, _, rest = line.partition(" ")
    word = word.lower()
    rest = rest.strip()
    nums = lambda: [float(v) for v in rest.replace(",", " ").split()]  # noqa: E731
    try:
        if word in ("click", "tap"):
            return Action.click(*nums())
        if word in ("long_press", "longpress"):
            return Action.long_press(*nums())
        if word == "swipe":
            return Action.swipe(*nums())
    except TypeError:
        raise ActionError(f"{word}: wrong number of coordinates in '{line}'") from None
    except ValueError:
        raise ActionError(f"{word}: coordinates must be numbers in '{line}'") from None
    if word == "type":
        return Action.type_text(rest)
    if word == "key":
        return Action.key(rest)
    if word in ("back", "home", "menu", "enter"):
        return Action.system_button(word)
    if word == "recents":
        return Action.system_button("Menu")
    if word == "open":
        return Action.open(rest)
    if word == "wait":
        return Action.wait(float(rest) if rest else None)
    if word == "answer":
        return Action.answer(rest)
    if word == "call_user":
        return Action.call_user(rest)
    if word == "terminate":
        return Action.terminate(rest or "success")
    if word in ("elements", "xml", "shot", "state", "help", "quit", "exit"):
        return line
    raise ActionError(f"unknown action or command '{word}'; type 'help'")


def play(env: Any, lines: Iterable[str], out: TextIO, shots: Path | None = None, scale: float = 0.3) -> int:
    """Read actions line by line, apply them to `env` (a SimEnv), print what happened; returns the steps taken."""
    obs = env.observe()
    out.write(f"screen: {obs.activity}\n{format_elements(obs.elements, only_labeled=True)}\n")
    steps = 0
    for raw in lines:
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            parsed = parse_line(raw)
        except ActionError as exc:
            out.write(f"error: {exc}\n")
            continue
        if isinstance(parsed, str):
            cmd, _, arg = parsed.partition(" ")
            cmd = cmd.lower()
            if cmd in ("quit", "exit"):
                break
            if cmd == "help":
                out.write(HELP + "\n")
            elif cmd == "elements":
                out.write(format_elements(env.phone.elements()) + "\n")
            elif cmd == "xml":
                out.write(env.phone.xml() + "\n")
            elif cmd == "state":
                out.write(json.dumps(env.phone.state_dict(), indent=1, default=str)[:20000] + "\n")
            elif cmd == "shot":
                path = Path(arg.strip()) if arg.strip() else (shots or Path(".")) / f"step_{steps:03d}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                env.phone.screenshot(scale).save(path)
                out.write(f"saved {path}\n")
            continue
        obs, done, _, info = env.step(parsed)
        steps += 1
        out.write(f"> {parsed}\n")
        if info.get("error"):
            out.write(f"error: {info['error']}\n")
        for effect in info.get("effects", []):
            out.write(f"effect: {effect['kind']} {json.dumps(effect['detail'], default=str)}\n")
        for key in ("toast", "user_reply", "answer"):
            if info.get(key):
                out.write(f"{key}: {info[key]}\n")
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            env.phone.screenshot(scale).save(shots / f"step_{steps:03d}.png")
        out.write(f"screen: {obs.activity}\n{format_elements(obs.elements, only_labeled=True)}\n")
        if done:
            out.write("episode ended\n")
            break
    return steps


