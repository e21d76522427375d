"""A small POSIX-style shell for the simulated device: the command lines adb clients send to `shell:` and `exec:`.

It parses what tools send to a phone's `/system/bin/sh -c`: words with single and double quotes and backslashes,
`$?`, the lists `;`, `&&`, `||` (and `&`, run in the foreground here), pipes `|`, the redirections `> FILE`,
`>> FILE`, `2> FILE`, `2>&1`, `>&2`, `&> FILE`, `< FILE` (`1>` is `>`), and the builtin `exit [N]`. Commands themselves are the device's (`Commands.run(argv, stdin)`); standard
error is merged into the output, as adbd's raw shell does. Written by hand: the standard library's `shlex` does not
keep `2>` apart from a word `2`, and the device needs no more than this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from mobile_r1.core.errors import DataError

STATUS = "\x00?"  # `$?` outside single quotes, replaced by the last exit status when the command runs
OPERATORS = ("&&", "||", ";", "&", "|")


class Commands(Protocol):
    """What the shell runs: one command's argv with its standard input -> (stdout, stderr, exit status)."""

    def run(self, argv: list[str], stdin: bytes) -> tuple[bytes, bytes, int]: ...

    def read_file(self, path: str) -> bytes | None: ...

    def write_file(self, path: str, data: bytes, append: bool = False) -> str | None: ...

    def line_done(self) -> None: ...


@dataclass(slots=True)
class Token:
    kind: str  # "word" | "op"
    text: str


@dataclass(slots=True)
class Simple:
    argv: list[str]
    stdout: tuple[str, bool] | None = None  # (path, append)
    stderr: str | None = None  # a path, or "&1"
    stdin: str | None = None


@dataclass(slots=True)
class Pipeline:
    commands: list[Simple] = field(default_factory=list)


def tokenize(line: str) -> list[Token]:
    """Words and operators of one command line; raises DataError on an unterminated quote."""
    tokens: list[Token] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(line)

    def end_word() -> None:
        nonlocal in_word
        if in_word:
            tokens.append(Token("word", "".join(word)))
            word.clear()
            in_word = False

    while i < n:
        c = line[i]
        if c in " \t\n\r":
            end_word()
            i += 1
        elif c == "#" and not in_word:
            break
        elif c == "'":
            j = line.find("'", i + 1)
            if j < 0:
                raise DataError("unterminated single quote")
            word.append(line[i + 1:j])
            in_word = True
            i = j + 1
        elif c == '"':
            i += 1
            in_word = True
            while True:
                if i >= n:
                    raise DataError("unterminated double quote")
                d = line[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < n and line[i + 1] in '"\\$`\n':
                    word.append(line[i + 1])
                    i += 2
                elif d == "$" and line[i + 1:i + 2] == "?":
                    word.append(STATUS)
                    i += 2
                else:
                    word.append(d)
                    i += 1
        elif c == "\\":
            if i + 1 < n:
                word.append(line[i + 1])
            in_word = True
            i += 2
        elif c == "$" and line[i + 1:i + 2] == "?":
            word.append(STATUS)
            in_word = True
            i += 2
        elif c == ">" or (c in "12" and not in_word and line[i + 1:i + 2] == ">") or (c == "&" and line[i + 1:i + 2] == ">"):
            end_word()
            if line.startswith("1>", i):
                i += 1
            if line.startswith("2>&1", i):
                tokens.append(Token("op", "2>&1"))
                i += 4
            elif line.startswith(">&2", i):
                tokens.append(Token("op", ">&2"))
                i += 3
            elif line.startswith("&>", i):
                tokens.append(Token("op", "&>"))
                i += 2
            elif line.startswith("2>", i):
                tokens.append(Token("op", "2>"))
                i += 2
            elif line.startswith(">>", i):
                tokens.append(Token("op", ">>"))
                i += 2
            else:
                tokens.append(Token("op", ">"))
                i += 1
        elif c == "<":
            end_word()
            tokens.append(Token("op", "<"))
            i += 1
        elif c in ";&|":
            end_word()
            two = line[i:i + 2]
            if two in ("&&", "||"):
                tokens.append(Token("op", two))
                i += 2
            else:
                tokens.append(Token("op", c))
                i += 1
        else:
            word.append(c)
            in_word = True
            i += 1
    end_word()
    return tokens


def parse(line: str) -> list[tuple[Pipeline, str]]:
    """The command line as pipelines, each with the operator that follows it (";" after the last)."""
    out: list[tuple[Pipeline, str]] = []
    pipeline = Pipeline()
    current = Simple([])
    tokens = tokenize(line)
    i = 0

    def finish_simple() -> None:
        nonlocal current
        if current.argv or current.stdout or current.stdin:
            pipeline.commands.append(current)
        current = Simple([])

    while i < len(tokens):
        t = tokens[i]
        if t.kind == "word":
            current.argv.append(t.text)
        elif t.text in (">", ">>", "2>", "&>", "<"):
            if i + 1 >= len(tokens) or tokens[i + 1].kind != "word":
                raise DataError(f"syntax error: '{t.text}' needs a file name")
            target = tokens[i + 1].text
            if t.text in (">", ">>"):
                current.stdout = (target, t.text == ">>")
            elif t.text == "2>":
                current.stderr = target
            elif t.text == "&>":
                current.stdout, current.stderr = (target, False), "&1"
            else:
                current.stdin = target
            i += 1
        elif t.text == "2>&1":
            current.stderr = "&1"
        elif t.text == ">&2":
            current.stdout = ("&2", False)
        elif t.text == "|":
            finish_simple()
        else:  # ; & && ||
            finish_simple()
            if pipeline.commands:
                out.append((pipeline, ";" if t.text == "&" else t.text))
            elif t.text in ("&&", "||"):
                raise DataError(f"syntax error near '{t.text}'")
            pipeline = Pipeline()
        i += 1
    finish_simple()
    if pipeline.commands:
        out.append((pipeline, ";"))
    return out


MAX_LINE_OUTPUT = 64 * 1024 * 1024  # bytes one command line may write (beyond it the line stops, status 1)


class Shell:
    """Runs command lines against `commands`; keeps `$?` between them. `run_line` merges standard output and error
    (adbd's raw shell); `run` keeps them apart, in order, for the shell_v2 protocol."""

    def __init__(self, commands: Commands, max_output: int = MAX_LINE_OUTPUT) -> None:
        self.commands = commands
        self.status = 0
        self.max_output = max_output

    def run_line(self, line: str) -> tuple[bytes, int]:
        """The merged output and the exit status of a whole command line."""
        chunks, status = self.run(line)
        return b"".join(data for _, data in chunks), status

    def run(self, line: str) -> tuple[list[tuple[int, bytes]], int]:
        """The output of a whole command line as (1 for stdout | 2 for stderr, bytes) chunks, and its exit status."""
        try:
            program = parse(line)
        except DataError as exc:
            self.status = 2
            return [(2, f"/system/bin/sh: {exc}\n".encode())], 2
        output = _Output(self.max_output)
        skip_next = False
        try:
            for pipeline, op in program:
                if not skip_next:
                    if pipeline.commands[0].argv[:1] == ["exit"]:
                        self._exit(pipeline.commands[0].argv[1:], output)
                        break
                    self._pipeline(pipeline, output)
                    if output.full:
                        output.add(2, b"/system/bin/sh: output over the device's limit; the rest of the line is "
                                      b"not run\n", force=True)
                        self.status = 1
                        break
                if op == "&&":
                    skip_next = self.status != 0
                elif op == "||":
                    skip_next = self.status == 0
                else:
                    skip_next = False
        finally:
            self.commands.line_done()
        return output.chunks, self.status

    def _exit(self, args: list[str], output: _Output) -> None:
        text = args[0].replace(STATUS, str(self.status)) if args else str(self.status)
        try:
            self.status = int(text) & 0xFF
        except ValueError:
            output.add(2, f"/system/bin/sh: exit: {text}: bad number\n".encode())
            self.status = 2

    def _pipeline(self, pipeline: Pipeline, shown: _Output) -> None:
        data = b""
        last = len(pipeline.commands) - 1
        for index, simple in enumerate(pipeline.commands):
            argv = [a.replace(STATUS, str(self.status)) for a in simple.argv]
            stdin = data
            if simple.stdin is not None:
                content = self.commands.read_file(simple.stdin)
                if content is None:
                    shown.add(2, f"/system/bin/sh: can't open '{simple.stdin}': No such file or directory\n".encode())
                    self.status = 1
                    return
                stdin = content
            if argv:
                out, err, code = self.commands.run(argv, stdin)
            else:
                out, err, code = b"", b"", 0
            if simple.stderr == "&1":
                out, err = out + err, b""
            elif simple.stderr is not None:
                if simple.stderr != "/dev/null":
                    self.commands.write_file(simple.stderr, err)
                err = b""
            if simple.stdout is not None and simple.stdout[0] == "&2":
                err, out = err + out, b""
            elif simple.stdout is not None:
                path, append = simple.stdout
                problem = self.commands.write_file(path, out, append)
                if problem:
                    err += f"/system/bin/sh: can't create {path}: {problem}\n".encode()
                out = b""
            shown.add(2, err)
            self.status = code
            if index == last:
                shown.add(1, out)
            data = out
            if shown.full:
                return


class _Output:
    """A command line's output chunks, up to `limit` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.chunks: list[tuple[int, bytes]] = []
        self.size = 0
        self.limit = limit
        self.full = False

    def add(self, fd: int, data: bytes, force: bool = False) -> None:
        if not data:
            return
        if not force and self.size + len(data) > self.limit:
            self.full = True
            return
        self.size += len(data)
        self.chunks.append((fd, data))


__all__ = ["Shell", "Commands", "tokenize", "parse", "MAX_LINE_OUTPUT"]
