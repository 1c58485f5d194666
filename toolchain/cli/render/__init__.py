"""How each command prints: one module per command group, named after it.

Each module turns the core's result object into the command's human text (and builds the JSON
payload where it is more than the result's own ``to_dict``/``as_dict``); the command modules in
:mod:`gramwright.cli` parse options, call the core and write what these return. The lint report's
human, JSON and SARIF forms are the library's own (:mod:`gramwright.lint.render`, also used by the
TUI); :mod:`gramwright.cli.render.lint` adds the CLI's baseline views around them.

=================  =====================================================
``apply``          ``apply``, ``undo``, ``history``
``edit``           ``edit``
``generate``       ``generate``
``grammar``        ``compile``, ``check`` (and their ``--target`` / ``--engine``)
``lint``           ``lint`` (baseline views)
``pipeline``       ``validate``, ``extract``, ``report``
``cache``          ``cache info``, ``cache clear``, ``warm``
``conformance``    ``conformance``
``snapshot``       ``snapshot``
=================  =====================================================
"""
