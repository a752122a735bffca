"""The one server: `app` composes the workbench, the API, MCP and files on one Tornado
application (the only module that imports every face); `headers` are the security headers
of every response; `signin_links` the one-time links `docbench serve` prints."""
