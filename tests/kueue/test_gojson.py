"""The JSON syntax messages of the constraints annotation, as Go's
encoding/json words them."""

import pytest

from reference_impl.kueue.gojson import SyntaxError_, check


@pytest.mark.parametrize("text,message", [
    ("not json", "invalid character 'o' in literal null (expecting 'u')"),
    ("", "unexpected end of JSON input"),
    ("[", "unexpected end of JSON input"),
    ("[1,]", "invalid character ']' looking for beginning of value"),
    ("[1 2]", "invalid character '2' after array element"),
    ("{,}", "invalid character ',' looking for beginning of object key string"),
    ('{"a" 1}', "invalid character '1' after object key"),
    ('{"a":1 "b"}', "invalid character '\"' after object key:value pair"),
    ("[] x", "invalid character 'x' after top-level value"),
    ("-", "invalid character ' ' in numeric literal"),
    ("1.", "invalid character ' ' after decimal point in numeric literal"),
    ("1e+", "invalid character ' ' in exponent of numeric literal"),
    ("tru", "invalid character ' ' in literal true (expecting 'e')"),
    ('"a\\x"', "invalid character 'x' in string escape code"),
    ('"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"),
    ('"a\tb"', "invalid character '\\t' in string literal"),
    ("é", "invalid character 'Ã' looking for beginning of value"),
    ("'a'", "invalid character '\\'' looking for beginning of value"),
])
def test_syntax_messages(text, message):
    with pytest.raises(SyntaxError_) as info:
        check(text)
    assert str(info.value) == message


@pytest.mark.parametrize("text", ['[{"topology": "a", "size": 2}]', " null ", "0.5e-3", '"\\u00e9"', "[]"])
def test_valid_json_passes(text):
    check(text)
