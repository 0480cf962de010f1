"""Structure completions: the node types a model predicts where a statement (or an expression)
starts, as snippet templates with numbered placeholders.

A template's body uses ``\\n`` for a new line at the cursor line's indentation and ``\\t`` for one
indentation unit of the buffer (tabs, or the smallest run of spaces that indents a line there).
Without snippet support in the client, the placeholders' default text is inserted as plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    label: str  # the keyword it is found by
    body: str
    node: str  # the tree-sitter node type it stands for
    where: str = "statement"  # or "expression": where that node type is predicted
    inside: str = ""  # only inside a node of this type ("class_definition": a method)
    after: str = ""  # only right after a statement of this type (elif after if)


PYTHON = (
    Template("for", "for ${1:item} in ${2:items}:\n\t${0:pass}", "for_statement"),
    Template("if", "if ${1:condition}:\n\t${0:pass}", "if_statement"),
    Template("elif", "elif ${1:condition}:\n\t${0:pass}", "if_statement", after="if_statement"),
    Template("else", "else:\n\t${0:pass}", "if_statement", after="if_statement"),
    Template("while", "while ${1:condition}:\n\t${0:pass}", "while_statement"),
    Template("with", "with ${1:expression} as ${2:name}:\n\t${0:pass}", "with_statement"),
    Template("try", "try:\n\t${1:pass}\nexcept ${2:Exception} as ${3:error}:\n\t${0:raise}", "try_statement"),
    Template("def", "def ${1:name}(self${2}):\n\t${0:pass}", "function_definition", inside="class_definition"),
    Template("def", "def ${1:name}(${2}):\n\t${0:pass}", "function_definition"),
    Template("class", "class ${1:Name}:\n\t${0:pass}", "class_definition"),
    Template("return", "return ${0}", "return_statement"),
    Template("raise", "raise ${0}", "raise_statement"),
    Template("import", "import ${0:module}", "import_statement"),
    Template("from", "from ${1:module} import ${0:name}", "import_from_statement"),
    Template("assert", "assert ${0}", "assert_statement"),
    Template("lambda", "lambda ${1:x}: ${0}", "lambda", where="expression"),
)
JAVASCRIPT = (
    Template("function", "function ${1:name}(${2}) {\n\t$0\n}", "function_declaration"),
    Template("function", "function (${1}) {\n\t$0\n}", "function_expression", where="expression"),
    Template("=>", "(${1}) => ${0}", "arrow_function", where="expression"),
    Template("if", "if (${1:condition}) {\n\t$0\n}", "if_statement"),
    Template("else", "else {\n\t$0\n}", "if_statement", after="if_statement"),
    Template("for", "for (let ${1:i} = 0; ${1:i} < ${2:n}; ${1:i}++) {\n\t$0\n}", "for_statement"),
    Template("for", "for (const ${1:item} of ${2:items}) {\n\t$0\n}", "for_in_statement"),
    Template("while", "while (${1:condition}) {\n\t$0\n}", "while_statement"),
    Template("try", "try {\n\t$1\n} catch (${2:error}) {\n\t$0\n}", "try_statement"),
    Template("switch", "switch (${1:value}) {\n\tcase ${2:label}:\n\t\t$0\n\t\tbreak;\n}", "switch_statement"),
    Template("class", "class ${1:Name} {\n\t$0\n}", "class_declaration"),
    Template("const", "const ${1:name} = ${0};", "lexical_declaration"),
    Template("return", "return ${0};", "return_statement"),
    Template("throw", "throw new Error(${0});", "throw_statement"),
)
TEMPLATES = {"python": PYTHON, "javascript": JAVASCRIPT}

PLACEHOLDER = re.compile(r"\$\{(\d+)(?::([^}]*))?\}|\$(\d+)")


def indentation(data: bytes, at: int) -> tuple[str, str]:
    """The indentation of the line holding byte ``at`` (up to it), and the buffer's unit."""
    line_start = data.rfind(b"\n", 0, at) + 1
    line = data[line_start:at].decode("utf-8", "replace")
    current = line[: len(line) - len(line.lstrip(" \t"))]
    sample = data[: 64 * 1024].decode("utf-8", "replace")
    if re.search(r"^\t", sample, re.M):
        return current, "\t"
    widths = [len(m) for m in re.findall(r"^( +)\S", sample, re.M)]
    return current, " " * (min(widths) if widths else 4)


def expand(body: str, line_indent: str, unit: str, absolute: bool) -> str:
    """The body with the buffer's indentation; ``absolute``: lines after the first carry the
    cursor line's indentation too (for clients that insert text as it is)."""
    lead = line_indent if absolute else ""
    return body.replace("\t", unit).replace("\n", "\n" + lead)


def plain(snippet: str) -> str:
    """A snippet as plain text: each placeholder becomes its default text."""
    text = PLACEHOLDER.sub(lambda m: m.group(2) or "", snippet)
    return text.replace("\\$", "$").replace("\\}", "}").replace("\\\\", "\\")
