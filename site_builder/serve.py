"""``kernelindex serve``: preview the built site on http://127.0.0.1:PORT/ (local only)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

import click


class _Handler(http.server.SimpleHTTPRequestHandler):
    # Serve 404.html for missing paths, as GitHub Pages does, so the preview matches the host.
    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.is_file():
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)


@click.command(name="serve")
@click.option("--dir", "directory", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("site"),
              show_default=True, help="The built site.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
def command(directory: Path, port: int) -> None:
    """Preview the built site on a local HTTP server."""
    if not (directory / "index.html").is_file():
        raise click.ClickException(f"{directory} has no index.html: run `kernelindex build` first")
    handler = functools.partial(_Handler, directory=str(directory.resolve()))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        click.echo(f"Serving {directory} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("stopped")
