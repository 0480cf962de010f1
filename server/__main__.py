"""``python -m treecomplete``: the language server, as ``treecomplete-ls`` (editors use this form
when they know the Python interpreter but not the PATH)."""

from .main import main

main()
