"""Kubernetes resource quantities ("16Gi", "500m", "1e3"): the one parser of
the distribution.

What it accepts is what apimachinery's `resource.ParseQuantity` accepts, read
from `k8s.io/apimachinery/pkg/api/resource/quantity.go` (the documented grammar
and the scanner behind it), and the value it gives is the exact value the
resulting `resource.Quantity` holds:

* a number: an optional sign, decimal digits, optionally a point and more
  digits (`5`, `5.`, `.5`, `+1.25`);
* then exactly one suffix, never two: a binary one (`Ki Mi Gi Ti Pi Ei`), a
  decimal one (`n u m`, none, `k M G T P E`), or a decimal exponent, `e` or `E`
  followed by a signed integer (`1e3`, `1E-3`, `2e+6`). A capital `E` alone is
  the exa suffix (`1E` is 10^18), with digits after it an exponent (`1E3` is
  1000). An exponent combined with a suffix (`1e3Ki`) is refused, as is an
  exponent without digits (`1e`, `1e+`) or with a fraction (`1e1.5`);
* like upstream's scanner, the digits may be missing altogether: `.`, `+`,
  `-` and a bare suffix (`Mi`) are zero. The documented grammar asks for a
  digit; the parser Kubernetes runs does not, and the components read their
  objects through that parser;
* values are rounded away from zero to a whole number of nano units (`0.1n`
  is `1n`), and a binary-suffixed value beyond the int64 range is capped at
  2^63-1 in magnitude, as `ParseQuantity` does. Decimal forms are not capped
  (upstream's integer views of them overflow; no component here relies on
  that); the exponent is read as an int64 and cut to its low 32 bits, as
  upstream does (`1e4294967296` is 1); then a decimal exponent above 10^4 in
  magnitude is refused rather than built, one below it only decides that a
  non-zero value is one nano unit.

Text is stripped of surrounding white space first, as `Quantity.UnmarshalJSON`
does for a quantity inside an object. Integers are exact. A float (YAML's
`cpu: 0.1`) is read by its shortest decimal text, `repr`, which is also the
text a JSON encoder writes and so what an implementation behind the protocol
receives: `0.1` is 100m, never the binary double just above it. Booleans, other
types and non-finite floats are not quantities.

`parse` raises `QuantityError` (a `ValueError`); `parse_input` raises the
reference's `InvalidInput` naming the input field instead, for a quantity
whose breakage makes the whole input unusable; a component that refuses such
a value on its own terms catches `QuantityError`. The components read a
quantity through `resource.Quantity`'s integer views, `value` (`Value()`) and
`milli_value` (`MilliValue()`), both rounded up; `is_quantity` is the one
test of whether a value is a quantity at all.

The harness (`conformance/`) uses this module too: both packages ship in the
same distribution (one wheel), the harness already imports `reference_impl`
for its in-process adapter, and this module imports nothing but the standard
library (and `reference_impl.errors`, which imports nothing), so sharing it
adds no dependency. The reverse would not do: nothing in
`reference_impl/` may know the harness. The cost is that a grammar mistake here
would be made by judge and reference alike; the answers of the upstream
implementations behind the shims, and `tests/test_quantity.py` (values worked
out by hand), are the checks against that.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from .errors import InvalidInput

__all__ = ["QuantityError", "is_quantity", "milli_value", "parse", "parse_input", "value"]


class QuantityError(ValueError):
    """The value is not a Kubernetes quantity."""


# Exponents of ten, and of two, each suffix stands for.
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

# Sign, whole digits, fraction digits, then the suffix region as upstream's
# scanner delimits it: letters that may start a suffix, a sign, digits. What the
# region holds is judged afterwards by _scale.
_SHAPE = re.compile(r"([+-]?)([0-9]*+)(?:\.([0-9]*+))?([eEinumkKMGTP]*+[+-]?[0-9]*+)", re.ASCII)
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)", re.ASCII)

_INT64_MAX = (1 << 63) - 1
_NANO = Fraction(1, 10**9)
_EXPONENT_LIMIT = 10**4
_INT32_EXPONENT_FLOOR = -(1 << 31) + 1000

# What Go's unicode.IsSpace counts as white space (str.isspace would also take
# the separators U+001C-U+001F).
_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def parse(value: object) -> Fraction:
    """The exact value of a quantity written as text, an integer or a float."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"not a quantity: {value!r}")
        return _parse_text(repr(value), value)
    if isinstance(value, str):
        return _parse_text(value.strip(_SPACE), value)
    raise QuantityError(f"not a quantity: {value!r}")


def parse_input(value: object, field: str) -> Fraction:
    """`parse`, with a value that is no quantity refused as invalid input."""
    try:
        return parse(value)
    except QuantityError as exc:
        raise InvalidInput(field, str(exc)) from None


def is_quantity(value: object) -> bool:
    try:
        parse(value)
    except QuantityError:
        return False
    return True


def value(amount: Fraction) -> int:
    """`Quantity.Value()`: whole units, rounded up."""
    return math.ceil(amount)


def milli_value(amount: Fraction) -> int:
    """`Quantity.MilliValue()`: thousandths, rounded up."""
    return math.ceil(amount * 1000)


def _parse_text(text: str, original: object) -> Fraction:
    shape = _SHAPE.fullmatch(text) if text else None
    if shape is None:
        raise QuantityError(f"not a quantity: {original!r}")
    sign, whole, fraction, suffix = shape.groups()
    scale = _scale(suffix)
    if scale is None:
        raise QuantityError(f"not a quantity: {original!r} (unknown suffix {suffix!r})")
    base, power = scale
    digits = (whole or "") + (fraction or "")
    mantissa = Fraction(int(digits or "0"), 10 ** len(fraction or ""))
    if sign == "-":
        mantissa = -mantissa
    if base == 2:
        amount = mantissa * (1 << power)
        amount = _round_to_nano(amount)
        if abs(amount) > _INT64_MAX:
            amount = _INT64_MAX if amount > 0 else -_INT64_MAX
        return Fraction(amount)
    if power > _EXPONENT_LIMIT:
        raise QuantityError(f"not a quantity: {original!r} (exponent out of range)")
    if power < -_EXPONENT_LIMIT:
        return Fraction(0) if mantissa == 0 else (_NANO if mantissa > 0 else -_NANO)
    return _round_to_nano(mantissa * Fraction(10) ** power)


def _scale(suffix: str) -> tuple[int, int] | None:
    """(base, power) a suffix multiplies by, or None when it is no suffix."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    exponent = _EXPONENT.fullmatch(suffix)
    if exponent is None:
        return None
    power = int(exponent.group(1))
    if not -(1 << 63) <= power <= _INT64_MAX:
        return None  # upstream reads the exponent as an int64 and refuses more
    # ...and then keeps only its low 32 bits as a signed int32: 1e4294967296 is 1.
    power = (power + (1 << 31)) % (1 << 32) - (1 << 31)
    if power < _INT32_EXPONENT_FLOOR:
        # Near -2^31 upstream's scale arithmetic wraps a second time (negating
        # -2^31, subtracting the fraction's digits) into a huge positive scale;
        # such a value is refused like any exponent beyond the limit.
        return 10, _EXPONENT_LIMIT + 1
    return 10, power


def _round_to_nano(amount: Fraction) -> Fraction:
    """Rounded away from zero to a whole number of nano units."""
    nanos = amount / _NANO
    if nanos.denominator == 1:
        return amount
    whole = math.ceil(nanos) if nanos > 0 else math.floor(nanos)
    return whole * _NANO
