"""The syntax check Go's `encoding/json` runs before decoding (`checkValid`),
with its error texts, so a constraints annotation that does not parse is
reported as Kueue's webhook reports it."""

from __future__ import annotations


class SyntaxError_(ValueError):
    pass


def _quote(c: str) -> str:
    # encoding/json quoteChar
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    escapes = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f",
               "\v": "\\v"}
    if c in escapes:
        return f"'{escapes[c]}'"
    if ord(c) < 0x20 or ord(c) == 0x7f:
        return f"'\\x{ord(c):02x}'"
    if 0x80 <= ord(c) < 0xa0 or ord(c) == 0xad:
        return f"'\\u{ord(c):04x}'"
    return f"'{c}'"


def _err(c: str, context: str):
    raise SyntaxError_(f"invalid character {_quote(c)} {context}")


_SPACE = " \t\r\n"


def check(text: str) -> None:
    """Raise SyntaxError_ with Go's message when `text` is not valid JSON."""
    # the scanner works on bytes: a non-ASCII character is reported by its
    # first UTF-8 byte, read as a code point
    text = text.encode().decode("latin-1")
    pos = _value(text, _skip(text, 0), top=True)
    pos = _skip(text, pos)
    if pos < len(text):
        _err(text[pos], "after top-level value")


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _SPACE:
        i += 1
    return i


def _end(s: str, i: int) -> None:
    if i >= len(s):
        raise SyntaxError_("unexpected end of JSON input")


def _char(s: str, i: int) -> str:
    # At the end of the input the scanner is fed one space: inside a number, a
    # literal or an escape that space is the character it complains about.
    return s[i] if i < len(s) else " "


def _value(s: str, i: int, top: bool = False) -> int:
    _end(s, i)
    c = s[i]
    if c == "{":
        return _object(s, i + 1)
    if c == "[":
        return _array(s, i + 1)
    if c == '"':
        return _string(s, i + 1)
    if c == "-" or c.isdigit() and c.isascii():
        return _number(s, i)
    for word in ("true", "false", "null"):
        if c == word[0]:
            for j, expected in enumerate(word[1:], start=1):
                if _char(s, i + j) != expected:
                    _err(_char(s, i + j), f"in literal {word} (expecting {_quote(expected)})")
            return i + len(word)
    _err(c, "looking for beginning of value")


def _object(s: str, i: int) -> int:
    i = _skip(s, i)
    _end(s, i)
    if s[i] == "}":
        return i + 1
    while True:
        _end(s, i)
        if s[i] != '"':
            _err(s[i], "looking for beginning of object key string")
        i = _skip(s, _string(s, i + 1))
        _end(s, i)
        if s[i] != ":":
            _err(s[i], "after object key")
        i = _skip(s, _value(s, _skip(s, i + 1)))
        _end(s, i)
        if s[i] == "}":
            return i + 1
        if s[i] != ",":
            _err(s[i], "after object key:value pair")
        i = _skip(s, i + 1)


def _array(s: str, i: int) -> int:
    i = _skip(s, i)
    _end(s, i)
    if s[i] == "]":
        return i + 1
    while True:
        i = _skip(s, _value(s, _skip(s, i)))
        _end(s, i)
        if s[i] == "]":
            return i + 1
        if s[i] != ",":
            _err(s[i], "after array element")
        i += 1


def _string(s: str, i: int) -> int:
    while True:
        _end(s, i)
        c = s[i]
        if c == '"':
            return i + 1
        if c == "\\":
            e = _char(s, i + 1)
            if e in 'bfnrt\\/"':
                i += 2
                continue
            if e == "u":
                for j in range(2, 6):
                    if _char(s, i + j) not in "0123456789abcdefABCDEF":
                        _err(_char(s, i + j), "in \\u hexadecimal character escape")
                i += 6
                continue
            _err(e, "in string escape code")
        if ord(c) < 0x20:
            _err(c, "in string literal")
        i += 1


def _number(s: str, i: int) -> int:
    def digit(j):
        c = _char(s, j)
        return c.isascii() and c.isdigit()

    if s[i] == "-":
        i += 1
        if not digit(i):
            _err(_char(s, i), "in numeric literal")
    if s[i] == "0":
        i += 1
    else:
        while i < len(s) and digit(i):
            i += 1
    if i < len(s) and s[i] == ".":
        i += 1
        if not digit(i):
            _err(_char(s, i), "after decimal point in numeric literal")
        while i < len(s) and digit(i):
            i += 1
    if i < len(s) and s[i] in "eE":
        i += 1
        if _char(s, i) in "+-" and i < len(s):
            i += 1
        if not digit(i):
            _err(_char(s, i), "in exponent of numeric literal")
        while i < len(s) and digit(i):
            i += 1
    return i
