"""MCP resources (the font and icon catalogs) and prompts (a certificate walkthrough)."""

from __future__ import annotations

import json

import engine

RESOURCES = {
    "docbench://catalog/fonts": (
        "Font catalog",
        "Every font family: pass its id verbatim as styles.fontFamily",
        lambda: {"fonts": [e.public() for e in engine.fonts.families()]},
    ),
    "docbench://catalog/icons": (
        "Icon catalog",
        "Every icon id usable as data.iconId of an icon element",
        lambda: {"icons": engine.media.icons.icon_ids()},
    ),
}


def list_resources() -> dict:
    return {
        "resources": [
            {"uri": uri, "name": name, "description": description, "mimeType": "application/json"}
            for uri, (name, description, _) in RESOURCES.items()
        ]
    }


def read_resource(uri: str) -> dict | None:
    entry = RESOURCES.get(uri)
    if entry is None:
        return None
    return {"contents": [{"uri": uri, "mimeType": "application/json", "text": json.dumps(entry[2]())}]}


CERTIFICATE = """Make a certificate with docbench, then render one for {recipient}.

1. create_design with {{"name": "Certificate", "size": "A4", "orientation": "landscape"}}; keep the designId.
2. patch_design_tree with one batch of actions (all are applied or none; fix and resend on error):
   - add_element shape "border": position {{"x": 24, "y": 24, "w": 794, "h": 547}}, styles {{"stroke": "#1f4e8c",
     "strokeWidth": 4, "cornerRadius": 6}}
   - add_element text "title": position {{"x": 60, "y": 60}}, data {{"content": "Certificate of Achievement",
     "role": "h1"}}, styles {{"fontSize": 36, "fontWeight": 700}}
   - add_element text "recipient": position {{"x": 60, "y": 150, "maxWidth": 520}}, data {{"content": "Recipient Name",
     "maxLines": 1}}, styles {{"fontSize": 40, "fontFamily": "Playfair Display", "fit": "shrink", "minFontSize": 18}}
     (fit "shrink" steps the size down until a long name fits maxWidth on one line; it needs maxWidth)
   - add_element text "sentence": position {{"x": 60, "y": 215, "maxWidth": 560}},
     data {{"content": "This certifies that {{recipient}} completed {{course}}", "fields": true,
     "samples": {{"course": "Document Design"}}}}, styles {{"fontSize": 16}}
     ({{recipient}} and {{course}} are fields: variables filled by name; {{recipient}} is the same variable
     as the bound element "recipient"; write {{{{ for a literal brace)
   - add_element qr "verify": position {{"x": 690, "y": 430, "size": 100}}, data {{"content": "https://...",
     "alt": "Verification link"}}
   - bind_variable {{"name": "recipient"}}
   list_variables shows every variable (recipient, course) with its sample.
   Never send an id with add_element; text boxes take maxWidth, not w/h. Fonts are in the resource
   docbench://catalog/fonts, icons in docbench://catalog/icons.
3. preview_page to check the layout (free), adjust with update_element if needed.
4. generate_pdf with {{"data": {{"recipient": "{recipient}", "course": "Document Design"}}}} (1 credit), or pdfProfile
   "accessible" for a tagged PDF; for many recipients use submit_batch with one row per person.
"""

PROMPTS = {
    "make_certificate": {
        "description": "Walks through designing a certificate and generating it for one person",
        "arguments": [{"name": "recipient", "description": "Who the certificate is for", "required": False}],
    },
}


def list_prompts() -> dict:
    return {"prompts": [{"name": name, **spec} for name, spec in PROMPTS.items()]}


def get_prompt(name: str, arguments: dict | None) -> dict | None:
    if name not in PROMPTS:
        return None
    recipient = str((arguments or {}).get("recipient") or "Ada Lovelace")
    return {
        "description": PROMPTS[name]["description"],
        "messages": [{"role": "user", "content": {"type": "text", "text": CERTIFICATE.format(recipient=recipient)}}],
    }
