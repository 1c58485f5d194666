"""The patch library: parse a patch in any of the three formats, locate its edits, check, apply
all-or-nothing with a journal, and undo.

Pure file work: it imports only the error root (``gramwright.errors``) and the file utilities
(``gramwright.fsutil``), never a grammar, the engine, a model or torch (an import contract). The
public names are re-exported by :mod:`gramwright.editors`.

* parse: ``parse_search_replace``, ``parse_udiff`` (with ``recount``), ``parse_apply_patch``;
  ``detect`` picks the format; all three return the one data model in ``model``.
* locate: ``match`` (exact and tolerant levels), ``locate``, ``nearest`` (the closest lines when
  nothing matches).
* check: ``check`` (every edit against the files, ``splice`` computes the new content) →
  ``report``; ``preview`` renders it as a diff.
* apply: ``apply`` → ``transaction`` (atomic writes) and ``journal``; ``undo``.
"""
