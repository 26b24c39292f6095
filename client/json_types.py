"""JSON as the service sends it, typed: `JSONValue` is any JSON value, `JSON` an object.

A leaf module (nothing of ours imported), so every layer can name what it reads from a JSON
text without reaching for `Any`; the code that reads one narrows it with isinstance.
"""

from __future__ import annotations

from typing import TypeAlias

#: A JSON scalar as `json.loads` returns it.
JSONScalar: TypeAlias = None | bool | int | float | str
#: Any JSON value: a scalar, an array of values, an object of values.
JSONValue: TypeAlias = "JSONScalar | list[JSONValue] | dict[str, JSONValue]"
#: A JSON object.
JSON: TypeAlias = "dict[str, JSONValue]"
