"""The reference documents: a certificate and an invoice (the benchmark measures both
against a hand-drawn ReportLab canvas, so they stay as they are), a name badge and a letter,
and the showcase designs built on them with issue 15's text features: a certificate with a
fitted name and a field sentence, an invoice over three sheets with a repeated header,
"Page n of N" and a conditional PAID stamp, and a letter whose body flows onto a second
page. The gallery offers the badge and the showcases as templates (`TEMPLATES`).

Used by the gallery's "New from template", the benchmarks and the tests. The logo is
drawn here with Pillow, so no binary sample ships in the repo.

    python -m workbench.samples --out out
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw

from engine import DesignTree, apply, new_design, render_pdf, render_png

LOGO_REF = "assets:sample-logo"
CERTIFICATE_PARAGRAPH = (
    "For outstanding commitment to the craft of document design, for clarity of layout, "
    "care with type and an unwavering eye for detail across every page produced during the "
    "programme, awarded with the gratitude of the whole faculty."
)


@cache
def logo_png() -> bytes:
    """A 400×400 PNG logo with transparency."""
    image = Image.new("RGBA", (400, 400), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse((10, 10, 390, 390), fill=(31, 78, 140, 255))
    draw.ellipse((70, 70, 330, 330), fill=(255, 255, 255, 255))
    draw.polygon([(200, 95), (305, 290), (95, 290)], fill=(212, 160, 23, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def resolver(ref: str) -> bytes:
    if ref == LOGO_REF:
        return logo_png()
    raise KeyError(ref)


def _add(kind: str, name: str, position: dict, data: dict | None = None, styles: dict | None = None) -> dict:
    args = {"type": kind, "name": name, "position": position}
    if data is not None:
        args["data"] = data
    if styles is not None:
        args["styles"] = styles
    return {"type": "add_element", "args": args}


def _page_number_footer(content: str, align: str) -> dict:
    """The showcase designs' small footer along the A4 bottom margin, with {page}/{pages} fields."""
    return _add(
        "text",
        "footer",
        {"x": 50, "y": 800, "maxWidth": 495},
        {"content": content, "fields": True},
        {"fontSize": 9, "color": "#555555", "align": align},
    )


def _bind(*names: str) -> list[dict]:
    return [{"type": "bind_variable", "args": {"name": n}} for n in names]


def certificate_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The actions that author the certificate (also sent over the API by the benchmark)."""
    return [
        _add(
            "shape",
            "border",
            {"x": 24, "y": 24, "w": 793.89, "h": 547.28},
            {"shapeType": "rectangle"},
            {"stroke": "#1f4e8c", "strokeWidth": 4, "cornerRadius": 6},
        ),
        _add(
            "text",
            "title",
            {"x": 60, "y": 60},
            {"content": "Certificate of Excellence"},
            {"fontSize": 36, "fontWeight": 700, "color": "#1f4e8c"},
        ),
        _add(
            "text",
            "recipient",
            {"x": 60, "y": 150},
            {"content": "Ada Lovelace"},
            {"fontSize": 28, "fontFamily": "Playfair Display"},
        ),
        _add(
            "text",
            "paragraph",
            {"x": 60, "y": 215, "maxWidth": 500},
            {"content": CERTIFICATE_PARAGRAPH},
            {"fontSize": 12, "lineHeight": 1.4},
        ),
        _add("image", "logo", {"x": 640, "y": 50, "w": 150, "h": 150}, {"src": logo_ref}),
        _add(
            "qr",
            "verify",
            {"x": 690, "y": 430, "size": 100},
            {"content": "https://docbench.example/verify/ROW-000000"},
        ),
        _add("barcode", "serial", {"x": 60, "y": 470, "w": 220, "h": 60}, {"content": "ROW-000000"}),
        _add(
            "text",
            "issued",
            {"x": 400, "y": 500},
            {"content": "2026-11-21", "dataType": "date", "format": "d MMMM y"},
            {"fontSize": 14},
        ),
        *_bind("recipient", "verify", "serial", "issued"),
    ]


def certificate() -> DesignTree:
    """A4 landscape: border, title, name, paragraph, logo, QR, barcode, date."""
    tree = new_design(size="A4", orientation="landscape", title="Certificate")
    return apply(tree, certificate_actions())[0]


def certificate_row(i: int) -> dict:
    row_id = f"ROW-{i:06d}"
    return {
        "recipient": f"Recipient Number {i}",
        "verify": f"https://docbench.example/verify/{row_id}",
        "serial": row_id,
        "issued": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
    }


INVOICE_HEADER = ["Description", "Quantity", "Unit price", "Amount"]


def invoice_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The actions that author the invoice (also sent over the API by the notebooks)."""
    cells = [INVOICE_HEADER] + [[f"Line item {r}", "1", "10.00", "10.00"] for r in range(1, 21)]
    return [
        _add("text", "heading", {"x": 50, "y": 50}, {"content": "INVOICE"}, {"fontSize": 28, "fontWeight": 700}),
        _add("text", "number", {"x": 50, "y": 90}, {"content": "No. INV-0000"}, {"fontSize": 12}),
        _add(
            "text",
            "customer",
            {"x": 50, "y": 110, "maxWidth": 260},
            {"content": "Customer name\n1 Example Street\nSpringfield"},
            {"fontSize": 11},
        ),
        _add("image", "logo", {"x": 445, "y": 40, "w": 100, "h": 100}, {"src": logo_ref}),
        _add(
            "table",
            "lines",
            {"x": 50, "y": 190},
            {"cells": cells, "columnWidths": [235, 80, 90, 90], "headerRow": True},
            {"fontSize": 10, "align": "left", "stripeColor": "#f6f8fb"},
        ),
        _add("text", "total", {"x": 355, "y": 700}, {"content": "Total: 200.00"}, {"fontSize": 14, "fontWeight": 700}),
        _add("qr", "payment", {"x": 50, "y": 700, "size": 80}, {"content": "PAY:INV-0000"}),
        *_bind("number", "customer", "lines", "total", "payment"),
    ]


def invoice() -> DesignTree:
    """A4 portrait: header texts, logo, a bound 20×4 table with header, totals, QR."""
    return apply(new_design(size="A4", title="Invoice"), invoice_actions())[0]


def invoice_row(i: int, lines: int = 20) -> dict:
    rows = [INVOICE_HEADER] + [
        [
            f"Service {i}-{r}",
            str(1 + r % 4),
            f"{(r * 7 + i) % 90 + 10}.00",
            f"{(1 + r % 4) * ((r * 7 + i) % 90 + 10)}.00",
        ]
        for r in range(1, lines + 1)
    ]
    total = sum(float(r[3]) for r in rows[1:])
    return {
        "number": f"No. INV-{i:04d}",
        "customer": f"Customer {i}\n{i} Example Street\nSpringfield",
        "lines": rows,
        "total": f"Total: {total:,.2f}",
        "payment": f"PAY:INV-{i:04d}",
    }


BADGE_SIZE = {"width": 252, "height": 360}  # 3.5 × 5 in, portrait


def badge_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The actions that author a conference name badge (custom 252 × 360 pt)."""
    return [
        _add("shape", "band", {"x": 0, "y": 0, "w": 252, "h": 96}, {"shapeType": "rectangle"}, {"fill": "#1f4e8c"}),
        _add("image", "logo", {"x": 18, "y": 18, "w": 60, "h": 60}, {"src": logo_ref}),
        _add(
            "text",
            "event",
            {"x": 90, "y": 30, "maxWidth": 150},
            {"content": "DocConf 2026"},
            {"fontSize": 18, "fontWeight": 700, "color": "#ffffff"},
        ),
        _add("text", "greeting", {"x": 18, "y": 116}, {"content": "Hello, my name is"}, {"fontSize": 12}),
        _add(
            "text",
            "attendee",
            {"x": 18, "y": 140, "maxWidth": 216},
            {"content": "Grace Hopper"},
            {"fontSize": 26, "fontWeight": 700},
        ),
        _add("text", "role", {"x": 18, "y": 190, "maxWidth": 216}, {"content": "Speaker"}, {"fontSize": 14}),
        _add("qr", "contact", {"x": 151, "y": 259, "size": 85}, {"content": "https://docbench.example/badge/0001"}),
        *_bind("attendee", "role", "contact"),
    ]


def badge() -> DesignTree:
    return apply(new_design(**BADGE_SIZE, title="Badge"), badge_actions())[0]


LETTER_BODY = (
    "Thank you for your order. The documents you asked for are attached to this letter, "
    "and a copy has been kept on file. Should anything need correcting, reply to this letter "
    "or call us, and we will send an amended copy within two working days."
)


def letter_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The actions that author a business letter (A4 portrait)."""
    return [
        _add("image", "logo", {"x": 475, "y": 40, "w": 70, "h": 70}, {"src": logo_ref}),
        _add(
            "text",
            "sender",
            {"x": 50, "y": 50, "maxWidth": 300},
            {"content": "docbench Ltd\n1 Example Street\nSpringfield"},
            {"fontSize": 10, "color": "#555555"},
        ),
        _add(
            "text",
            "addressee",
            {"x": 50, "y": 150, "maxWidth": 260},
            {"content": "Ada Lovelace\n12 Analytical Row\nLondon"},
            {"fontSize": 11},
        ),
        _add(
            "text",
            "dated",
            {"x": 400, "y": 150},
            {"content": "2026-11-21", "dataType": "date", "format": "d MMMM y"},
            {"fontSize": 11},
        ),
        _add("text", "subject", {"x": 50, "y": 250}, {"content": "Your order"}, {"fontSize": 14, "fontWeight": 700}),
        _add("text", "salutation", {"x": 50, "y": 290}, {"content": "Dear Ada Lovelace,"}, {"fontSize": 11}),
        _add(
            "text",
            "body",
            {"x": 50, "y": 320, "maxWidth": 495},
            {"content": LETTER_BODY},
            {"fontSize": 11, "lineHeight": 1.5},
        ),
        _add(
            "text",
            "closing",
            {"x": 50, "y": 440},
            {"content": "Yours sincerely,\n\nThe docbench team"},
            {"fontSize": 11},
        ),
        *_bind("addressee", "dated", "subject", "salutation", "body"),
    ]


def letter() -> DesignTree:
    return apply(new_design(size="A4", title="Letter"), letter_actions())[0]


# Showcases (extensions.md 1-4). New builders, so the benchmark's reference documents keep
# drawing exactly what the ReportLab comparison draws.

CERTIFICATE_SENTENCE = "This certifies that {recipient} completed {course}"
FITTED_NAME_WIDTH = 520


def fitted_certificate_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The certificate with a name that shrinks to fit one line of 520 pt and a sentence with
    two fields: {recipient} is the bound name's variable, {course} a field of its own."""
    showcase = {
        "recipient": _add(
            "text",
            "recipient",
            {"x": 60, "y": 140, "maxWidth": FITTED_NAME_WIDTH},
            {"content": "Ada Lovelace", "maxLines": 1},
            {"fontSize": 40, "fontFamily": "Playfair Display", "fit": "shrink", "minFontSize": 16},
        ),
        "paragraph": _add(
            "text",
            "sentence",
            {"x": 60, "y": 215, "maxWidth": 520},
            {
                "content": CERTIFICATE_SENTENCE + "\n\n" + CERTIFICATE_PARAGRAPH,
                "fields": True,
                "samples": {"course": "the Document Design programme"},
                "markup": "markdown",
            },
            {"fontSize": 12, "lineHeight": 1.4},
        ),
    }
    actions = [
        showcase.get(action["args"]["name"], action) if action["type"] == "add_element" else action
        for action in certificate_actions(logo_ref)
    ]
    # the sentence's first line in bold: the placeholder sits inside the markup
    actions[3]["args"]["data"]["content"] = "**" + CERTIFICATE_SENTENCE + "**\n\n" + CERTIFICATE_PARAGRAPH
    return actions


def fitted_certificate() -> DesignTree:
    tree = new_design(size="A4", orientation="landscape", title="Certificate")
    return apply(tree, fitted_certificate_actions())[0]


def fitted_certificate_row(i: int) -> dict:
    """A row with a long name (it shrinks) and both fields of the sentence."""
    return {
        **certificate_row(i),
        "recipient": f"Augusta Ada King, Countess of Lovelace, Recipient Number {i}",
        "course": f"Advanced Typesetting, cohort {i % 7 + 1}",
    }


PAGED_INVOICE_LINES = 80  # a row with this many lines fills three A4 sheets


def paged_invoice_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The invoice whose table grows over three sheets with a long row (`paged_invoice_row`):
    its header (title, number, logo) and a footer "Page {page} of {pages}" repeat on every
    sheet, the total and payment QR follow the last line, and a PAID stamp shows only when
    the generation gives `paid_on`. The design-time table keeps the reference's 20 lines:
    the elements below its designed bottom are the ones that follow it."""
    actions = invoice_actions(logo_ref)
    for header in actions[:2] + actions[3:4]:  # heading, number, logo
        header["args"]["repeat"] = "sheets"
    return [
        *actions,
        # the header's lower edge: continuation sheets start the table just below it
        _add("shape", "rule", {"x": 50, "y": 160, "w": 495, "h": 0}, {"shapeType": "line"}, {"stroke": "#1f4e8c"}),
        _page_number_footer("Page {page} of {pages}", "right"),
        {
            **_add(
                "text",
                "stamp",
                {"x": 250, "y": 104},
                {"content": "PAID {paid_on}", "fields": True},
                {
                    "fontSize": 16,
                    "fontWeight": 700,
                    "color": "#b42318",
                    "letterSpacing": 2,
                    "textTransform": "uppercase",
                    "backgroundColor": "#fde8e8",
                    "padding": 6,
                    "borderRadius": 4,
                },
            )
        },
        *({"type": "update_element", "args": {"name": n, "repeat": "sheets"}} for n in ("rule", "footer")),
        # 15 pt under the rule: continuation sheets keep that gap under the repeated header (extensions.md 11)
        {"type": "update_element", "args": {"name": "lines", "position": {"y": 175}}},
        {"type": "update_element", "args": {"name": "stamp", "showIf": {"variable": "paid_on"}}},
    ]


def paged_invoice() -> DesignTree:
    return apply(new_design(size="A4", title="Invoice"), paged_invoice_actions())[0]


def paged_invoice_row(i: int, paid: bool = False) -> dict:
    """A row whose table fills three sheets; `paid` adds a paid_on date (the stamp shows)."""
    row = invoice_row(i, lines=PAGED_INVOICE_LINES)
    return {**row, **({"paid_on": f"2026-11-{1 + i % 28:02d}"} if paid else {})}


# extensions.md 11: the gallery's invoice computes its amounts, VAT and totals from raw line items.
INVOICE_COLUMNS = [
    {"key": "description", "header": "Description"},
    {"key": "quantity", "header": "Quantity", "dataType": "number", "align": "right"},
    {"key": "unit_price", "header": "Unit price", "dataType": "currency", "format": "#,##0.00", "align": "right"},
    {
        "key": "amount",
        "header": "Amount",
        "dataType": "currency",
        "format": "#,##0.00",
        "align": "right",
        "value": "quantity * unit_price",
    },
]
VAT = "round(sum(amount) * vat_rate / 100, 2)"
INVOICE_FOOTER = [
    {"description": "Subtotal", "amount": "=sum(amount)"},
    {"description": "=concat('VAT ', vat_rate, ' %')", "amount": f"={VAT}"},
    {"description": "Total due", "amount": f"=sum(amount) + {VAT}"},
]


def computed_invoice_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The gallery's invoice: the paged invoice's header, footer and stamp around a typed table
    whose amounts, VAT and totals are computed from each line's quantity and unit price; the VAT
    rate is a field of the payment terms, and the payment QR keeps with the terms above it."""
    actions = [a for a in paged_invoice_actions(logo_ref) if a["args"].get("name") != "total"]
    for entry in actions:
        args = entry["args"]
        if args.get("name") == "lines" and entry["type"] == "add_element":
            lines = [[f"Line item {r}", str(r), "10.00", ""] for r in range(1, 6)]
            args["data"] = {
                "cells": [[c["header"] for c in INVOICE_COLUMNS], *lines],
                "columnDefs": INVOICE_COLUMNS,
                "footer": INVOICE_FOOTER,
                "columnWidths": [235, 80, 90, 90],
                "headerRow": True,
            }
        if entry["type"] == "bind_variable" and args.get("name") == "total":
            args["name"] = "number"
    return [
        _add(
            "text",
            "terms",
            {"x": 150, "y": 372, "maxWidth": 300},
            {
                "content": "Payable within 30 days. VAT {vat_rate} % included in the total.",
                "fields": True,
                "samples": {"vat_rate": "20"},
            },
            {"fontSize": 10},
        ),
        *actions,
        {"type": "update_element", "args": {"name": "terms", "keepWithNext": True}},
        # Under the design-time table (its 5 lines and 3 footer rows end at y 355): they follow its last row.
        {"type": "update_element", "args": {"name": "payment", "position": {"y": 390}}},
    ]


def computed_invoice_row(i: int, lines: int = 100, paid: bool = False) -> dict:
    """Raw line items for the computed invoice: quantities and unit prices only; `paid` adds a
    paid_on date (the stamp shows)."""
    return {
        **({"paid_on": f"2026-11-{1 + i % 28:02d}"} if paid else {}),
        "number": f"No. INV-{i:04d}",
        "customer": f"Customer {i}\n{i} Example Street\nSpringfield",
        "lines": [
            {"description": f"Service {i}-{r}", "quantity": 1 + r % 4, "unit_price": f"{(r * 7 + i) % 90 + 10}.25"}
            for r in range(1, lines + 1)
        ],
        "vat_rate": "20",
        "payment": f"PAY:INV-{i:04d}",
    }


def precomputed_invoice_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """computed_invoice_actions' invoice as a caller had to make it before: a plain table of
    strings it computed and formatted itself, footer rows included (the benchmark's baseline)."""
    actions = computed_invoice_actions(logo_ref)
    for entry in actions:
        args = entry["args"]
        if args.get("name") == "lines" and entry["type"] == "add_element":
            data = args["data"]
            args["data"] = {"cells": data["cells"], "columnWidths": data["columnWidths"], "headerRow": True}
    return actions


def precomputed_invoice_row(i: int, lines: int = 100) -> dict:
    """computed_invoice_row's values computed and formatted by the caller, as strings."""
    from decimal import Decimal

    row = computed_invoice_row(i, lines)
    grid = [[c["header"] for c in INVOICE_COLUMNS]]
    subtotal = Decimal(0)
    for line in row["lines"]:
        amount = line["quantity"] * Decimal(line["unit_price"])
        subtotal += amount
        grid.append(
            [line["description"], str(line["quantity"]), f"{Decimal(line['unit_price']):,.2f}", f"{amount:,.2f}"]
        )
    vat = (subtotal * Decimal(row["vat_rate"]) / 100).quantize(Decimal("0.01"))
    grid += [["Subtotal", "", "", f"{subtotal:,.2f}"], [f"VAT {row['vat_rate']} %", "", "", f"{vat:,.2f}"]]
    grid.append(["Total due", "", "", f"{subtotal + vat:,.2f}"])
    return {**row, "lines": grid}


LETTER_FLOWING_BODY = "\n\n".join(
    [
        "Thank you for your order of **12 November**. The documents you asked for are attached "
        "to this letter, and a copy has been kept on file.",
        "This letter is longer than one page on purpose: its body is a single text element whose "
        "overflow is *flow*. It grows with its content, pushes the closing lines below it further "
        "down, and when it reaches the bottom margin it continues at the top of a new sheet, "
        "never splitting a line and never leaving a single line of a paragraph behind.",
        "Markup stays inline: **bold** takes the family's bold face, *italic* its italic, "
        "~~struck~~ text is struck through, and [a link](https://docbench.example/orders) becomes "
        "a link annotation in the PDF.",
        *[
            f"Paragraph {n}. Should anything need correcting, reply to this letter or call us, and "
            "we will send an amended copy within two working days. Every amendment is recorded with "
            "its date and the name of the person who made it, so the history of your order stays "
            "complete and can be checked at any time by you or by your auditors."
            for n in range(1, 8)
        ],
        "With our thanks for your custom and our best wishes for the season.",
    ]
)


def flowing_letter_actions(logo_ref: str = LOGO_REF) -> list[dict]:
    """The letter whose body flows onto a second page with a long `body` (`flowing_letter_row`),
    its closing after the body's last line, and "Page n of N" at every sheet's foot. The
    design-time body is short: the closing lies below its designed bottom, so it follows it."""
    actions = letter_actions(logo_ref)
    body = actions[6]["args"]
    short_body = LETTER_BODY.replace("your order", "your order of **12 November**", 1)
    body["data"] = {"content": short_body, "overflow": "flow", "markup": "markdown"}
    return [
        *actions,
        _page_number_footer("docbench Ltd · Page {page} of {pages}", "center"),
        {"type": "update_element", "args": {"name": "footer", "repeat": "pages"}},
    ]


def flowing_letter() -> DesignTree:
    return apply(new_design(size="A4", title="Letter"), flowing_letter_actions())[0]


def flowing_letter_row() -> dict:
    """A body long enough to flow onto a second sheet (inline Markdown included)."""
    return {"body": LETTER_FLOWING_BODY}


@dataclass(frozen=True)
class Template:
    """A starting point the gallery offers: its paper (create_design's fields) and the actions
    that author it, given the ref of the logo image to use."""

    title: str
    paper: dict
    actions: Callable[[str], list[dict]]


TEMPLATES: dict[str, Template] = {
    "certificate": Template("Certificate", {"size": "A4", "orientation": "landscape"}, fitted_certificate_actions),
    "invoice": Template("Invoice", {"size": "A4", "orientation": "portrait"}, computed_invoice_actions),
    "badge": Template("Badge", BADGE_SIZE, badge_actions),
    "letter": Template("Letter", {"size": "A4", "orientation": "portrait"}, flowing_letter_actions),
}


def main() -> None:
    parser = argparse.ArgumentParser(description="Render the sample designs to PDF and PNG.")
    parser.add_argument("--out", default="out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, tree, row in (("certificate", certificate(), certificate_row(1)), ("invoice", invoice(), invoice_row(1))):
        (args.out / f"{name}.pdf").write_bytes(render_pdf(tree, row, resolver))
        (args.out / f"{name}.png").write_bytes(render_png(tree, 0, resolver, dpi=96))
        (args.out / f"{name}.json").write_text(tree.model_dump_json(indent=2))
        print(f"wrote {args.out / name}.pdf, .png and .json")


if __name__ == "__main__":
    main()
