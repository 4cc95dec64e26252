"""Hand a file to the browser of this session only: no URL on the server that could be fetched later.

`st.download_button` keeps the bytes in Streamlit's media store and serves them at
`/media/<id>`, an address that answers any client, with no cookie and no login, until the
server happens to sweep it: the weekly report was still served (200, the whole report) after the
browser that downloaded it had closed. The login (`auth.gate`) guards the pages, not that route.

Here the bytes travel inside this session's own messages over its WebSocket, which only a
session past `auth.gate` receives, as a small frame that turns them into a Blob in the browser
and saves it. The `blob:` address exists in that page only and ends with it; the server stores
nothing, so nothing outlives the session or answers without one.

The file is made only when its button is clicked (the HTML report carries plotly.js, several
MB), and only on that run: the next interaction removes the frame and its bytes from the page.
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable

import streamlit as st

FRAME_HEIGHT = 36  # px: one line, "Saved NAME · save again"


def frame_html(data: bytes, file_name: str, mime: str, nonce: str) -> str:
    """The frame's document: the bytes as base64 (an alphabet that cannot end the element it sits
    in), saved once on load; `nonce` keeps a re-drawn frame from saving the same click twice."""
    payload = base64.b64encode(data).decode("ascii")
    name, kind, once = json.dumps(file_name), json.dumps(mime), json.dumps(f"ta-download-{nonce}")
    return (
        "<!doctype html><html><head><meta charset='utf-8'><style>"
        "body{margin:0;padding:6px 0;font:14px system-ui,sans-serif;color:#31333f}a{color:#1c6dd0}"
        "</style></head><body>"
        f"<script id='payload' type='application/octet-stream'>{payload}</script>"
        "<span id='state'>Preparing…</span> <a id='save' href='#'></a>"
        "<script>"
        "const raw=atob(document.getElementById('payload').textContent);"
        "const bytes=new Uint8Array(raw.length);"
        "for(let i=0;i<raw.length;i++)bytes[i]=raw.charCodeAt(i);"
        f"const a=document.getElementById('save');a.download={name};"
        f"a.href=URL.createObjectURL(new Blob([bytes],{{type:{kind}}}));"
        "a.textContent='save again';"
        f"document.getElementById('state').textContent='Saved '+{name}+' ·';"
        f"let first=true;try{{first=!sessionStorage.getItem({once});sessionStorage.setItem({once},'1');}}"
        "catch(e){}"
        "if(first)a.click();"
        "</script></body></html>"
    )


def _embed(document: str) -> None:
    frame = getattr(st, "iframe", None)  # Streamlit 1.5x+; components.v1.html before (deprecated after)
    if frame is not None:
        frame(document, height=FRAME_HEIGHT)
    else:
        from streamlit.components.v1 import html

        html(document, height=FRAME_HEIGHT)


def offer(container, label: str, make: Callable[[], str | bytes], file_name: str, mime: str, key: str) -> bool:
    """A button in `container` that saves `make()` as `file_name` in this browser; True on the run it
    was clicked."""
    if not container.button(label, key=key, icon=":material/download:"):
        return False
    data = make()
    if isinstance(data, str):
        data = data.encode("utf-8")
    with container:
        _embed(frame_html(data, file_name, mime, secrets.token_hex(8)))
    return True
