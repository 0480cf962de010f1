"""A receiver's members as the libraries define them: one name each, with its kind and a
detail (a signature, where it comes from)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...engines.base import Kind

HEAD = 1024  # bytes of a Members and its dictionary, about
MEMBER = 360  # bytes of a Member, its dictionary slot and its strings' headers, about


@dataclass(frozen=True)
class Member:
    name: str
    kind: Kind
    detail: str = ""
    uses: int = 0  # files of real code using it (python_usage.json)
    signature: str = ""  # a function's or class's parameters, ``(a, /, *paths)``
    origin: str = ""  # the module or class that defines it, ``os.path``
    doc: str = ""  # the first paragraph of its docstring or JSDoc
    doc_of: tuple[str, str] | None = None  # else where to read it on resolve: a standard module's source, a name


@dataclass
class Members:
    """The members of one receiver. ``complete``: every member is listed (a module's or a
    class's whose bases were all found), so a name not among them is probably not one."""

    where: str  # "os.path", "pathlib.Path", "fs", "class Store"
    names: dict[str, Member] = field(default_factory=dict)
    complete: bool = True
    declared: bool = False  # the receiver's type is written in the file (``user: User``): these come first
    # listed after every ranked item and the other members, never ranked (a module exporting a
    # function: the function's own ``call``, ``apply``, ``bind``)
    after: dict[str, Member] = field(default_factory=dict)

    def add(self, name: str, kind: Kind, detail: str = "", uses: int = 0, signature: str = "", origin: str = "",
            doc: str | tuple[str, str] = "") -> None:
        """``doc``: the text, or (module, name) where a standard module's source has it (read on resolve)."""
        if name not in self.names:
            text, where = (doc, None) if isinstance(doc, str) else ("", doc)
            self.names[name] = Member(name, kind, detail, uses, signature, origin, text, where)

    def take(self, member: Member) -> None:
        """A member of a base class, as it is."""
        self.names.setdefault(member.name, member)

    def footprint(self) -> int:
        """Its bytes in memory, estimated: MEMBER per member besides its strings' characters
        (within ~10% of a deep count of the objects, on the standard library's modules)."""
        members = [*self.names.values(), *self.after.values()]
        chars = sum(len(m.name) + len(m.detail) + len(m.signature) + len(m.origin) + len(m.doc) for m in members)
        return HEAD + len(members) * MEMBER + chars


def class_members(name: str, members: dict[str, str], complete: bool, source: str = "",
                  signatures: dict[str, str] | None = None) -> Members:
    """A class's members as read from its body (server/receivers.py: name -> "method" or
    "attribute"), each detailed as what it is of the class (and ``source``, where it comes
    from), a method with its ``signatures``."""
    out = Members(f"class {name}", complete=complete)
    signatures = signatures or {}
    for member, what in members.items():
        signature = signatures.get(member, "")
        shown = f"{member}{signature} " if signature else ""
        kind = Kind.METHOD if what == "method" else Kind.CONSTANT if member.isupper() and len(member) > 1 else Kind.FIELD
        out.add(member, kind, f"{shown}{what} of {name}{source}", signature=signature, origin=name)
    return out
