"""`git mem serve`: the notebook in a browser, and the JSON API."""

from __future__ import annotations

import click

from .common import notebook


@click.command()
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port to listen on; 0 picks a free one (the URL is printed).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; anything but localhost needs --token.")
@click.option("--token", envvar="GITMEM_WEB_TOKEN", metavar="SECRET",
              help="Require this secret on every request (Bearer header, or the printed URL once). "
                   "[env: GITMEM_WEB_TOKEN]")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also answer requests addressed to this host name (e.g. a name other machines use for "
                   "this one); others get 421.")
@click.option("--open", "open_browser", is_flag=True, help="Open the notebook in the default browser.")
@click.option("--remote-images", is_flag=True, help="Load images from other sites that notes link to (off: "
                                                    "reading a note never contacts a third party).")
def serve(port: int, host: str, token: str | None, allow_hosts: tuple[str, ...], open_browser: bool,
          remote_images: bool) -> None:
    """Serve the notebook in a browser (browse, edit, search, history, status)
    and as a JSON API under /api/.

    Listens on 127.0.0.1 only, unless --host says otherwise (then --token is
    required). Every edit is one commit through the same write path as 'git mem
    write', the guard included. Needs the optional web packages:
    pip install 'gitmem-notebook[web]'. See docs/web.md.

    \b
    Examples:
      git mem serve --open                  http://127.0.0.1:8765/ in your browser
      git mem serve --port 0                any free port; the URL is printed
      git mem serve --host 0.0.0.0 --token "$(openssl rand -hex 16)"
      curl -s http://127.0.0.1:8765/api/debug/memory/status
    """
    from ..errors import GitmemError
    from ..web import serve as server

    absent = server.missing()
    if absent:
        raise GitmemError(f"the web packages are not installed ({', '.join(absent)} missing)",
                          "pip install 'gitmem-notebook[web]'")
    server.serve(notebook().top, host, port, token, open_browser, remote_images, click.echo, allow_hosts)


COMMANDS = [serve]
