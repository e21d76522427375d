"""The sub-category table of docs/tasks.md, generated from the specs and suites so it stays true."""

from __future__ import annotations

from pathlib import Path

from mobile_r1.tasks.suites import split_table
from mobile_r1.tasks.taxonomy import CATEGORY_NAMES

BEGIN, END = "<!-- taxonomy:begin -->", "<!-- taxonomy:end -->"


def taxonomy_markdown() -> str:
    """A markdown table: category, sub-category, definition, tasks, inquire-sim train / test / unseen-app episodes."""
    rows = split_table()
    lines = ["| category | sub-category | definition | tasks | train | test | unseen-app |",
             "|---|---|---|---|---:|---:|---:|"]
    for r in rows:
        tasks = ", ".join(f"`{t}`" for t in r["tasks"])  # type: ignore[union-attr]
        lines.append(f"| {CATEGORY_NAMES[str(r['category'])]} | {r['subcategory']} | {r['definition']} | {tasks} | "
                     f"{r['train']} | {r['test']} | {r['unseen-app']} |")
    total = {k: sum(int(r[k]) for r in rows) for k in ("train", "test", "unseen-app")}  # type: ignore[call-overload]
    lines.append(f"| | **total** | | | {total['train']} | {total['test']} | {total['unseen-app']} |")
    return "\n".join(lines)


def update_docs(path: str | Path = "docs/tasks.md") -> bool:
    """Rewrite the table between the markers in docs/tasks.md; True when the file changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    new = text[:start] + "\n" + taxonomy_markdown() + "\n" + text[end:]
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    print("updated docs/tasks.md" if update_docs() else "docs/tasks.md is up to date")
