"""Test helpers for projects that use gramwright: the pytest plugin (:mod:`.pytest_plugin`, loaded
through the ``pytest11`` entry point: a ``gramwright_snapshot`` fixture and
``--gramwright-update``) and syrupy extensions for GBNF and Lark text (:mod:`.syrupy`). Nothing is
imported here, so the plugin costs a pytest run in a user's project next to nothing."""
