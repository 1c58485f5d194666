"""Edit generation: a model writes a patch under a grammar built from the files it edits.

``lines`` turns a file snapshot into its lines and their distinguishing prefixes; ``grammar``
holds what both formats share; ``grammar_search_replace`` and ``grammar_udiff`` build the
file-aware grammars; ``prompt`` writes the messages; ``edit.generate_edit`` runs the model through
``gramwright.generation`` and hands the output to the patch library (:mod:`gramwright.editors.patch`)
to parse, check and apply. This package sits above the patch library and generation.
"""
