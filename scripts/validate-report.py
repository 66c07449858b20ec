#!/usr/bin/env python3
"""Validate gpuspec reports against the report JSON Schema (draft 2020-12).

    validate-report.py [--expect-invalid] SCHEMA FILE_OR_FOLDER...

Prints one line per file: "ok: FILE", or "FILE: FIELD: MESSAGE" with the field path written
as the C++ loader writes it (results[3].stats.median). A folder stands for the *.json files in
it (at least one). The JSON is read strictly, as the C++ loader reads it: NaN, Infinity and
duplicate keys are errors.

Exit status: 0 every file valid, 1 any file invalid (with --expect-invalid: 0 when every file
is invalid, 1 when any is valid), 2 bad usage or a bad schema, 77 when the `jsonschema` module
is missing (CTest's SKIP_RETURN_CODE; CI installs it: pip install jsonschema).
"""

import json
import os
import re
import sys
from pathlib import Path

EXIT_SKIP = 77
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def field_path(parts):
    """results[3].stats.median; keys that are not identifiers as ["ecc.volatile"]."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif IDENTIFIER.match(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    return text or "(document)"


class StrictJSONError(ValueError):
    pass


def reject_constant(name):
    raise StrictJSONError(f"{name} is not JSON (a report never holds NaN or infinity)")


def reject_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise StrictJSONError(f"duplicate key {json.dumps(key)}")
        seen[key] = value
    return seen


def load_strict(path):
    with open(path, "rb") as stream:
        data = stream.read()
    if not data.strip():
        raise StrictJSONError("the file is empty, not a report")
    return json.loads(data.decode("utf-8"), parse_constant=reject_constant,
                      object_pairs_hook=reject_duplicates)


def expand(arguments):
    files = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                print(f"{path}: no *.json files in this folder", file=sys.stderr)
                sys.exit(2)
            files.extend(found)
        else:
            files.append(path)
    return files


def shorten(text, limit=300):
    return text if len(text) <= limit else text[:limit] + "..."


def check_file(validator, path):
    """None when the file is a valid report, else the line that says why not."""
    import jsonschema

    try:
        document = load_strict(path)
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: (document): cannot read: {error}"
    except ValueError as error:  # json.JSONDecodeError and StrictJSONError
        return f"{path}: (document): not valid JSON: {error}"
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is None:
        return None
    field, message = describe(error)
    return f"{path}: {field_path(field)}: {shorten(message)}"


JSON_TYPES = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
              (list, "an array"), (dict, "an object"), (type(None), "null"))


def json_type(value):
    return next(name for kind, name in JSON_TYPES if isinstance(value, kind))


def describe(error):
    """The field path and message, worded as the C++ loader words them where they differ:
    a missing or unknown key is named in the path, and a wrong type does not dump the value."""
    field = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        missing = [key for key in error.validator_value if key not in instance]
        if missing:
            return field + [missing[0]], "missing; every field of a report is written (null when not known)"
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {}))
        unknown = [key for key in instance if key not in known]
        if unknown:
            return field + [unknown[0]], "unknown field"
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return field, f"expected {expected}, got {json_type(instance)}"
    return field, error.message


def main(argv):
    arguments = argv[1:]
    expect_invalid = False
    if arguments and arguments[0] == "--expect-invalid":
        expect_invalid = True
        arguments = arguments[1:]
    if len(arguments) < 2 or any(a.startswith("--") for a in arguments):
        print(__doc__.strip(), file=sys.stderr)
        return 2

    try:
        import jsonschema
    except ImportError:
        # CI sets GPUSPEC_REQUIRE_JSONSCHEMA=1: there a missing validator is a failure, not a skip.
        if os.environ.get("GPUSPEC_REQUIRE_JSONSCHEMA") == "1":
            print("error: the Python module jsonschema is required (GPUSPEC_REQUIRE_JSONSCHEMA=1) "
                  "but not importable; run scripts/install-deps.sh", file=sys.stderr)
            return 1
        print("skipped: the Python module jsonschema is not installed (scripts/install-deps.sh "
              "puts it in .deps/python)", file=sys.stderr)
        return EXIT_SKIP

    try:
        schema = load_strict(arguments[0])
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as error:
        print(f"{arguments[0]}: not a usable schema: {error}", file=sys.stderr)
        return 2
    validator = validator_class(schema)

    valid_count = 0
    files = expand(arguments[1:])
    for path in files:
        problem = check_file(validator, path)
        if problem is None:
            valid_count += 1
            print(f"{path}: valid, but expected to be rejected" if expect_invalid else f"ok: {path}")
        else:
            print(f"rejected as expected: {problem}" if expect_invalid else problem)

    if expect_invalid:
        return 0 if valid_count == 0 else 1
    return 0 if valid_count == len(files) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
