"""Our own checker for tagged PDFs, over pikepdf: the structural rules of PDF/UA that
the other validators (outloud, pikepdf.pdfa) leave out or only sample."""

from __future__ import annotations

import io

import pikepdf
from pikepdf import Name

# Operators that put marks on the page: each must sit inside marked content or an artifact.
PAINTING = {"Tj", "TJ", "'", '"', "Do", "f", "F", "f*", "B", "B*", "b", "b*", "S", "s", "sh", "BI"}


def _struct_elements(root: pikepdf.Object):
    stack = [root.K] if "/K" in root else []
    while stack:
        item = stack.pop()
        if isinstance(item, pikepdf.Array):
            stack.extend(item)
        elif isinstance(item, pikepdf.Dictionary) and item.get("/Type") == "/StructElem":
            yield item
            if "/K" in item:
                stack.append(item.K)


def _mcids(elem: pikepdf.Object) -> list[int]:
    kids = elem.get("/K")
    items = list(kids) if isinstance(kids, pikepdf.Array) else [kids] if kids is not None else []
    return [int(k) for k in items if isinstance(k, int)]


def problems(data: bytes) -> list[str]:
    """Every rule broken, as sentences; an empty list means the document passes."""
    found: list[str] = []
    with pikepdf.open(io.BytesIO(data)) as pdf:
        root = pdf.Root.get("/StructTreeRoot")
        if root is None:
            return ["no StructTreeRoot"]
        if pdf.Root.get("/MarkInfo", {}).get("/Marked") is not True:
            found.append("MarkInfo /Marked is not true")
        nums = list(root.ParentTree.Nums)
        parent_tree = {int(nums[i]): nums[i + 1] for i in range(0, len(nums), 2)}
        for number, page in enumerate(pdf.pages):
            depth = 0
            mcids_here: list[int] = []
            for operands, operator in pikepdf.parse_content_stream(page):
                op = str(operator)
                if op in ("BDC", "BMC"):
                    depth += 1
                    if op == "BDC" and isinstance(operands[1], pikepdf.Dictionary) and "/MCID" in operands[1]:
                        mcids_here.append(int(operands[1].MCID))
                elif op == "EMC":
                    depth -= 1
                elif op in PAINTING and depth == 0:
                    found.append(f"page {number + 1}: '{op}' outside marked content and artifacts")
            if "/Trans" in page.obj:
                found.append(f"page {number + 1}: /Trans is present")
            if mcids_here:
                key = int(page.obj.get("/StructParents", -1))
                owners = parent_tree.get(key)
                if owners is None:
                    found.append(f"page {number + 1}: its StructParents {key} is not in the ParentTree")
                    continue
                for mcid in mcids_here:
                    if mcid >= len(owners) or mcid not in _mcids(owners[mcid]):
                        found.append(f"page {number + 1}: MCID {mcid} is not reachable through the ParentTree")
        for elem in _struct_elements(root):
            role = str(elem.S)
            if role == "/Figure" and not str(elem.get("/Alt", "")).strip():
                found.append("a Figure has no Alt")
            if role == "/TH" and "/Scope" not in elem.get("/A", {}):
                found.append("a TH has no Scope")
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font" and obj.get("/Subtype") != "/Type0":
                if obj.get("/Subtype") == "/CIDFontType2":
                    continue
                descriptor = obj.get("/FontDescriptor")
                if descriptor is None or not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                    found.append(f"font {obj.get('/BaseFont')} is not embedded")
        with pdf.open_metadata() as meta:
            if meta.get("dc:title") != str(pdf.docinfo.get(Name.Title, "")):
                found.append("XMP dc:title and the document info Title disagree")
        if "/Lang" not in pdf.Root:
            found.append("no /Lang")
    return found
