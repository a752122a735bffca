"""MkDocs hook: the reference pages rendered from the models the server validates with.

The REST routes come from `api.openapi.document()` (the document `GET /api/v1/openapi.json`
serves), the MCP tools from `api.mcp.tools.ToolSet` (what `tools/list` answers) and the
actions from `engine.actions.catalog()` (what `GET /actions` answers), so the pages cannot
drift from the code: a route, tool or field added in code appears here on the next build.
"""

from __future__ import annotations

import json
from typing import Any

from mkdocs.structure.files import File, Files

PAGES = {
    "reference/routes.md": "_routes",
    "reference/mcp-tools.md": "_mcp_tools",
    "reference/actions.md": "_actions",
}
METHOD_ORDER = {"get": 0, "post": 1, "put": 2, "patch": 3, "delete": 4}


def on_files(files: Files, config: Any) -> Files:
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=globals()[render]()))
    return files


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _prose(text: str) -> str:
    """A description from the models, shown as written: its brackets are not Markdown links."""
    return _cell(text).replace("[", "\\[")


def _type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short, readable type for a JSON schema: `string`, `integer 1–200`, `Position`, `one of …`."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{name.lower()})"
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            kinds = [_type(s, defs) for s in schema[key] if s.get("type") != "null"]
            nullable = any(s.get("type") == "null" for s in schema[key])
            text = " or ".join(dict.fromkeys(kinds)) or "null"
            return text + (" (or null)" if nullable else "")
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array":
        return f"array of {_type(schema.get('items', {}), defs)}"
    bounds = []
    for low, high in (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems")):
        if low in schema or high in schema:
            bounds.append(f"{schema.get(low, '')}–{schema.get(high, '')}")
    return kind + (" " + ", ".join(bounds) if bounds else "")


def _fields(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    variants = schema.get("oneOf") or schema.get("anyOf")
    if not properties and variants:
        # A union (add_element's args by element type): each variant's fields under its title.
        rows: list[str] = []
        for variant in variants:
            resolved = _resolve(variant, defs)
            rows += ["", f"**{resolved.get('title', _type(variant, defs))}**", "", *_fields(resolved, defs)]
        return rows
    if not properties:
        return []
    required = set(schema.get("required", []))
    rows = ["| field | type | required | description |", "|---|---|---|---|"]
    for name, sub in properties.items():
        description = sub.get("description") or sub.get("title", "")
        rows.append(
            f"| `{name}` | {_cell(_type(sub, defs))} | {'yes' if name in required else ''} | {_prose(description)} |"
        )
    return rows


def _models(text: str, defs: dict[str, Any]) -> list[str]:
    """The models a page links to (`[`X`](#x)`), each with its fields, and the models those
    link to, so every type named on the page is explained on it."""
    import re

    out = ["## Models", ""]
    done: set[str] = set()
    pending = [name for name in re.findall(r"\[`(\w+)`\]\(#", text) if name in defs]
    while pending:
        name = pending.pop(0)
        if name in done:
            continue
        done.add(name)
        schema = defs[name]
        rows = _fields(schema, defs) or [_cell(_type(schema, defs))]
        block = "\n".join(rows)
        out += [f"### {name}", "", _prose(schema.get("description", "")), "", *rows, ""]
        pending += [n for n in re.findall(r"\[`(\w+)`\]\(#", block) if n in defs and n not in done]
    return out if done else []


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _routes() -> str:
    from api.openapi import document

    spec = document()
    defs = spec["components"]["schemas"]
    out = [
        "# REST routes",
        "",
        "Every route under `/api/v1`, generated from the same pydantic models the server validates",
        "with (the document `GET /api/v1/openapi.json` serves). Every answer is the envelope",
        "`{status, data, error}`; the error codes are those of [the REST API](rest.md).",
        "",
    ]
    for path, methods in spec["paths"].items():
        for method, op in sorted(methods.items(), key=lambda item: METHOD_ORDER.get(item[0], 9)):
            out += [f"## `{method.upper()} {path}`", "", _prose(op.get("summary", "")) + ".", ""]
            if op.get("description"):
                out += [op["description"], ""]
            params = op.get("parameters", [])
            if params:
                out += ["| parameter | in | type | required | description |", "|---|---|---|---|---|"]
                for p in params:
                    out.append(
                        f"| `{p['name']}` | {p['in']} | {_cell(_type(p.get('schema', {}), defs))} | "
                        f"{'yes' if p.get('required') else ''} | {_prose(p.get('description', ''))} |"
                    )
                out.append("")
            body = op.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                schema = _resolve(content.get("schema", {}), defs)
                out += [f"Body (`{media}`):", ""]
                out += _fields(schema, defs) or [f"{_cell(_type(content.get('schema', {}), defs))}"]
                out.append("")
            errors = [
                f"{status}: " + ", ".join(f"`{c}`" for c in _error_codes(response))
                for status, response in op["responses"].items()
                if not status.startswith("2")
            ]
            if errors:
                out += ["Errors: " + "; ".join(errors) + ".", ""]
    text = "\n".join(out)
    return text + "\n" + "\n".join(_models(text, defs))


def _error_codes(response: dict[str, Any]) -> list[str]:
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    codes = schema.get("properties", {}).get("error", {}).get("properties", {}).get("code", {}).get("enum")
    return codes or [response.get("description", "").removeprefix("Error: ")]


def _page(intro: list[str], entries: list[tuple[str, str, dict[str, Any]]]) -> str:
    """A reference page: each entry (name, description, argument schema) as a section with its
    fields' table, then every model the page names."""
    out, all_defs = list(intro), {}
    for name, description, schema in entries:
        defs = schema.get("$defs", {})
        all_defs.update(defs)
        out += [f"## `{name}`", ""]
        if description:
            out += [_prose(description), ""]
        out += _fields(schema, defs) or ["No arguments."]
        out.append("")
    text = "\n".join(out)
    return text + "\n" + "\n".join(_models(text, all_defs))


def _mcp_tools() -> str:
    from api.mcp.tools import ToolSet

    tools = ToolSet().tools
    intro = [
        "# MCP tools",
        "",
        f"The {len(tools)} tools `tools/list` answers at `/mcp`, one per REST operation, with the same",
        "argument models (see [MCP](mcp.md) for sessions, authentication and results).",
        "",
    ]
    return _page(intro, [(tool["name"], tool["description"], tool["inputSchema"]) for tool in tools])


def _actions() -> str:
    import engine.actions

    intro = [
        "# Actions",
        "",
        "The actions `PATCH /designs/:id/tree` (MCP `patch_design_tree`) takes, as `GET /actions`",
        "lists them: each a `type` and its `args`, applied all-or-nothing in order.",
        "",
    ]
    catalog = engine.actions.catalog()
    return _page(intro, [(action["name"], action.get("description", ""), action["args"]) for action in catalog])
