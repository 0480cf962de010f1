"""Completion engines: each turns a CompletionContext into ranked candidates."""
