"""The docs stay true to the tree: docs/layout.md names every folder of Python code under src/mobile_r1 (nested as
they are), every benchmark script, doc page and config; every relative link of the README and the docs leads to a
file that exists, and to a heading or anchor that exists there."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PACKAGE = REPO / "src" / "mobile_r1"
LAYOUT = DOCS / "layout.md"
# A folder of the tree: two spaces per level (deeper lines are descriptions), its name, a slash.
TREE_ENTRY = re.compile(r"^(?P<indent>(?:  ){1,4})(?P<name>[A-Za-z_][\w.-]*)/(?:\s|$)")
LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def code_folders() -> set[str]:
    """Every folder under src/mobile_r1 that holds Python code, relative to it."""
    return {str(path.parent.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
            if "__pycache__" not in path.parts and path.parent != PACKAGE}


def layout_tree() -> set[str]:
    """The folders the layout's tree draws, as paths relative to src/mobile_r1 (from their indentation)."""
    block = re.search(r"```\nsrc/mobile_r1/\n(.*?)```", LAYOUT.read_text(encoding="utf-8"), re.S)
    assert block, "docs/layout.md has no tree starting with src/mobile_r1/"
    stack: list[str] = []
    drawn = set()
    for line in block.group(1).splitlines():
        entry = TREE_ENTRY.match(line)
        if entry is None:
            continue
        depth = len(entry.group("indent")) // 2
        stack = stack[:depth - 1] + [entry.group("name")]
        drawn.add("/".join(stack))
    return drawn


def test_the_layout_tree_draws_every_folder_of_code_and_no_other() -> None:
    folders, drawn = code_folders(), layout_tree()
    assert not folders - drawn, f"docs/layout.md's tree lacks {sorted(folders - drawn)}"
    assert not drawn - folders, f"docs/layout.md's tree draws folders that hold no code: {sorted(drawn - folders)}"


def test_the_layout_names_every_benchmark_config_and_doc_page() -> None:
    text = LAYOUT.read_text(encoding="utf-8")
    links = {match.group("target").split("#")[0] for match in LINK.finditer(text)}
    wanted = {f"../benchmarks/{path.name}" for path in (REPO / "benchmarks").glob("*.py")}
    wanted |= {f"../configs/{path.name}" for path in (REPO / "configs").glob("*.yaml")}
    wanted |= {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    assert not wanted - links, f"docs/layout.md does not link {sorted(wanted - links)}"


def anchors(page: Path) -> set[str]:
    """The fragments a page answers to: its headings as GitHub spells them, and its explicit `<a id="...">`."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    out = set(re.findall(r'<a id="([^"]+)"', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"(?m)^#{1,6} (.+)$", text):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def test_every_relative_link_of_the_docs_leads_somewhere() -> None:
    broken = []
    for page in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for match in LINK.finditer(text):
            target = match.group("target")
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, fragment = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif fragment and file.suffix == ".md" and fragment not in anchors(file):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert broken == []
