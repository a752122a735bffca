"""The web workbench at `/`: signing a browser in and out (`signin`), and the page of each
signed-in browser session (`page`): the workspace bar over the gallery of designs or over the
canvas editor (`workbench.editor`, the component the notebook also shows inline)."""
