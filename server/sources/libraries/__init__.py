"""What the code's libraries and classes define, read from their source, never run: the
members a receiver before a dot has (``os.path.`` -> ``join``), found off the request path."""
