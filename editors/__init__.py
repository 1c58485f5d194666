"""Patch formats (SEARCH/REPLACE blocks, unified diffs): grammar builders, parsers, applicability
checks and atomic apply. Built on the same grammar IR and engine as everything else."""
