"""The local web app (`git mem serve`) and its JSON API.

Imported only by the `serve` command: every other command stays free of
Starlette, Jinja2 and uvicorn (tests/test_web.py checks it)."""
