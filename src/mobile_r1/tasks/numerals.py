"""Numbers written in words, as task lines write them: 'four', 'third', 'twenty-one', '四', '第三', '十二', '4'.

    numeral_value("four-minute".split("-")[0])   # 4
    numeral_value("third")                       # 3
    numeral_value("第十二")                       # 12

A template reads a spoken amount off a line as text (`{minutes}` in "a four-minute timer"); a parameter
`{numeral: "{minutes}"}` gives the number it stands for, so goals and typed values can use it.
"""

from __future__ import annotations

import re

from mobile_r1.core.errors import ConfigError

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fifth": 5, "eighth": 8, "ninth": 9, "twelfth": 12}
_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)} | _TENS | {"a": 1, "an": 1, "a hundred": 100,
                                                                         "one hundred": 100}
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _english(word: str) -> int | None:
    if word in _WORDS:
        return _WORDS[word]
    if word in _ORDINALS:
        return _ORDINALS[word]
    if word.endswith("ieth") and word[:-4] + "y" in _TENS:  # twentieth
        return _TENS[word[:-4] + "y"]
    if word.endswith("th") and word[:-2] in _WORDS:  # fourth, sixteenth
        return _WORDS[word[:-2]]
    parts = re.split(r"[\s-]+", word)
    if len(parts) == 2 and parts[0] in _TENS:  # twenty-one, thirty first
        rest = _english(parts[1])
        if rest is not None and 0 < rest < 10:
            return _TENS[parts[0]] + rest
    return None


def _chinese(text: str) -> int | None:
    if not text or any(ch not in _ZH_DIGITS and ch not in "十百" for ch in text):
        return None
    total, current = 0, 0
    for ch in text:
        if ch == "百":
            total += (current or 1) * 100
            current = 0
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        else:
            current = current * 10 + _ZH_DIGITS[ch] if current else _ZH_DIGITS[ch]
    return total + current


def numeral_value(text: str) -> int:
    """The whole number `text` writes: digits ('4', '4th'), English words or ordinals ('four', 'twenty-one', 'third'),
    or Chinese numerals, with or without 第 ('四', '十二', '第三'). A ConfigError says what could not be read."""
    clean = str(text).strip().lower()
    clean = re.sub(r"^第\s*", "", clean)
    digits = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", clean)
    if digits:
        return int(digits.group(1))
    found = _english(clean)
    if found is None:
        found = _chinese(clean)
    if found is None:
        raise ConfigError(f"{text!r} is not a number this simulator reads (digits, English words such as 'four' or "
                          "'third', or Chinese numerals such as '四' or '第三')")
    return found


__all__ = ["numeral_value"]
