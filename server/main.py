"""``treecomplete-ls``: start the language server. stdout carries the protocol and nothing else."""

from __future__ import annotations

import argparse
import gc
import logging
import sys

from . import __version__
from .memory import IDLE, IdleCollections
from .startup import GeneratedCode

EXIT_WAIT = 10.0  # seconds the process waits at exit for a model still loading (one takes ~1.5 s)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="treecomplete-ls", description="treecomplete language server (LSP)."
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (default)")
    transport.add_argument("--tcp", action="store_true", help="listen on a TCP port instead")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default %(default)s)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default %(default)s)")
    parser.add_argument("--log-file", help="write the log here instead of stderr")
    parser.add_argument(
        "--log-level",
        default="INFO",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log level (default %(default)s)",
    )
    parser.add_argument("--version", action="version", version=f"treecomplete-ls {__version__}")
    return parser.parse_args(argv)


def setup_logging(level: str, log_file: str | None) -> None:
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    # pygls logs every message body at INFO: a 20 MB didOpen would be written out whole.
    if level != "DEBUG":
        logging.getLogger("pygls").setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> None:
    # No collections while start-up imports: lsprotocol alone builds ~570 attrs classes, and a
    # collection every few hundred of its allocations cost ~45 ms of the time to answer
    # initialize. What garbage start-up leaves (17k small objects, mostly the classes attrs
    # replaces by slotted ones) is frozen with the rest below: collecting it would take 42 ms
    # and give no memory back (RSS after start-up is ~8 MB higher than with collections during
    # it, collected or not).
    gc.disable()
    args = parse_args(argv)
    setup_logging(args.log_level, args.log_file)
    generated = GeneratedCode().start()  # attrs', dataclasses' and cattrs' methods, not compiled at each start
    from .server import create_server  # after logging is set up: imports log too

    server = create_server()
    server.after_initialize = generated.stop  # once initialize is answered
    # Everything imported so far lives as long as the process: keep it out of the garbage
    # collector's scans, whose pauses would otherwise land on keystrokes.
    gc.freeze()
    gc.enable()
    IdleCollections(lambda: server.project.quiet(IDLE)).start()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    generated.stop()  # where no client sent initialized
    server.models.finish_loading(timeout=EXIT_WAIT)


if __name__ == "__main__":
    main()
