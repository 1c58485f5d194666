"""What several test modules share and no fixture expresses: hypothesis strategies, reference
checkers, small builders. Fixtures live in the ``conftest.py`` files; test modules import from
here, never from each other."""
