#!/usr/bin/env bash
# Re-create the bundled font catalog in engine/fonts/.
#
# For maintainers only: this is never run at install or test time; the
# resulting files are committed to the repository.
#
# What it does:
#   1. `npm pack @expo-google-fonts/<slug>@<version>` for every family below
#      (in a temporary directory outside the repo) and extracts the tarball;
#   2. copies the static TTFs, unmodified, into engine/fonts/<slug>/ --
#      upright weights 300..800 (900 only when a family has fewer than three
#      of 300..800), italics for 400 and 700 -- plus the package's font
#      licence (LICENSE_FONT) as OFL.txt;
#   3. `apt-get install fonts-dejavu-core fonts-dejavu-extra` (DejaVu Sans
#      Regular/Bold come from -core, Oblique/BoldOblique from -extra) and
#      copies the four DejaVu Sans faces plus Debian's copyright file as
#      LICENSE.txt into engine/fonts/dejavu-sans/;
#   4. checks every TTF with ReportLab (load, draw a string, save a PDF),
#      reads each font's `name` table (copyright, ID 0; licence, ID 13) into a
#      NOTICE.txt, measures latin/greek/cyrillic coverage and the scripts
#      (ISO 15924) of the 400 face and writes engine/fonts/catalog.json.
#
# Script families (Noto Sans Arabic ... KR, issue 16; Lao, Khmer, Myanmar, issue 33) ship regular and bold
# only; a CJK family is built for one locale, named in its line (Hans, Jpan,
# Kore): engine/fonts/README.md says how scripts are measured.
#
# Usage:  scripts/fetch_fonts.sh            everything above
#         scripts/fetch_fonts.sh --catalog  step 4 only, from the TTFs already in
#                                           engine/fonts/ (no npm, no apt; DejaVu's
#                                           NOTICE.txt is left as it is)
# Env:    PYTHON  interpreter with reportlab and fontTools (default: .venv/bin/python)
#         FONTS_WORK  scratch directory (default: a new mktemp -d)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/engine/fonts"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="${FONTS_WORK:-$(mktemp -d /tmp/fonts-work.XXXXXX)}"

# slug | pinned npm version | family id | class | tags (comma separated)
FAMILIES='
inter|0.4.2|Inter|sans|recommended,popular
roboto|0.4.3|Roboto|sans|popular
open-sans|0.4.2|Open Sans|sans|popular
lato|0.4.1|Lato|sans|recommended,popular
montserrat|0.4.2|Montserrat|sans|popular
poppins|0.4.1|Poppins|sans|popular
source-sans-3|0.4.1|Source Sans 3|sans|recommended
nunito|0.4.2|Nunito|sans|
work-sans|0.4.2|Work Sans|sans|
merriweather|0.4.2|Merriweather|serif|recommended
playfair-display|0.4.2|Playfair Display|serif|recommended,popular
lora|0.4.2|Lora|serif|recommended
eb-garamond|0.4.3|EB Garamond|serif|
libre-baskerville|0.4.3|Libre Baskerville|serif|
cormorant-garamond|0.4.1|Cormorant Garamond|serif|
oswald|0.4.2|Oswald|display|popular
bebas-neue|0.4.1|Bebas Neue|display|
abril-fatface|0.4.1|Abril Fatface|display|
cinzel|0.4.2|Cinzel|display|
lobster|0.4.1|Lobster|display|
dancing-script|0.4.2|Dancing Script|handwriting|
great-vibes|0.4.1|Great Vibes|handwriting|
pacifico|0.4.1|Pacifico|handwriting|
caveat|0.4.2|Caveat|handwriting|
'

# Families for the scripts the design families lack, after DejaVu Sans in the
# catalog: slug | pinned npm version | family id | class | CJK locale (or empty).
# Regular (400) and bold (700) only, no italics (Noto has none for these).
SCRIPT_FAMILIES='
noto-sans-arabic|0.4.3|Noto Sans Arabic|sans|
noto-sans-hebrew|0.4.1|Noto Sans Hebrew|sans|
noto-sans-devanagari|0.4.1|Noto Sans Devanagari|sans|
noto-sans-bengali|0.4.4|Noto Sans Bengali|sans|
noto-sans-tamil|0.4.3|Noto Sans Tamil|sans|
noto-sans-thai|0.4.2|Noto Sans Thai|sans|
noto-sans-lao|0.4.2|Noto Sans Lao|sans|
noto-sans-khmer|0.4.3|Noto Sans Khmer|sans|
noto-sans-myanmar|0.4.2|Noto Sans Myanmar|sans|
noto-sans-sc|0.4.3|Noto Sans SC|sans|Hans
noto-sans-jp|0.4.3|Noto Sans JP|sans|Jpan
noto-sans-kr|0.4.3|Noto Sans KR|sans|Kore
'

CATALOG_ONLY=""
[ "${1:-}" = "--catalog" ] && CATALOG_ONLY=1

"$PY" -c 'import reportlab, fontTools' || { echo "$PY has no reportlab or fontTools" >&2; exit 1; }
mkdir -p "$WORK/pkg" "$DEST"

if [ -z "$CATALOG_ONLY" ]; then
command -v npm >/dev/null || { echo "npm is required" >&2; exit 1; }
echo "scratch: $WORK"

# 1. npm pack + extract
while IFS='|' read -r slug version _; do
  [ -n "$slug" ] || continue
  (cd "$WORK" && npm pack --silent "@expo-google-fonts/$slug@$version" >/dev/null)
  rm -rf "$WORK/pkg/$slug" && mkdir -p "$WORK/pkg/$slug"
  tar -xzf "$WORK/expo-google-fonts-$slug-$version.tgz" -C "$WORK/pkg/$slug"
done <<<"$FAMILIES$SCRIPT_FAMILIES"

# 3. DejaVu Sans from Debian
DJV=/usr/share/fonts/truetype/dejavu
if [ ! -f "$DJV/DejaVuSans.ttf" ] || [ ! -f "$DJV/DejaVuSans-Oblique.ttf" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update
  $SUDO apt-get install -y fonts-dejavu-core fonts-dejavu-extra
fi
DJV_CORE_VERSION="$(dpkg-query -W -f='${Version}' fonts-dejavu-core)"
DJV_EXTRA_VERSION="$(dpkg-query -W -f='${Version}' fonts-dejavu-extra)"
rm -rf "$DEST/dejavu-sans" && mkdir -p "$DEST/dejavu-sans"
cp "$DJV/DejaVuSans.ttf" "$DJV/DejaVuSans-Bold.ttf" \
   "$DJV/DejaVuSans-Oblique.ttf" "$DJV/DejaVuSans-BoldOblique.ttf" "$DEST/dejavu-sans/"
cp /usr/share/doc/fonts-dejavu-core/copyright "$DEST/dejavu-sans/LICENSE.txt"
fi

# 2 + 4. select/copy, verify, NOTICE.txt, catalog.json
export FAMILIES SCRIPT_FAMILIES WORK DEST CATALOG_ONLY
export DJV_CORE_VERSION="${DJV_CORE_VERSION:-}" DJV_EXTRA_VERSION="${DJV_EXTRA_VERSION:-}"
"$PY" - <<'PYEOF'
import io, json, os, re, shutil, struct, sys, unicodedata

from fontTools.ttLib import TTFont as ToolsFont

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

WORK, DEST = os.environ["WORK"], os.environ["DEST"]
CATALOG_ONLY = bool(os.environ["CATALOG_ONLY"])
BODY = (300, 400, 500, 600, 700, 800)
SAMPLES = {
    "latin": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\u00e9",
    "greek": "\u03a9\u03b1\u03b2\u03b3",
    "cyrillic": "\u0416\u0436\u044f",
}


def name_table(path):
    """{name_id: str} from the font's `name` table (Windows English first)."""
    data = open(path, "rb").read()
    (num,) = struct.unpack(">H", data[4:6])
    for i in range(num):
        tag, _, off, _ = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
        if tag == b"name":
            break
    else:
        return {}
    _, count, stroff = struct.unpack(">HHH", data[off:off + 6])
    win, mac = {}, {}
    for j in range(count):
        pid, eid, lid, nid, ln, o = struct.unpack(
            ">6H", data[off + 6 + 12 * j:off + 18 + 12 * j])
        raw = data[off + stroff + o:off + stroff + o + ln]
        if pid == 3 and eid in (1, 10) and lid == 0x409:
            win.setdefault(nid, raw.decode("utf-16-be"))
        elif pid == 1 and eid == 0 and lid == 0:
            mac.setdefault(nid, raw.decode("mac_roman"))
    return {**mac, **win}


def licence_of(names):
    text = names.get(13, "") + " " + names.get(14, "")
    if "Open Font License" in text or "/OFL" in text:
        return "OFL-1.1"
    if "Apache" in text:
        return "Apache-2.0"
    if "Bitstream" in text or "Vera" in text:
        return "Bitstream-Vera (DejaVu changes: public domain)"
    sys.exit("cannot tell licence: %r" % text)


def verify(path, text):
    """Load with ReportLab, draw a string, save a PDF; returns the codepoint map."""
    fid = "chk%d" % abs(hash(path))
    font = TTFont(fid, path)
    pdfmetrics.registerFont(font)
    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.setFont(fid, 18)
    c.drawString(40, 780, text)
    c.showPage()
    c.save()
    assert buf.getvalue().startswith(b"%PDF"), path
    return font.face.charToGlyph


def coverage(cmap):
    return [k for k, s in SAMPLES.items() if all(ord(ch) in cmap for ch in s)]


# Scripts (ISO 15924). An alphabetic script is covered when the 400 face's cmap
# has every letter (Unicode general category L*) of the script's core range:
LETTER_RANGES = {
    "Latn": [(0x41, 0x5A), (0x61, 0x7A)],  # A-Z a-z
    "Grek": [(0x391, 0x3A9), (0x3B1, 0x3C9)],  # Alpha-Omega alpha-omega
    "Cyrl": [(0x410, 0x44F)],  # A-ya
    "Arab": [(0x621, 0x64A)],  # hamza .. yeh
    "Hebr": [(0x5D0, 0x5EA)],  # alef .. tav
    "Deva": [(0x904, 0x939)],  # short a .. ha
    "Beng": [(0x985, 0x9B9)],  # a .. ha
    "Taml": [(0xB85, 0xBB9)],  # a .. ha
    "Thai": [(0xE01, 0xE30)],  # ko kai .. sara a
    "Laoo": [(0xE81, 0xEAE)],  # ko .. ho tam (the consonants)
    "Khmr": [(0x1780, 0x17A2)],  # ka .. qa (the consonants)
    "Mymr": [(0x1000, 0x1021)],  # ka .. a (the consonants)
}
# A CJK family is designed for one locale (Han glyph shapes differ between
# Chinese, Japanese and Korean, which no cmap shows), named in its line; it
# lists that locale's code -- and Japanese's kana, Korean's Hangul -- once its
# cmap holds the locale's national character set: GB 2312's 6,763 hanzi; JIS X
# 0208's 6,355 kanji and its 169 kana; KS X 1001's 2,350 Hangul syllables.
CJK_SETS = {  # code -> (codec, lead-byte rows of the set's letters), scripts listed
    "Hans": (("gb2312", range(0xB0, 0xF8)), ["Hans"]),
    "Jpan": (("euc_jp", [*range(0xA4, 0xA6), *range(0xB0, 0xF5)]), ["Jpan", "Hira", "Kana"]),
    "Kore": (("euc_kr", range(0xB0, 0xC9)), ["Kore", "Hang"]),
}


def letters(ranges):
    return [c for lo, hi in ranges for c in range(lo, hi + 1)
            if unicodedata.category(chr(c)).startswith("L")]


def national_set(codec, rows):
    found = set()
    for lead in rows:
        for trail in range(0xA1, 0xFF):
            try:
                text = bytes([lead, trail]).decode(codec)
            except UnicodeDecodeError:
                continue
            if len(text) == 1 and unicodedata.category(text).startswith("L"):
                found.add(ord(text))
    return found


def scripts_of(path, locale):
    cmap = ToolsFont(path, lazy=True).getBestCmap()
    found = [code for code, ranges in LETTER_RANGES.items()
             if all(c in cmap for c in letters(ranges))]
    if locale:
        (codec, rows), listed = CJK_SETS[locale]
        missing = national_set(codec, rows) - set(cmap)
        if missing:
            sys.exit("%s: lacks %d characters of the %s set" % (path, len(missing), locale))
        found += listed
    return found


def upright_files(out_dir, slug):
    """{file key: relative path} of the TTFs in a family folder (the chosen ones)."""
    files = {}
    for name in sorted(os.listdir(out_dir)):
        m = re.fullmatch(r"[A-Za-z0-9]+_(\d00)[A-Za-z]+(_Italic)?\.ttf", name)
        if m:
            files[file_key(int(m.group(1)), bool(m.group(2)))] = "%s/%s" % (slug, name)
    return files


def file_key(weight, italic):
    return "%d%s" % (weight, "italic" if italic else "")


def sort_files(files):
    return dict(sorted(files.items(),
                       key=lambda kv: (int(kv[0][:3]), kv[0].endswith("italic"))))


def copy_family(slug, version, weights_wanted):
    """Select the TTFs from the npm package and copy them (with OFL.txt) into DEST/<slug>."""
    pkg = os.path.join(WORK, "pkg", slug, "package")
    meta = json.load(open(os.path.join(pkg, "package.json")))
    if (meta["name"], meta["version"]) != ("@expo-google-fonts/" + slug, version):
        sys.exit("%s: package.json says %s %s" % (slug, meta["name"], meta["version"]))
    avail = {}  # (weight, italic) -> path
    for sub in sorted(os.listdir(pkg)):
        m = re.fullmatch(r"(\d00)[A-Za-z]+(_Italic)?", sub)
        if not m:
            continue
        ttfs = [f for f in os.listdir(os.path.join(pkg, sub)) if f.endswith(".ttf")]
        if len(ttfs) != 1:
            continue
        avail[(int(m.group(1)), bool(m.group(2)))] = os.path.join(pkg, sub, ttfs[0])
    uprights = sorted(w for (w, it) in avail if not it)
    if weights_wanted:  # a script family: exactly these, upright
        chosen = {(w, False) for w in weights_wanted}
    else:
        weights = [w for w in uprights if w in BODY]
        if len(weights) < 3:
            weights = sorted(set(weights) | ({900} & set(uprights)))
        if not weights:  # e.g. a single-weight face outside 300..900
            weights = uprights
        chosen = {(w, False) for w in weights}
        chosen |= {(w, True) for w in (400, 700) if w in weights and (w, True) in avail}

    out_dir = os.path.join(DEST, slug)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    for w, it in sorted(chosen):
        shutil.copyfile(avail[(w, it)], os.path.join(out_dir, os.path.basename(avail[(w, it)])))
    lic_src = os.path.join(pkg, "LICENSE_FONT")
    if not os.path.exists(lic_src):
        sys.exit("%s: no LICENSE_FONT in the npm package" % slug)
    shutil.copyfile(lic_src, os.path.join(out_dir, "OFL.txt"))


def google_entry(slug, version, fam_id, klass, tags, locale):
    """Verify a family folder's TTFs, write its NOTICE.txt, return its catalog entry."""
    out_dir = os.path.join(DEST, slug)
    files = upright_files(out_dir, slug)
    weights = sorted(int(k) for k in files if not k.endswith("italic"))
    cov = None
    for key, rel in sort_files(files).items():
        cmap = verify(os.path.join(DEST, rel), "%s %s Invoice \u00e9 0123" % (fam_id, key))
        if key == "400" or (cov is None and not key.endswith("italic")):
            cov = coverage(cmap)
        if key == "400":
            names = name_table(os.path.join(DEST, rel))
    if "400" not in files:
        names = name_table(os.path.join(DEST, next(iter(sort_files(files).values()))))
    regular = files.get("400") or next(iter(sort_files(files).values()))
    scripts = scripts_of(os.path.join(DEST, regular), locale)
    lic = licence_of(names)
    if lic != "OFL-1.1" and "OFL" in open(os.path.join(out_dir, "OFL.txt")).read(200):
        sys.exit("%s: name table licence %s disagrees with LICENSE_FONT" % (slug, lic))
    with open(os.path.join(out_dir, "NOTICE.txt"), "w") as fh:
        fh.write(
            "Font family: %s\n"
            "Copyright (font name table, ID 0): %s\n"
            "Licence: %s (full text in OFL.txt, as shipped in the package)\n"
            "Source: npm package %s %s; TTF files copied unmodified.\n"
            % (fam_id, names.get(0, "").strip(), "SIL Open Font License 1.1 (OFL-1.1)"
               if lic == "OFL-1.1" else lic, "@expo-google-fonts/" + slug, version))
    print("%-20s %-11s %-30s %-8s %s" % (fam_id, klass, weights, lic, " ".join(scripts)))
    return {
        "id": fam_id, "class": klass, "source": "google",
        "weights": weights,
        "tags": [t for t in tags.split(",") if t],
        "files": sort_files(files), "coverage": cov, "scripts": scripts,
    }


def lines(name):
    return [line.split("|") for line in os.environ[name].strip().splitlines()]


if not CATALOG_ONLY:
    for slug, version, *_ in lines("FAMILIES"):
        copy_family(slug, version, None)
    for slug, version, *_ in lines("SCRIPT_FAMILIES"):
        copy_family(slug, version, (400, 700))

catalog = [google_entry(slug, version, fam_id, klass, tags, "")
           for slug, version, fam_id, klass, tags in lines("FAMILIES")]

# DejaVu Sans (Debian)
dj = {"400": "dejavu-sans/DejaVuSans.ttf",
      "400italic": "dejavu-sans/DejaVuSans-Oblique.ttf",
      "700": "dejavu-sans/DejaVuSans-Bold.ttf",
      "700italic": "dejavu-sans/DejaVuSans-BoldOblique.ttf"}
for key, rel in dj.items():
    cmap = verify(os.path.join(DEST, rel), "DejaVu Sans %s \u00e9 \u03a9 \u0416" % key)
    if key == "400":
        dj_cov = coverage(cmap)
        dj_names = name_table(os.path.join(DEST, rel))
        dj_scripts = scripts_of(os.path.join(DEST, rel), "")
if not CATALOG_ONLY:
  with open(os.path.join(DEST, "dejavu-sans", "NOTICE.txt"), "w") as fh:
    fh.write(
        "Font family: DejaVu Sans\n"
        "Copyright (font name table, ID 0): %s\n"
        "Licence: Bitstream Vera Fonts licence; DejaVu changes are in the public domain.\n"
        "  Full text in LICENSE.txt (Debian's copyright file for fonts-dejavu-core).\n"
        "Source: Debian packages fonts-dejavu-core %s (DejaVuSans.ttf, DejaVuSans-Bold.ttf)\n"
        "  and fonts-dejavu-extra %s (DejaVuSans-Oblique.ttf, DejaVuSans-BoldOblique.ttf);\n"
        "  TTF files copied unmodified.\n"
        % (dj_names.get(0, "").strip().replace("\n", " "),
           os.environ["DJV_CORE_VERSION"], os.environ["DJV_EXTRA_VERSION"]))
catalog.append({
    "id": "DejaVu Sans", "class": "sans", "source": "bundled",
    "weights": [400, 700], "tags": [], "files": dj, "coverage": dj_cov,
    "scripts": dj_scripts,
})
print("%-20s %-11s %-30s %-8s %s" % ("DejaVu Sans", "sans", [400, 700], "Vera", " ".join(dj_scripts)))

catalog += [google_entry(slug, version, fam_id, klass, "", locale)
            for slug, version, fam_id, klass, locale in lines("SCRIPT_FAMILIES")]

with open(os.path.join(DEST, "catalog.json"), "w") as fh:
    json.dump(catalog, fh, indent=2, ensure_ascii=False)
    fh.write("\n")
print("catalog: %d entries" % len(catalog))
PYEOF

du -sh "$DEST"
