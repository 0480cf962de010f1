"""The sources of candidates, a module each: each yields candidates (or facts about names) with
named features, and the one ranker (treecomplete.ranking) orders them.

- buffer: the buffer's words around the cursor, and the code after it
- project, project_files: the workspace's files on disk (the project index)
- libraries/: what the file imports (standard-library stubs, site-packages, node_modules, .d.ts)
  and the class around the cursor; members: those members in the list
- declarations, declaring: where a name is declared (``def |``, a class's members, a parameter)
  and what its block has declared already or still needs
- echoes: what a position repeats (the name across the ``=``)
- imports: import positions and the modules they name
- chains: the model's multi-token continuations; snippets: its predicted statements
- auto_import: names the file has not imported yet, with the import each needs (import_edits
  writes it; bound: whether the buffer binds a name already; installed: the packages installed)
"""
