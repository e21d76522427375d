"""The text tools adb clients pipe a phone's output through, as Android's toybox answers them: grep, sed, awk (the
common subset), cut, head, tail, wc.

They touch nothing of the phone: `SimDevice` runs them without its lock. Each has bounds a hostile command line
cannot pass: its output stops at `Limits.output` bytes (the command fails, as a full pipe would), and pattern
matching (grep, sed, awk's `/re/` and `~`) runs on the `regex` engine with a time budget per command line
(`Limits.seconds`), so no pattern such as `(a+)+$` can keep a thread busy for long: past the budget the command fails
with "pattern too costly" and status 2.

    grep   -E -F -i -v -o -c -n -q -w -x -e PATTERN [FILE...]
    sed    [-n] [-E|-r] [-e] SCRIPT [FILE...]; commands s/RE/REPL/[gpI N], p, d, q with an address N, $, /RE/ or
           a range A,B; separated by ';' or newlines
    awk    [-F SEP] [-v VAR=VALUE] 'PROGRAM' [FILE...]; BEGIN/END, /RE/, expressions with $N, NF, NR, variables,
           arithmetic, comparison, ~ !~, && || !, concatenation; statements print, printf, assignments (= += -=),
           next
    cut    -d DELIM -f LIST | -c LIST | -b LIST (LIST: N, N-M, N-, -M, comma-separated) [-s]
    head   [-n N | -N | -c N] [FILE...]       tail [-n N | -n +N | -N | -c N] [FILE...]
    wc     [-l] [-w] [-c] [-m] [FILE...]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import regex

ReadFile = Callable[[str], "bytes | None"]
Result = tuple[bytes, bytes, int]

MAX_OUTPUT = 64 * 1024 * 1024  # bytes one command may write
PATTERN_SECONDS = 2.0  # seconds of pattern matching one command line may spend


class PatternTooCostly(Exception):
    """Matching ran past the command line's time budget."""


class OutputTooLarge(Exception):
    """A command's output passed its limit."""


class ToolError(Exception):
    """A usage error: the message goes to standard error with status 1 (2 for grep)."""


@dataclass
class Limits:
    """What one command line may spend: output bytes per command, seconds of pattern matching in all."""

    output: int = MAX_OUTPUT
    seconds: float = PATTERN_SECONDS
    spent: float = 0.0

    def remaining(self) -> float:
        left = self.seconds - self.spent
        if left <= 0:
            raise PatternTooCostly()
        return left

    def reset(self) -> None:
        self.spent = 0.0


class Pattern:
    """A compiled pattern whose every match is charged to `limits`."""

    def __init__(self, source: str, limits: Limits, flags: int = 0) -> None:
        try:
            self.compiled = regex.compile(source, flags | regex.V0)
        except (regex.error, OverflowError, RecursionError) as exc:
            raise ToolError(f"bad regex '{source}': {exc}") from None
        self.limits = limits

    def _charged(self, call: Callable[[float], object]) -> object:
        start = time.monotonic()
        try:
            return call(self.limits.remaining())
        except TimeoutError:
            raise PatternTooCostly() from None
        finally:
            self.limits.spent += time.monotonic() - start

    def search(self, text: str) -> regex.Match[str] | None:
        return self._charged(lambda t: self.compiled.search(text, timeout=t))  # type: ignore[return-value]

    def findall(self, text: str) -> list[regex.Match[str]]:
        return self._charged(lambda t: list(self.compiled.finditer(text, timeout=t)))  # type: ignore[return-value]

    def sub(self, repl: Callable[[regex.Match[str]], str], text: str, count: int = 0) -> str:
        return self._charged(lambda t: self.compiled.sub(repl, text, count=count, timeout=t))  # type: ignore[return-value]


def basic_regex(pattern: str) -> str:
    """A basic regular expression (grep, sed without -E) in Python's syntax: `\\|`, `\\(`, `\\+` ... are the
    operators and `|`, `(`, `+` ... literal."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            n = pattern[i + 1]
            out.append(n if n in "|(){}+?" else "\\" + n)
            i += 2
        elif c in "|(){}+?":
            out.append("\\" + c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Out:
    """Output lines, refused past the limit."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit

    def add(self, text: str) -> None:
        self.size += len(text)
        if self.size > self.limit:
            raise OutputTooLarge()
        self.parts.append(text)

    def data(self) -> bytes:
        return "".join(self.parts).encode("utf-8", errors="surrogateescape")


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _inputs(files: list[str], stdin: bytes, read_file: ReadFile, tool: str) -> tuple[list[tuple[str, str]], bytes]:
    """(name, text) of each input (stdin when no file) and the error lines of files that are missing."""
    if not files:
        return [("(standard input)", _text(stdin))], b""
    out, errors = [], bytearray()
    for name in files:
        data = stdin if name == "-" else read_file(name)
        if data is None:
            errors += f"{tool}: {name}: No such file or directory\n".encode()
        else:
            out.append((name, _text(data)))
    return out, bytes(errors)


def _count(text: str, tool: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ToolError(f"{tool}: invalid number '{text}'") from None


def run_tool(name: str, args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    """Run text tool `name`; (stdout, stderr, status)."""
    tool = TOOLS[name]
    try:
        return tool(args, stdin, read_file, limits)
    except PatternTooCostly:
        return b"", f"{name}: pattern too costly to match (over {limits.seconds:g} s of matching)\n".encode(), 2
    except OutputTooLarge:
        return b"", f"{name}: output over the device's {limits.output} byte limit\n".encode(), 1
    except ToolError as exc:
        return b"", f"{exc}\n".encode(), 2 if name == "grep" else 1


# ----- grep --------------------------------------------------------------------------------------------------
def grep(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    flags, patterns, words = set(), [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-e" and i + 1 < len(args):
            patterns.append(args[i + 1])
            i += 2
            continue
        if a.startswith("-") and len(a) > 1 and a != "--":
            flags.update(a[1:])
        else:
            words.append(a)
        i += 1
    if not patterns:
        if not words:
            raise ToolError("usage: grep [-EFiovcnqwx] [-e] PATTERN [FILE...]")
        patterns, words = [words[0]], words[1:]
    sources = []
    for p in patterns:
        p = regex.escape(p) if "F" in flags else (p if "E" in flags else basic_regex(p))
        if "w" in flags:
            p = rf"\b(?:{p})\b"
        if "x" in flags:
            p = rf"^(?:{p})$"
        sources.append(p)
    pattern = Pattern("|".join(f"(?:{s})" for s in sources), limits, regex.I if "i" in flags else 0)
    inputs, errors = _inputs(words, stdin, read_file, "grep")
    many = len(inputs) > 1
    out = _Out(limits.output)
    hits = 0
    for name, text in inputs:
        count = 0
        for number, line in enumerate(_lines(text), 1):
            found = pattern.search(line) is not None
            if found == ("v" in flags):
                continue
            count += 1
            if "q" in flags or "c" in flags:
                continue
            prefix = (f"{name}:" if many else "") + (f"{number}:" if "n" in flags else "")
            if "o" in flags and "v" not in flags:
                for m in pattern.findall(line):
                    if m.group(0):
                        out.add(prefix + m.group(0) + "\n")
            else:
                out.add(prefix + line + "\n")
        hits += count
        if "c" in flags:
            out.add((f"{name}:" if many else "") + f"{count}\n")
        if "q" in flags and hits:
            return b"", b"", 0
    return out.data(), errors, 0 if hits else (2 if errors else 1)


# ----- sed ---------------------------------------------------------------------------------------------------
@dataclass
class _SedCommand:
    start: object = None  # None | int | "$" | Pattern
    end: object = None
    name: str = "p"
    pattern: Pattern | None = None
    replacement: str = ""
    global_: bool = False
    print_: bool = False
    nth: int = 1
    active: bool = field(default=False)


def _sed_delimited(script: str, i: int, delim: str) -> tuple[str, int]:
    """The text up to the next unescaped `delim` from i; (text, index after the delimiter)."""
    out = []
    while i < len(script):
        c = script[i]
        if c == "\\" and i + 1 < len(script):
            if script[i + 1] == delim:
                out.append(delim)
            else:
                out.append(script[i:i + 2])
            i += 2
            continue
        if c == delim:
            return "".join(out), i + 1
        out.append(c)
        i += 1
    raise ToolError(f"sed: unterminated '{delim}' in '{script}'")


def _sed_address(script: str, i: int, extended: bool, limits: Limits) -> tuple[object, int]:
    if i < len(script) and script[i].isdigit():
        j = i
        while j < len(script) and script[j].isdigit():
            j += 1
        return int(script[i:j]), j
    if i < len(script) and script[i] == "$":
        return "$", i + 1
    if i < len(script) and script[i] in "/\\":
        delim = "/"
        if script[i] == "\\":
            delim, i = script[i + 1], i + 1
        text, j = _sed_delimited(script, i + 1, delim)
        return Pattern(text if extended else basic_regex(text), limits), j
    return None, i


def _sed_parse(script: str, extended: bool, limits: Limits) -> list[_SedCommand]:
    commands = []
    i = 0
    while i < len(script):
        while i < len(script) and script[i] in " \t\n;":
            i += 1
        if i >= len(script):
            break
        command = _SedCommand()
        command.start, i = _sed_address(script, i, extended, limits)
        if command.start is not None and i < len(script) and script[i] == ",":
            command.end, i = _sed_address(script, i + 1, extended, limits)
            if command.end is None:
                raise ToolError(f"sed: unexpected ',' in '{script}'")
        while i < len(script) and script[i] in " \t":
            i += 1
        if i >= len(script):
            raise ToolError(f"sed: missing command in '{script}'")
        name = script[i]
        command.name = name
        i += 1
        if name == "s":
            if i >= len(script):
                raise ToolError("sed: unterminated 's' command")
            delim = script[i]
            source, i = _sed_delimited(script, i + 1, delim)
            command.replacement, i = _sed_delimited(script, i, delim)
            flags = 0
            while i < len(script) and script[i] not in ";\n}":
                f = script[i]
                if f == "g":
                    command.global_ = True
                elif f == "p":
                    command.print_ = True
                elif f in "iI":
                    flags |= regex.I
                elif f.isdigit():
                    j = i
                    while j < len(script) and script[j].isdigit():
                        j += 1
                    command.nth = int(script[i:j])
                    i = j
                    continue
                elif f not in " \t":
                    raise ToolError(f"sed: unknown option to 's': '{f}'")
                i += 1
            command.pattern = Pattern(source if extended else basic_regex(source), limits, flags)
        elif name not in "pdq=":
            raise ToolError(f"sed: unsupported command '{name}' (this device's sed knows s, p, d, q, =)")
        commands.append(command)
    return commands


def _sed_replace(template: str) -> Callable[[regex.Match[str]], str]:
    def replace(m: regex.Match[str]) -> str:
        out, i = [], 0
        while i < len(template):
            c = template[i]
            if c == "\\" and i + 1 < len(template):
                n = template[i + 1]
                if n.isdigit():
                    out.append(m.group(int(n)) or "" if int(n) <= (m.re.groups or 0) else "")
                elif n == "n":
                    out.append("\n")
                elif n == "t":
                    out.append("\t")
                else:
                    out.append(n)
                i += 2
            elif c == "&":
                out.append(m.group(0))
                i += 1
            else:
                out.append(c)
                i += 1
        return "".join(out)
    return replace


def _sed_matches(address: object, number: int, last: bool, line: str) -> bool:
    if isinstance(address, int):
        return number == address
    if address == "$":
        return last
    assert isinstance(address, Pattern)
    return address.search(line) is not None


def sed(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    quiet = extended = False
    scripts: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-e" and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 2
            continue
        if a.startswith("-") and len(a) > 1 and not scripts and not files and a != "--":
            for f in a[1:]:
                if f == "n":
                    quiet = True
                elif f in "Er":
                    extended = True
                elif f == "i":
                    raise ToolError("sed: -i (edit in place) is not supported on this device")
                else:
                    raise ToolError(f"sed: unknown option -{f}")
        elif not scripts:
            scripts.append(a)
        else:
            files.append(a)
        i += 1
    if not scripts:
        raise ToolError("usage: sed [-nE] [-e] SCRIPT [FILE...]")
    commands = _sed_parse("\n".join(scripts), extended, limits)
    inputs, errors = _inputs(files, stdin, read_file, "sed")
    lines = [line for _, text in inputs for line in _lines(text)]
    out = _Out(limits.output)
    for number, line in enumerate(lines, 1):
        last = number == len(lines)
        deleted = quit_ = False
        for c in commands:
            if c.start is None:
                selected = True
            elif c.end is None:
                selected = _sed_matches(c.start, number, last, line)
            elif c.active:
                selected = True
                if (isinstance(c.end, int) and number >= c.end) or (not isinstance(c.end, int)
                                                                     and _sed_matches(c.end, number, last, line)):
                    c.active = False
            else:
                selected = _sed_matches(c.start, number, last, line)
                if selected:
                    c.active = not (isinstance(c.end, int) and c.end <= number)
            if not selected:
                continue
            if c.name == "s":
                assert c.pattern is not None
                replace = _sed_replace(c.replacement)
                if c.global_:
                    new = c.pattern.sub(replace, line)
                elif c.nth == 1:
                    new = c.pattern.sub(replace, line, count=1)
                else:
                    seen = 0

                    def nth(m: regex.Match[str], want: int = c.nth) -> str:
                        nonlocal seen
                        seen += 1
                        return replace(m) if seen == want else m.group(0)
                    new = c.pattern.sub(nth, line)
                changed = new != line or c.pattern.search(line) is not None
                line = new
                if changed and c.print_:
                    out.add(line + "\n")
            elif c.name == "p":
                out.add(line + "\n")
            elif c.name == "=":
                out.add(f"{number}\n")
            elif c.name == "d":
                deleted = True
                break
            elif c.name == "q":
                quit_ = True
                break
        if not deleted and not quiet:
            out.add(line + "\n")
        if quit_:
            break
    return out.data(), errors, 2 if errors else 0


# ----- cut ---------------------------------------------------------------------------------------------------
def _ranges(spec: str) -> list[tuple[int, int]]:
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                a, b = part.split("-", 1)
                start, end = int(a) if a else 1, int(b) if b else 1 << 62
            else:
                start = end = int(part)
        except ValueError:
            raise ToolError(f"cut: bad list '{spec}'") from None
        if start < 1 or end < start:
            raise ToolError(f"cut: bad list '{spec}'")
        out.append((start, end))
    if not out:
        raise ToolError("cut: empty list")
    return out


def _selected(n: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= n <= b for a, b in ranges)


def _option(args: list[str], i: int, flag: str) -> tuple[str, int]:
    """The value of `-fVALUE` or `-f VALUE` at args[i]; (value, next index)."""
    a = args[i]
    if len(a) > 2:
        return a[2:], i + 1
    if i + 1 >= len(args):
        raise ToolError(f"option -{flag} needs a value")
    return args[i + 1], i + 2


def cut(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    delim, mode, spec, only_delimited, files = "\t", "", "", False, []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-d"):
            delim, i = _option(args, i, "d")
            if len(delim) != 1:
                raise ToolError("cut: the delimiter must be a single character")
        elif a[:2] in ("-f", "-c", "-b"):
            mode = a[1]
            spec, i = _option(args, i, mode)
        elif a == "-s":
            only_delimited, i = True, i + 1
        elif a.startswith("-") and len(a) > 1:
            raise ToolError(f"cut: unknown option {a}")
        else:
            files.append(a)
            i += 1
    if not mode:
        raise ToolError("usage: cut -d DELIM -f LIST | -c LIST [FILE...]")
    ranges = _ranges(spec)
    inputs, errors = _inputs(files, stdin, read_file, "cut")
    out = _Out(limits.output)
    for _, text in inputs:
        for line in _lines(text):
            if mode in "cb":
                out.add("".join(ch for n, ch in enumerate(line, 1) if _selected(n, ranges)) + "\n")
            elif delim not in line:
                if not only_delimited:
                    out.add(line + "\n")
            else:
                fields = line.split(delim)
                out.add(delim.join(f for n, f in enumerate(fields, 1) if _selected(n, ranges)) + "\n")
    return out.data(), errors, 1 if errors else 0


# ----- head, tail, wc ----------------------------------------------------------------------------------------
def _head_tail_args(args: list[str], tool: str) -> tuple[str, str, list[str]]:
    """(unit "n"|"c", count text, files)."""
    unit, count, files = "n", "10", []
    i = 0
    while i < len(args):
        a = args[i]
        if a[:2] in ("-n", "-c"):
            unit = a[1]
            count, i = _option(args, i, unit)
        elif len(a) > 1 and a[0] == "-" and a[1:].isdigit():
            unit, count, i = "n", a[1:], i + 1
        elif a in ("-q", "-v"):
            i += 1
        elif a.startswith("-") and len(a) > 1:
            raise ToolError(f"{tool}: unknown option {a}")
        else:
            files.append(a)
            i += 1
    return unit, count, files


def _chunks(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def head(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    unit, count, files = _head_tail_args(args, "head")
    n = _count(count, "head")
    inputs, errors = _inputs(files, stdin, read_file, "head")
    out = _Out(limits.output)
    for name, text in inputs:
        if len(inputs) > 1:
            out.add(f"==> {name} <==\n")
        if unit == "c":
            data = text.encode("utf-8", errors="surrogateescape")
            out.add(_text(data[:n] if n >= 0 else data[:n]))
        else:
            lines = _chunks(text)
            out.add("".join(lines[:n] if n >= 0 else lines[:n]))
    return out.data(), errors, 1 if errors else 0


def tail(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    unit, count, files = _head_tail_args(args, "tail")
    from_start = count.startswith("+")
    n = abs(_count(count.lstrip("+"), "tail"))
    inputs, errors = _inputs(files, stdin, read_file, "tail")
    out = _Out(limits.output)
    for name, text in inputs:
        if len(inputs) > 1:
            out.add(f"==> {name} <==\n")
        items: list[str] | bytes = text.encode("utf-8", errors="surrogateescape") if unit == "c" else _chunks(text)
        picked = items[max(n - 1, 0):] if from_start else (items[-n:] if n else items[:0])
        out.add(_text(picked) if isinstance(picked, bytes) else "".join(picked))
    return out.data(), errors, 1 if errors else 0


def wc(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    flags = "".join(a[1:] for a in args if a.startswith("-") and len(a) > 1)
    files = [a for a in args if not (a.startswith("-") and len(a) > 1)]
    unknown = set(flags) - set("lwcm")
    if unknown:
        raise ToolError(f"wc: unknown option -{''.join(sorted(unknown))}")
    shown = [f for f in "lwmc" if f in flags] or ["l", "w", "c"]
    inputs, errors = _inputs(files, stdin, read_file, "wc")
    rows, totals = [], dict.fromkeys("lwmc", 0)
    for name, text in inputs:
        counts = {"l": text.count("\n"), "w": len(text.split()), "m": len(text),
                  "c": len(text.encode("utf-8", errors="surrogateescape"))}
        for k in totals:
            totals[k] += counts[k]
        rows.append((name if files else "", counts))
    if len(rows) > 1:
        rows.append(("total", totals))
    single = len(shown) == 1 and not files
    out = "".join((" ".join(str(c[k]) if single else f"{c[k]:7d}" for k in shown) + (f" {name}" if name else "")) + "\n"
                  for name, c in rows)
    return out.encode(), errors, 1 if errors else 0


# ----- awk ---------------------------------------------------------------------------------------------------
class _Next(Exception):
    """awk's `next`."""


class _Exit(Exception):
    """awk's `exit`."""


_AWK_TOKEN = regex.compile(r"""
    (?P<space>[ \t]+|\\\n)
  | (?P<newline>[\n;])
  | (?P<number>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||!~|\+\+|--|[-+*%<>!~=(){},$?:])
  | (?P<regex>/)
""", regex.X)


@dataclass
class _Tok:
    kind: str
    text: str


def _awk_tokens(program: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    i = 0
    while i < len(program):
        if program[i] == "#":
            while i < len(program) and program[i] != "\n":
                i += 1
            continue
        m = _AWK_TOKEN.match(program, i)
        if m is None:
            raise ToolError(f"awk: syntax error at '{program[i:i + 10]}'")
        kind = m.lastgroup or ""
        if kind == "regex":
            # a / starts a regex where an operand is expected, else it divides
            prev = tokens[-1] if tokens else None
            if prev is not None and (prev.kind in ("number", "string", "name") or prev.text in (")", "$")):
                tokens.append(_Tok("op", "/"))
                i = m.end()
                continue
            text, end = _sed_delimited(program, i + 1, "/")
            tokens.append(_Tok("regex", text))
            i = end
            continue
        if kind == "string":
            raw = m.group(0)[1:-1]
            text = regex.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), raw)
            tokens.append(_Tok("string", text))
        elif kind != "space":
            tokens.append(_Tok(kind, m.group(0)))
        i = m.end()
    return tokens


Node = tuple  # ("num", x) | ("str", s) | ("field", node) | ("var", name) | ("re", Pattern) | (op, a, b) ...


class _AwkParser:
    def __init__(self, tokens: list[_Tok], limits: Limits) -> None:
        self.t = tokens
        self.i = 0
        self.limits = limits

    def peek(self, offset: int = 0) -> _Tok | None:
        j = self.i + offset
        return self.t[j] if j < len(self.t) else None

    def take(self, text: str | None = None) -> _Tok:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text):
            raise ToolError(f"awk: syntax error: expected '{text}'" if text else "awk: unexpected end of program")
        self.i += 1
        return tok

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind != "string" and tok.text in texts

    def skip_newlines(self) -> None:
        while self.peek() is not None and self.peek().kind == "newline":  # type: ignore[union-attr]
            self.i += 1

    def program(self) -> list[tuple[object, list[Node]]]:
        rules: list[tuple[object, list[Node]]] = []
        self.skip_newlines()
        while self.peek() is not None:
            pattern: object = None
            if self.at("BEGIN", "END"):
                pattern = self.take().text
            elif not self.at("{"):
                pattern = self.expr()
            body = self.block() if self.at("{") else [("print", [])]
            rules.append((pattern, body))
            self.skip_newlines()
        return rules

    def block(self) -> list[Node]:
        self.take("{")
        statements: list[Node] = []
        while True:
            self.skip_newlines()
            if self.at("}"):
                self.take()
                return statements
            statements.append(self.statement())

    def statement(self) -> Node:
        if self.at("print", "printf"):
            name = self.take().text
            items: list[Node] = []
            if not (self.peek() is None or self.peek().kind == "newline" or self.at("}")):  # type: ignore[union-attr]
                items.append(self.expr(no_gt=True))
                while self.at(","):
                    self.take()
                    items.append(self.expr(no_gt=True))
            return (name, items)
        if self.at("next"):
            self.take()
            return ("next",)
        if self.at("exit"):
            self.take()
            return ("exit",)
        if self.at("if"):
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            self.skip_newlines()
            then = self.block() if self.at("{") else [self.statement()]
            otherwise: list[Node] = []
            save = self.i
            self.skip_newlines()
            if self.at("else"):
                self.take()
                self.skip_newlines()
                otherwise = self.block() if self.at("{") else [self.statement()]
            else:
                self.i = save
            return ("if", cond, then, otherwise)
        return ("expr", self.expr())

    # precedence: assignment < ternary < || < && < in/match < comparison < concatenation < additive < mul < unary
    def expr(self, no_gt: bool = False) -> Node:
        left = self.ternary(no_gt)
        if self.at("=", "+=", "-=", "*=", "/="):
            op = self.take().text
            if left[0] not in ("var", "field"):
                raise ToolError("awk: syntax error: assignment to a non-variable")
            return ("assign", op, left, self.expr(no_gt))
        return left

    def ternary(self, no_gt: bool) -> Node:
        cond = self.or_(no_gt)
        if self.at("?"):
            self.take()
            a = self.ternary(no_gt)
            self.take(":")
            return ("?", cond, a, self.ternary(no_gt))
        return cond

    def or_(self, no_gt: bool) -> Node:
        left = self.and_(no_gt)
        while self.at("||"):
            self.take()
            left = ("||", left, self.and_(no_gt))
        return left

    def and_(self, no_gt: bool) -> Node:
        left = self.match(no_gt)
        while self.at("&&"):
            self.take()
            left = ("&&", left, self.match(no_gt))
        return left

    def match(self, no_gt: bool) -> Node:
        left = self.compare(no_gt)
        while self.at("~", "!~"):
            op = self.take().text
            left = (op, left, self.compare(no_gt))
        return left

    def compare(self, no_gt: bool) -> Node:
        left = self.concat(no_gt)
        ops = ("<", "<=", "==", "!=", ">=") + (() if no_gt else (">",))
        if self.at(*ops):
            op = self.take().text
            left = (op, left, self.concat(no_gt))
        return left

    def concat(self, no_gt: bool) -> Node:
        left = self.additive()
        while True:
            tok = self.peek()
            if tok is None or tok.kind == "newline":
                return left
            if tok.kind in ("number", "string") or (tok.kind == "name" and tok.text not in _KEYWORDS) or (
                    tok.kind == "op" and tok.text in ("$", "(")):
                left = ("concat", left, self.additive())
            else:
                return left

    def additive(self) -> Node:
        left = self.mul()
        while self.at("+", "-"):
            op = self.take().text
            left = (op, left, self.mul())
        return left

    def mul(self) -> Node:
        left = self.unary()
        while self.at("*", "/", "%"):
            op = self.take().text
            left = (op, left, self.unary())
        return left

    def unary(self) -> Node:
        if self.at("!"):
            self.take()
            return ("not", self.unary())
        if self.at("-"):
            self.take()
            return ("neg", self.unary())
        if self.at("+"):
            self.take()
            return ("num+", self.unary())
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        if self.at("++", "--") and node[0] in ("var", "field"):
            op = self.take().text
            return ("assign", "+=" if op == "++" else "-=", node, ("num", 1.0))
        return node

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind == "number":
            return ("num", float(tok.text))
        if tok.kind == "string":
            return ("str", tok.text)
        if tok.kind == "regex":
            return ("re", Pattern(tok.text, self.limits))
        if tok.text == "$":
            return ("field", self.primary())
        if tok.text == "(":
            node = self.expr()
            self.take(")")
            return node
        if tok.kind == "name":
            if self.at("(") and tok.text in _FUNCTIONS:
                self.take("(")
                args: list[Node] = []
                if not self.at(")"):
                    args.append(self.expr())
                    while self.at(","):
                        self.take()
                        args.append(self.expr())
                self.take(")")
                return ("call", tok.text, args)
            if tok.text in ("length",):
                return ("call", "length", [])
            return ("var", tok.text)
        raise ToolError(f"awk: syntax error at '{tok.text}'")


_KEYWORDS = ("in", "else", "if", "print", "printf", "next", "exit", "BEGIN", "END", "getline")
_FUNCTIONS = ("length", "substr", "index", "toupper", "tolower", "int", "sprintf")


def _num(value: object) -> float:
    if isinstance(value, float):
        return value
    m = regex.match(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", str(value))
    return float(m.group(0)) if m else 0.0


def _str(value: object) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else f"{value:.6g}"
    return str(value)


def _looks_numeric(value: object) -> bool:
    return isinstance(value, float) or bool(regex.fullmatch(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*",
                                                             str(value)))


class _Awk:
    def __init__(self, separator: str | None, variables: dict[str, object], limits: Limits, out: _Out) -> None:
        self.vars: dict[str, object] = {"NR": 0.0, "NF": 0.0, "FS": separator if separator is not None else " ",
                                        "OFS": " ", "ORS": "\n", **variables}
        self.fields: list[str] = [""]
        self.limits = limits
        self.out = out
        self.patterns: dict[str, Pattern] = {}

    def set_record(self, line: str) -> None:
        fs = str(self.vars.get("FS", " "))
        if fs == " ":
            parts = line.split()
        elif len(fs) == 1:
            parts = line.split(fs)
        else:
            parts = regex.split(fs, line)
        self.fields = [line, *parts]
        self.vars["NF"] = float(len(parts))

    def pattern(self, source: str) -> Pattern:
        if source not in self.patterns:
            self.patterns[source] = Pattern(source, self.limits)
        return self.patterns[source]

    def field(self, index: object) -> str:
        n = int(_num(index))
        if n < 0:
            raise ToolError(f"awk: trying to access out of range field {n}")
        return self.fields[n] if n < len(self.fields) else ""

    def eval(self, node: Node) -> object:
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "str":
            return node[1]
        if kind == "re":
            return 1.0 if node[1].search(self.fields[0]) else 0.0
        if kind == "field":
            return self.field(self.eval(node[1]))
        if kind == "var":
            if node[1] == "NF":
                return float(len(self.fields) - 1)
            return self.vars.get(node[1], "")
        if kind == "assign":
            _, op, target, value_node = node
            value = self.eval(value_node)
            if op != "=":
                current = _num(self.eval(target))
                value = {"+=": current + _num(value), "-=": current - _num(value), "*=": current * _num(value),
                         "/=": current / _num(value) if _num(value) else float("nan")}[op]
            if target[0] == "var":
                self.vars[target[1]] = value
            else:
                n = int(_num(self.eval(target[1])))
                if not 0 <= n <= 10_000:
                    raise ToolError(f"awk: field index {n} out of range")
                while len(self.fields) <= n:
                    self.fields.append("")
                self.fields[n] = _str(value)
                if n:
                    self.fields[0] = str(self.vars.get("OFS", " ")).join(self.fields[1:])
            return value
        if kind == "concat":
            return _str(self.eval(node[1])) + _str(self.eval(node[2]))
        if kind in ("+", "-", "*", "/", "%"):
            a, b = _num(self.eval(node[1])), _num(self.eval(node[2]))
            if kind in "/%" and b == 0:
                raise ToolError("awk: division by zero")
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / (b or 1), "%": a % (b or 1)}[kind]
        if kind == "neg":
            return -_num(self.eval(node[1]))
        if kind == "num+":
            return _num(self.eval(node[1]))
        if kind == "not":
            return 0.0 if self.truth(self.eval(node[1])) else 1.0
        if kind == "&&":
            return 1.0 if self.truth(self.eval(node[1])) and self.truth(self.eval(node[2])) else 0.0
        if kind == "||":
            return 1.0 if self.truth(self.eval(node[1])) or self.truth(self.eval(node[2])) else 0.0
        if kind == "?":
            return self.eval(node[2]) if self.truth(self.eval(node[1])) else self.eval(node[3])
        if kind in ("~", "!~"):
            right = node[2]
            pattern = right[1] if right[0] == "re" else self.pattern(_str(self.eval(right)))
            hit = pattern.search(_str(self.eval(node[1]))) is not None
            return 1.0 if hit == (kind == "~") else 0.0
        if kind in ("<", "<=", "==", "!=", ">=", ">"):
            a, b = self.eval(node[1]), self.eval(node[2])
            if _looks_numeric(a) and _looks_numeric(b):
                x, y = _num(a), _num(b)
                result = {"<": x < y, "<=": x <= y, "==": x == y, "!=": x != y, ">=": x >= y, ">": x > y}[kind]
            else:
                s, t = _str(a), _str(b)
                result = {"<": s < t, "<=": s <= t, "==": s == t, "!=": s != t, ">=": s >= t, ">": s > t}[kind]
            return 1.0 if result else 0.0
        if kind == "call":
            return self.call(node[1], [self.eval(a) for a in node[2]])
        raise ToolError(f"awk: cannot evaluate {kind}")

    def call(self, name: str, args: list[object]) -> object:
        if name == "length":
            return float(len(_str(args[0]) if args else self.fields[0]))
        if name == "substr" and len(args) >= 2:
            s = _str(args[0])
            start = int(_num(args[1]))
            length = int(_num(args[2])) if len(args) > 2 else len(s)
            begin = max(start, 1)
            end = start + length
            return s[begin - 1:max(end - 1, begin - 1)]
        if name == "index" and len(args) == 2:
            return float(_str(args[0]).find(_str(args[1])) + 1)
        if name == "toupper" and args:
            return _str(args[0]).upper()
        if name == "tolower" and args:
            return _str(args[0]).lower()
        if name == "int" and args:
            return float(int(_num(args[0])))
        if name == "sprintf" and args:
            return self.format(_str(args[0]), args[1:])
        raise ToolError(f"awk: bad call of {name}")

    def format(self, fmt: str, args: list[object]) -> str:
        values = iter(args)

        def one(m: regex.Match[str]) -> str:
            spec = m.group(0)
            if spec == "%%":
                return "%"
            value = next(values, "")
            conv = spec[-1]
            try:
                if conv in "di":
                    return (spec[:-1] + "d") % int(_num(value))
                if conv in "eEfgG":
                    return spec % _num(value)
                if conv == "c":
                    return _str(value)[:1]
                return (spec[:-1] + "s") % _str(value)
            except (ValueError, OverflowError):
                raise ToolError(f"awk: bad format '{spec}'") from None
        return regex.sub(r"%(?:%|[-+ #0]*\d{0,4}(?:\.\d{0,4})?[diouxXeEfgGcs])", one, fmt)

    @staticmethod
    def truth(value: object) -> bool:
        if isinstance(value, float):
            return value != 0
        return value != "" and not (_looks_numeric(value) and _num(value) == 0)

    def run(self, statements: list[Node]) -> None:
        for s in statements:
            kind = s[0]
            if kind == "print":
                items = s[1]
                text = (str(self.vars.get("OFS", " ")).join(_str(self.eval(i)) for i in items) if items
                        else self.fields[0])
                self.out.add(text + str(self.vars.get("ORS", "\n")))
            elif kind == "printf":
                if not s[1]:
                    raise ToolError("awk: printf needs a format")
                self.out.add(self.format(_str(self.eval(s[1][0])), [self.eval(i) for i in s[1][1:]]))
            elif kind == "next":
                raise _Next()
            elif kind == "exit":
                raise _Exit()
            elif kind == "if":
                self.run(s[2] if self.truth(self.eval(s[1])) else s[3])
            else:
                self.eval(s[1])


def awk(args: list[str], stdin: bytes, read_file: ReadFile, limits: Limits) -> Result:
    separator: str | None = None
    variables: dict[str, object] = {}
    program: str | None = None
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if program is None and a.startswith("-F"):
            separator, i = _option(args, i, "F")
            separator = "\t" if separator == "\\t" else separator
            continue
        if program is None and a == "-v" and i + 1 < len(args):
            name, _, value = args[i + 1].partition("=")
            variables[name] = value
            i += 2
            continue
        if program is None:
            program = a
        else:
            files.append(a)
        i += 1
    if program is None:
        raise ToolError("usage: awk [-F SEP] [-v VAR=VALUE] 'PROGRAM' [FILE...]")
    try:
        rules = _AwkParser(_awk_tokens(program), limits).program()
    except RecursionError:
        raise ToolError("awk: program too deeply nested") from None
    inputs, errors = _inputs(files, stdin, read_file, "awk")
    out = _Out(limits.output)
    machine = _Awk(separator, variables, limits, out)
    try:
        try:
            for pattern, body in rules:
                if pattern == "BEGIN":
                    machine.run(body)
            for _, text in inputs:
                for line in _lines(text):
                    machine.vars["NR"] = _num(machine.vars["NR"]) + 1
                    machine.set_record(line)
                    try:
                        for pattern, body in rules:
                            if pattern in ("BEGIN", "END"):
                                continue
                            if pattern is None or machine.truth(machine.eval(pattern)):  # type: ignore[arg-type]
                                machine.run(body)
                    except _Next:
                        continue
        except _Exit:
            pass
        for pattern, body in rules:
            if pattern == "END":
                try:
                    machine.run(body)
                except (_Next, _Exit):
                    break
    except RecursionError:
        raise ToolError("awk: expression too deeply nested") from None
    return out.data(), errors, 2 if errors else 0


TOOLS: dict[str, Callable[[list[str], bytes, ReadFile, Limits], Result]] = {
    "grep": grep, "egrep": lambda a, s, r, l: grep(["-E", *a], s, r, l), "fgrep": lambda a, s, r, l: grep(["-F", *a], s, r, l),
    "sed": sed, "awk": awk, "cut": cut, "head": head, "tail": tail, "wc": wc,
}

__all__ = ["TOOLS", "run_tool", "Limits", "Pattern", "basic_regex", "MAX_OUTPUT", "PATTERN_SECONDS"]
