"""Uploading images to a test server."""

from __future__ import annotations


def upload(client, data, filename="image.png", content_type="image/png", **form):
    return client.post("/uploads", files={"file": (filename, data, content_type)}, data=form)
