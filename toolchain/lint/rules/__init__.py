"""The lint rules, one module per concern; importing this package registers them all."""

from gramwright.lint.rules import (  # noqa: F401 - imported for their registrations
    arrays,
    budget,
    compile,
    compose,
    enums,
    examples,
    grounding,
    meta,
    numbers,
    objects,
    quality,
    refs,
    runtime,
    sat,
    size,
    strings,
)
