"""``treecomplete``: the tool CLI. ``treecomplete complete FILE:LINE:COL`` prints the ranked
completions at a position, as the server would send them to an editor."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import platformdirs

from . import __version__, cli_infill
from .engines.registry import OFF, Registry
from .grammars import WHEELS
from .positions import UTF32
from .service import CompletionService
from .sources.libraries.known import Libraries
from .sources.project_index import ProjectIndex

# models.architectures.ARCHS, spelt out: this module must not import torch for --help
ARCHS = ("vanilla", "attention", "pointer", "pointer-random", "pointer-subtrees", "tree-transformer")
# the languages a corpus can be built and a model trained for: those with a model (TypeScript read
# as JavaScript, its types blanked), and every grammar served alone (server/grammars.py;
# models.corpus.LANGUAGES)
LANGUAGES = sorted(["python", "javascript", "typescript", *WHEELS])


def _location(spec: str) -> tuple[Path, int | None, int | None]:
    parts = spec.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return Path(parts[0]), int(parts[1]), int(parts[2])
    return Path(spec), None, None


def complete(args: argparse.Namespace) -> int:
    path, line, col = _location(args.location)
    try:
        text = path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as error:
        print(f"treecomplete: cannot read {path}: {error.strerror}", file=sys.stderr)
        return 2
    models = None
    if args.model != OFF:
        models = Registry(on_error=lambda message: print(message, file=sys.stderr))
        models.configure(args.model or "")
    project = ProjectIndex()
    if args.project:
        project.add_root(Path(args.project))
    libraries = Libraries()
    libraries.roots = [Path(args.project).resolve()] if args.project else []
    service = CompletionService(encoding=UTF32, models=models, wait_for_models=True, project=project, libraries=libraries)
    if service.neural is not None:
        service.neural.idle_infill = False  # one list: the rest of the line is decoded before it
    doc = service.open(path.resolve().as_uri(), args.language, 0, text)
    project.wait()
    if doc.language is None:
        print(f"treecomplete: {path} is not a supported language (use --language)", file=sys.stderr)
        return 2
    if line is None:
        line0, col0 = doc.position_at(len(doc.data))
    elif line < 1 or col < 1 or line > doc.lines.line_count:
        print(f"treecomplete: {path} has {doc.lines.line_count} lines; LINE and COL start at 1", file=sys.stderr)
        return 2
    else:
        line0, col0 = line - 1, col - 1
    completion = service.complete_read(doc.uri, line0, col0, args.limit)
    candidates = completion.candidates if completion else []
    if args.json:
        print(json.dumps([{"text": c.text, "kind": c.kind.value, "score": round(c.score, 4), "detail": c.detail}
                          for c in candidates]))
        return 0
    if completion is None:
        print("(no completions here)")
        return 0
    ctx = completion.context
    print(f"{path}:{line0 + 1}:{col0 + 1}  prefix={ctx.prefix!r}  {ctx.category}  engine={completion.engine}")
    for rank, c in enumerate(candidates, 1):
        print(f"{rank:3d}. {c.text:<32} {c.kind.value:<9} {c.score:7.3f}")
    return 0


def corpus_build(args: argparse.Namespace) -> int:
    from .models.corpus import build_corpus

    if (args.manifest is None) == (args.from_dir is None):
        print("treecomplete: give either --manifest or --from-dir", file=sys.stderr)
        return 2
    report = build_corpus(args.lang, Path(args.out), Path(args.manifest) if args.manifest else None,
                          Path(args.from_dir) if args.from_dir else None, args.jobs)
    kept = ", ".join(f"{split} {n}" for split, n in sorted(report.kept.items()))
    print(f"kept files: {kept or 'none'}; skipped: {sum(report.skipped.values())}; see {args.out}/build.json")
    return 0


def corpus_stats(args: argparse.Namespace) -> int:
    from .models.stats import report

    print(report(Path(args.directory), args.split))
    return 0


def leave_process_group(finished: bool) -> None:
    """Under torchrun, tear the process group down once every replica is done with it (after
    a barrier: one replica leaving while another still talks to gloo aborts that one); after
    an error, the barrier could wait forever, so the group goes at once."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return
    if finished:
        dist.barrier()
    dist.destroy_process_group()


def train(args: argparse.Namespace) -> int:
    """Train from scratch on a corpus, or fine-tune a model (``--init``) on a corpus or on a
    directory of your own code (``--from-dir``, built into a corpus in the user cache dir)."""
    from .engines.registry import DEFAULTS, resolve, user_models
    from .models import checkpoint
    from .models.corpus import build_corpus
    from .models.train import read_config
    from .models.train import train as run_training

    meta = None
    try:
        init = None
        if args.init:
            init = resolve(DEFAULTS.get(args.init, args.init))
            lang = args.lang or checkpoint.load(init).language
        else:
            lang = args.lang
        if not lang:
            raise ValueError("--lang is needed (or --init with a model)")
        if (args.data is None) == (args.from_dir is None):
            raise ValueError("give either --data (a built corpus) or --from-dir (your code)")
        model_settings, train_settings = read_config(Path(args.config) if args.config else None)
        if args.minutes is not None:
            train_settings["minutes"] = args.minutes
        if args.precision is not None:
            train_settings["precision"] = args.precision
        if args.arch:
            if init is not None:
                raise ValueError("--arch is for training from scratch; a fine-tuned model keeps its own")
            if model_settings.get("arch", args.arch) != args.arch:
                raise ValueError(f"--arch {args.arch} but the config says {model_settings['arch']}")
            model_settings["arch"] = args.arch
        if args.from_dir:
            source = Path(args.from_dir).expanduser().resolve()
            name = args.name or f"{lang}-{source.name}"
            data = Path(platformdirs.user_cache_dir("treecomplete")) / "corpora" / name
            if data.exists():
                shutil.rmtree(data)  # rebuilt from the code as it is now
            report = build_corpus(lang, data, from_dir=source)
            if not sum(report.kept.values()):
                raise ValueError(f"{source}: no {lang} files to train on")
        else:
            data = Path(args.data)
            name = args.name
        if args.out:
            out = Path(args.out)
        elif init is not None and name:
            if not name.startswith(f"{lang}-"):
                raise ValueError(f"a model name must start with '{lang}-' (the setting treecomplete.model finds it so)")
            out = user_models() / f"{name}.pt"
        else:
            raise ValueError("--out is needed (or --init with --from-dir or --name, to write a user model)")
        if args.suffix:
            if init is None or model_settings:
                raise ValueError("--suffix trains onto a model: give --init, and no model settings")
            from .models.suffix_train import train_suffix

            meta = train_suffix(init, data, out, args.suffix, train_settings)
            print(f"{out}: a suffix pointer of {args.suffix} elements, {meta['suffix']['elements']:,} nodes in "
                  f"{meta['suffix']['seconds'] / 60:.1f} min")
            return 0
        if init is not None and not model_settings:
            train_settings = {"epochs": 3, "lr": 5e-4, "decay": 0.7, **train_settings}
        meta, _ = run_training(data, out, lang, model_settings, train_settings, init=init, resume=args.resume)
    except (OSError, ValueError, checkpoint.CheckpointError) as error:
        print(f"treecomplete: {error}", file=sys.stderr)
        return 2
    finally:
        leave_process_group(finished=meta is not None)
    if os.environ.get("RANK", "0") != "0":
        return 0  # under torchrun, the first process reports
    valid = meta.get("valid") or {}
    print(f"{out}: {meta['epochs_done']} epochs, {meta['elements_trained']:,} nodes in {meta['seconds'] / 60:.1f} min"
          + (f"; valid type {valid['type']:.2%} value {valid['value']:.2%}" if valid else ""))
    if init is not None and out.parent == user_models():
        print(f'use it with the setting "treecomplete.model": "{out.stem}"')
    return 0


def evaluate(args: argparse.Namespace) -> int:
    from .models import checkpoint
    from .models.batches import CorpusVocabulary
    from .models.evaluate import Stopped, markdown, write
    from .models.evaluate import evaluate as run_evaluation
    from .models.store import Split

    try:
        loaded = checkpoint.load(Path(args.model))
        if args.arch and loaded.model.config.arch != args.arch:
            raise ValueError(f"{args.model} is a {loaded.model.config.arch} model, not {args.arch}")
        data = Path(args.data)
        corpus = CorpusVocabulary.load(data)
        # the counts so far, every few minutes and on SIGTERM / SIGINT: --resume goes on from them
        partial = Path(f"{args.out or args.model}.{args.split}.partial")
        if not args.resume:
            partial.unlink(missing_ok=True)
        result = run_evaluation(loaded, Split(data / args.split), corpus, max_elements=args.max_elements, progress=True,
                                partial=partial)
        inside = None
        if getattr(loaded.model.config, "suffix", 0):  # the suffix pointer reads the code after each target
            from .models.suffix_train import validate

            inside = validate(loaded.model, Split(data / args.split), corpus, loaded.types, loaded.values,
                              max_elements=args.max_elements)
    except Stopped as stopped:
        print(f"treecomplete: {stopped}", file=sys.stderr)
        return 3
    except (OSError, ValueError, checkpoint.CheckpointError) as error:
        print(f"treecomplete: {error}", file=sys.stderr)
        return 2
    title = f"{Path(args.model).name} on {data.name} ({args.split})"
    print(markdown(result, title))
    if inside is not None:
        from .models.suffix_train import describe

        print(f"\nLeaf values inside files, with the code after each: {describe(inside)}")
    if args.out:
        write(result, Path(args.out), title)
        if inside is not None:
            Path(args.out).with_suffix(".inside.json").write_text(json.dumps(inside, indent=2), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="treecomplete", description="treecomplete tools.")
    parser.add_argument("--version", action="version", version=f"treecomplete {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("complete", help="print the ranked completions at FILE:LINE:COL")
    p.add_argument("location", help="FILE:LINE:COL (1-based; COL in characters), or FILE for its end")
    p.add_argument("--limit", type=int, default=20, help="how many completions (default %(default)s)")
    p.add_argument("--language", help="language id (default: from the file extension)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--model", default="", help="model name or .pt path ('fallback': none; default: the shipped one)")
    p.add_argument("--project", help="offer the identifiers of this folder's files (default: the file's own folder)")
    p.set_defaults(run=complete)
    corpus = commands.add_parser("corpus", help="build training corpora and print their statistics")
    corpus_commands = corpus.add_subparsers(dest="corpus_command", required=True)
    b = corpus_commands.add_parser("build", help="fetch, filter, split and flatten a corpus")
    b.add_argument("--lang", choices=LANGUAGES, required=True)
    b.add_argument("--manifest", help="packages to fetch from the registry (models/manifests/)")
    b.add_argument("--from-dir", help="build from your own code instead")
    b.add_argument("--out", required=True, help="the corpus directory")
    b.add_argument("--jobs", type=int, default=4, help="downloads at once (default %(default)s)")
    b.set_defaults(run=corpus_build)
    st = corpus_commands.add_parser("stats", help="print a corpus' statistics (thesis Tables 3.1, 3.2)")
    st.add_argument("directory")
    st.add_argument("--split", default="test", choices=["train", "valid", "test"])
    st.set_defaults(run=corpus_stats)
    t = commands.add_parser("train", help="train a model on a corpus (treecomplete corpus build)")
    t.add_argument("--lang", choices=LANGUAGES, help="(default: the --init model's)")
    t.add_argument("--data", help="a corpus directory (treecomplete corpus build)")
    t.add_argument("--from-dir", help="fine-tune on your own code in this directory")
    t.add_argument("--config", help='JSON: {"model": {...}, "train": {...}} (models/configs/)')
    t.add_argument("--out", help="the checkpoint to write (default with --init: a user model)")
    t.add_argument("--init", help="start from a model: python, javascript, a model name or a .pt path")
    t.add_argument("--name", help="the user model's name (default LANG-DIRNAME)")
    t.add_argument("--resume", action="store_true", help="continue from OUT.state")
    t.add_argument("--arch", choices=ARCHS, help="the architecture (default: the config's, else pointer)")
    t.add_argument("--minutes", type=float, help="stop after this long (saves, and --resume goes on)")
    t.add_argument("--precision", choices=["auto", "bf16", "fp32"],
                   help="autocast to bfloat16 (default auto: on CUDA only; bf16 also on a CPU with AMX or AVX-512 BF16, "
                        "float32 on other CPUs)")
    t.add_argument("--suffix", type=int, metavar="S",
                   help="train only a suffix pointer reading the S elements after the cursor onto the --init model")
    t.set_defaults(run=train)
    e = commands.add_parser("evaluate", help="next-node metrics of a model on a corpus split")
    e.add_argument("--lang", choices=LANGUAGES, required=True)
    e.add_argument("--data", required=True, help="a corpus directory")
    e.add_argument("--model", required=True, help="a checkpoint")
    e.add_argument("--arch", choices=ARCHS, help="check the checkpoint is of this architecture")
    e.add_argument("--split", default="test", choices=["train", "valid", "test"])
    e.add_argument("--max-elements", type=int, help="evaluate on the first files up to this many nodes")
    e.add_argument("--out", help="write OUT.json and OUT.md")
    e.add_argument("--resume", action="store_true", help="go on from the counts a stopped run left (OUT.SPLIT.partial)")
    e.set_defaults(run=evaluate)
    cli_infill.add(commands)
    args = parser.parse_args(argv)
    sys.exit(args.run(args))


if __name__ == "__main__":
    main()
