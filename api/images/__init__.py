"""The service's image internals: checking and rasterising uploads (`processing`) and
fetching `https://` sources safely (`fetch`). Used by `api.service.media` and the render
processes; nothing here touches HTTP handlers or the database."""
