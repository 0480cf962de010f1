"""Neural completion models: architectures, data pipeline, training and shipped checkpoints.

Empty for now: the server's engine interface (treecomplete.engines.base) is what a model
plugs into.
"""
