"""Neural completion models and their data: the node-sequence representation (flatten),
vocabularies and pointer labels (vocab), corpora (corpus, store, stats). Architectures, training
and the shipped checkpoints join them; the server's engine interface (treecomplete.engines.base)
is what a model plugs into."""
