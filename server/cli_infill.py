"""``treecomplete infill``: token streams and training for the insertion decoder that fills the
rest of a line between the cursor and the code after it (models/insertion.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def data(args: argparse.Namespace) -> int:
    from .models.corpus import BuildReport, read_manifest, registry_files
    from .models.infill_data import build

    downloads = Path(args.downloads) if args.downloads else Path(args.out) / "downloads"
    files = registry_files(read_manifest(Path(args.manifest)), args.lang, downloads, BuildReport())
    counts = build(files, args.lang, Path(args.out), {"train": args.max_train, "valid": args.max_other,
                                                      "test": args.max_other}, keep=args.keep)
    print(json.dumps(counts))
    return 0


def train(args: argparse.Namespace) -> int:
    from .models.infill_train import train as run
    from .models.insertion import InsertionConfig

    config = InsertionConfig(vocab=args.vocab, d=args.d, heads=args.heads, enc_layers=args.layers,
                             dec_layers=args.layers, ff=4 * args.d, left=args.left, right=args.right)
    run(Path(args.data), Path(args.out), args.minutes, order=args.order, bootstrap=args.bootstrap, config=config,
        batch_size=args.batch, lr=args.lr, save_minutes=args.save_minutes, resume=args.resume, seed=args.seed,
        named=args.named)
    return 0


def add(commands) -> None:
    infill = commands.add_parser("infill", help="the insertion decoder: token streams and training")
    sub = infill.add_subparsers(dest="infill_command", required=True)
    d = sub.add_parser("data", help="tokenize a manifest's packages into train/valid/test streams")
    d.add_argument("--lang", choices=["python", "javascript"], required=True)
    d.add_argument("--manifest", required=True, help="packages to fetch from the registry (models/manifests/)")
    d.add_argument("--downloads", help="where the archives are (default OUT/downloads; a corpus build's are reused)")
    d.add_argument("--out", required=True)
    d.add_argument("--keep", type=float, default=1.0, help="the share of files kept (default %(default)s)")
    d.add_argument("--max-train", type=int, default=40_000_000, help="tokens (default %(default)s)")
    d.add_argument("--max-other", type=int, default=2_000_000, help="tokens of valid and test (default %(default)s)")
    d.set_defaults(run=data)
    t = sub.add_parser("train", help="train an insertion decoder on token streams")
    t.add_argument("--data", required=True)
    t.add_argument("--out", required=True, help="the checkpoint (and OUT.state, for --resume)")
    t.add_argument("--minutes", type=float, required=True)
    t.add_argument("--order", choices=["l2r", "sao"], default="sao", help="generation order (default %(default)s)")
    t.add_argument("--bootstrap", type=float, default=0.0, help="minutes of left to right before searched orders")
    t.add_argument("--vocab", type=int, default=8000)
    t.add_argument("--d", type=int, default=192)
    t.add_argument("--heads", type=int, default=4)
    t.add_argument("--layers", type=int, default=2, help="encoder and decoder layers each")
    t.add_argument("--left", type=int, default=96, help="context tokens before the cursor (default %(default)s)")
    t.add_argument("--right", type=int, default=32, help="context tokens after the line (default %(default)s)")
    t.add_argument("--batch", type=int, default=64)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--save-minutes", type=float, default=5.0)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--resume", action="store_true", help="go on from OUT and OUT.state")
    t.add_argument("--named", action="store_true", help="only cursors before identifiers and literals")
    t.set_defaults(run=train)
