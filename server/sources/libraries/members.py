"""A receiver's members as the libraries define them: one name each, with its kind and a
detail (a signature, where it comes from)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...engines.base import Kind


@dataclass(frozen=True)
class Member:
    name: str
    kind: Kind
    detail: str = ""
    uses: int = 0  # files of real code using it (python_usage.json)


@dataclass
class Members:
    """The members of one receiver. ``complete``: every member is listed (a module's or a
    class's whose bases were all found), so a name not among them is probably not one."""

    where: str  # "os.path", "pathlib.Path", "fs", "class Store"
    names: dict[str, Member] = field(default_factory=dict)
    complete: bool = True
    declared: bool = False  # the receiver's type is written in the file (``user: User``): these come first

    def add(self, name: str, kind: Kind, detail: str = "", uses: int = 0) -> None:
        if name not in self.names:
            self.names[name] = Member(name, kind, detail, uses)


def class_members(name: str, members: dict[str, str], complete: bool, source: str = "") -> Members:
    """A class's members as read from its body (server/receivers.py: name -> "method" or
    "attribute"), each detailed as what it is of the class (and ``source``, where it comes from)."""
    out = Members(f"class {name}", complete=complete)
    for member, what in members.items():
        out.add(member, Kind.FUNCTION if what == "method" else Kind.VARIABLE, f"{what} of {name}{source}")
    return out
