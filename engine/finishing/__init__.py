"""What a caller asks of one render beyond the design (extensions.md 9): the `options`
value (`Finishing`), and each step it names: `attachments`, `einvoice` (Factur-X),
`watermark`, `encryption` and `signing` (PAdES, applied last)."""
