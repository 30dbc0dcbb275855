#!/usr/bin/env python3
"""Forum posts as a forum shows them, for tests/it/forum.rs.

    forum_render.py page --markup markdown|bbcode POST HTML [--visible TEXT]...
                         [--hidden TEXT]... [--literal TEXT]...
    forum_render.py png FILE

`page` writes an HTML page for headless Chromium: the post rendered as its forum
would render it, in a page laid out like that forum's, with an inline script
that measures, once laid out, where each TEXT lands and writes its verdict as
JSON into <pre id="verdict">.

- Markdown goes through markdown-it-py in CommonMark mode (raw HTML allowed, as
  Discourse and GitHub allow <details>), in a Discourse-like page: a header and
  topic title above the post, code blocks at most 500 px high.
- BBCode goes through a mapping of phpBB's own BBCodes (b, i, u, code, list, *,
  quote, url, color, size), in a phpBB-like page: prosilver's header and
  `dl.codebox`, whose code element is at most 200 px high and scrolls.

For each --visible TEXT the verdict says whether it is found, whether it lies in
a code box, and whether all of it is on the first screen, drawn and not clipped
by a scrolling box; --hidden TEXT should not be drawn (a folded legend);
--literal TEXT should appear as text, no markup made of it.

`png` prints the size of a PNG screenshot and how much of it is not background,
decoded with the standard library alone.
"""

import argparse
import html
import json
import re
import struct
import sys
import zlib

PHPBB_CSS = """
body { margin: 0; background: #F5F7FA; font: 10px Verdana, "DejaVu Sans", sans-serif;
       width: 100%; }
.headerbar { height: 130px; background: #12A3EB; color: #fff; padding: 0 10px; }
.headerbar h1 { margin: 0; padding-top: 40px; font-size: 20px; }
h2.topic-title { font: normal 20px "Trebuchet MS", "DejaVu Sans", sans-serif;
                 color: #105289; margin: 10px; }
.post { background: #ECF3F7; margin: 4px 10px; padding: 5px 10px; border-radius: 7px; }
.postbody { font-size: 13px; line-height: 1.4em; color: #333; }
.content { font-family: "Lucida Grande", "Trebuchet MS", "DejaVu Sans", sans-serif;
           padding-bottom: 1px; min-height: 3em; overflow: hidden; }
.content ul { margin: 0.3em 0 0.3em 2em; padding: 0; }
dl.codebox { padding: 3px; background: #fff; border: 1px solid #C9D2D8;
             font-size: 1em; margin: 1em 1px; }
dl.codebox dt { text-transform: uppercase; border-bottom: 1px solid #CCCCCC;
                margin-bottom: 3px; font-size: 0.8em; font-weight: bold; display: block; }
dl.codebox dd { margin: 0; }
dl.codebox code { overflow: auto; display: block; height: auto; max-height: 200px;
                  white-space: pre; padding-top: 5px;
                  font: 0.9em Monaco, "Andale Mono", "DejaVu Sans Mono", monospace;
                  line-height: 1.3em; color: #2E8B57; margin: 2px 0; }
"""

DISCOURSE_CSS = """
body { margin: 0; background: #fff; color: #222;
       font: 15px/1.4 -apple-system, "DejaVu Sans", sans-serif; }
.d-header { height: 60px; border-bottom: 1px solid #ddd; box-shadow: 0 2px 4px #0001; }
.title-wrapper h1 { font-size: 24px; margin: 20px 16px 10px; }
.topic-post { display: flex; margin: 0 16px; border-top: 1px solid #eee; padding-top: 15px; }
.avatar { width: 45px; height: 45px; border-radius: 50%; background: #b3b5b4;
          margin-right: 11px; flex: none; }
.names { font-weight: bold; margin-bottom: 8px; }
.cooked { max-width: 690px; }
.cooked p, .cooked ul { margin: 0 0 10px; }
.cooked pre { margin: 0 0 10px; }
.cooked pre code { display: block; max-height: 500px; overflow: auto; padding: 12px;
                   background: #f9f9f9; white-space: pre;
                   font: 14px/1.3 Consolas, "DejaVu Sans Mono", monospace; }
"""

# Runs once the post is laid out: where each text lands, as the reader sees it.
MEASURE = r"""
(function () {
  const spec = JSON.parse(document.getElementById('checks').textContent);
  const post = document.getElementById('post');
  const nodes = [];
  let all = '';
  const walker = document.createTreeWalker(post, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push([n, all.length]);
    all += n.data;
  }
  function range(text) {
    const at = all.indexOf(text);
    if (at < 0) return null;
    const end = at + text.length;
    const r = document.createRange();
    for (const [n, start] of nodes) {
      if (start <= at && at <= start + n.data.length) r.setStart(n, at - start);
      if (start < end && end <= start + n.data.length) { r.setEnd(n, end - start); break; }
    }
    return r;
  }
  function clippedBy(el, rect) {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowY !== 'visible' || style.overflowX !== 'visible') {
        const box = a.getBoundingClientRect();
        if (rect.top < box.top - 0.5 || rect.bottom > box.bottom + 0.5 ||
            rect.left < box.left - 0.5 || rect.right > box.right + 0.5) return true;
      }
    }
    return false;
  }
  function measure(text) {
    const r = range(text);
    if (!r) return {text: text, found: false, drawn: false, visible: false};
    const el = r.startContainer.parentElement;
    const rects = Array.from(r.getClientRects()).filter(x => x.width > 0 && x.height > 0);
    // A folded <details> keeps its content laid out but not drawn.
    const drawn = rects.length > 0 && el.checkVisibility({contentVisibilityAuto: true,
                                                          opacityProperty: true,
                                                          visibilityProperty: true});
    const onScreen = drawn && rects.every(x => x.top >= 0 && x.bottom <= innerHeight &&
                                          x.left >= 0 && x.right <= innerWidth);
    const clipped = rects.some(x => clippedBy(el, x));
    const hit = drawn && rects.every(x => {
      const e = document.elementFromPoint(x.left + x.width / 2, x.top + x.height / 2);
      return e !== null && (e === el || e.contains(el) || el.contains(e));
    });
    return {
      text: text, found: true, drawn: drawn,
      in_code: el.closest('pre, code, dl.codebox') !== null,
      top: drawn ? Math.round(rects[0].top) : null,
      visible: drawn && onScreen && !clipped && hit,
    };
  }
  const boxes = Array.from(post.querySelectorAll('code'))
    .filter(c => c.closest('pre, dl.codebox') !== null);
  const text = post.textContent;
  const verdict = {
    viewport: [innerWidth, innerHeight],
    visible: spec.visible.map(measure),
    hidden: spec.hidden.map(measure),
    literal: spec.literal.map(t => ({text: t, found: text.includes(t)})),
    emphasis: post.querySelectorAll('em, i').length,
    // Elements markup made around some text (an empty one, as BBCode escaping
    // leaves, shows nothing).
    marked: Array.from(post.querySelectorAll(
      'em, i, strong, b, a, code, h1, h2, h3, h4, h5, h6, li, blockquote, table, del, s'))
      .filter(e => e.textContent.length > 0).length,
    code_boxes: boxes.map(c => ({height: c.clientHeight, full: c.scrollHeight,
                                 clipped: c.scrollHeight > c.clientHeight + 1})),
  };
  // JSON with <, > and & spelled as escapes survives --dump-dom's serialisation.
  document.getElementById('verdict').textContent = JSON.stringify(verdict)
    .replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
})();
"""


def markdown_html(text):
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        sys.stderr.write("markdown-it-py is missing (pip install markdown-it-py)\n")
        sys.exit(3)
    return MarkdownIt("commonmark").render(text)


BB_TAG = re.compile(
    r"\[(/?)(b|i|u|code|list|\*|quote|url|color|size)(=[^\]]*)?\]", re.IGNORECASE
)


def bbcode_html(text):
    """phpBB's BBCodes: text is escaped, a newline is a <br> outside lists and
    code, only [/code] ends a code block (nothing inside it is parsed), a tag
    that is not one of these stays text, and open tags close at the end."""
    out = []
    stack = []
    at = 0
    while at < len(text):
        match = BB_TAG.search(text, at)
        if not match:
            out.append(plain(text[at:], stack))
            break
        out.append(plain(text[at:match.start()], stack))
        closing, name, arg = match.group(1), match.group(2).lower(), match.group(3)
        at = match.end()
        if name == "code" and not closing:
            end = text.lower().find("[/code]", at)
            body = text[at:] if end < 0 else text[at:end]
            at = len(text) if end < 0 else end + len("[/code]")
            # phpBB drops the line break right after [code] and right before [/code].
            body = re.sub(r"^\r?\n", "", body)
            body = re.sub(r"\r?\n$", "", body)
            out.append('<dl class="codebox"><dt>Code: <a href="#">Select all</a></dt>'
                       "<dd><code>" + html.escape(body) + "</code></dd></dl>")
            at = skip_newline(text, at)
        elif name == "*" and not closing:
            if stack and stack[-1] == "li":
                out.append("</li>")
                stack.pop()
            if stack and stack[-1] == "ul":
                out.append("<li>")
                stack.append("li")
            else:
                out.append(html.escape(match.group(0)))
        elif name == "list" and not closing:
            out.append("<ul>")
            stack.append("ul")
            at = skip_newline(text, at)
        elif name == "list" and closing:
            if "ul" in stack:
                while stack and stack[-1] != "ul":
                    out.append(close(stack.pop()))
                out.append(close(stack.pop()))
                at = skip_newline(text, at)
            else:
                out.append(html.escape(match.group(0)))
        elif closing:
            if name in stack:
                while stack and stack[-1] != name:
                    out.append(close(stack.pop()))
                out.append(close(stack.pop()))
            else:
                out.append(html.escape(match.group(0)))
        else:
            out.append(open_tag(name, arg))
            stack.append(name)
    while stack:
        out.append(close(stack.pop()))
    return "".join(out)


def skip_newline(text, at):
    return at + 1 if text.startswith("\n", at) else at


def plain(text, stack):
    escaped = html.escape(text)
    if stack and stack[-1] in ("ul", "li"):
        # Line breaks around list items are layout in the source, not in the post.
        return escaped.replace("\n", " ")
    return escaped.replace("\n", "<br>\n")


def open_tag(name, arg):
    value = html.escape(arg[1:], quote=True) if arg else ""
    return {
        "b": "<strong>",
        "i": "<em>",
        "u": '<span style="text-decoration: underline">',
        "quote": "<blockquote><div>",
        "url": '<a href="%s">' % value,
        "color": '<span style="color: %s">' % value,
        "size": '<span style="font-size: %s%%">' % value,
    }[name]


def close(name):
    return {
        "b": "</strong>", "i": "</em>", "u": "</span>", "quote": "</div></blockquote>",
        "url": "</a>", "color": "</span>", "size": "</span>", "ul": "</ul>", "li": "</li>",
    }[name]


def page(markup, post, checks):
    if markup == "markdown":
        css, body = DISCOURSE_CSS, markdown_html(post)
        frame = ('<div class="d-header"></div><div class="title-wrapper"><h1>Right of Way,'
                 ' a game by forum</h1></div><div class="topic-post"><div class="avatar">'
                 '</div><div><div class="names">referee</div><div class="cooked" id="post">'
                 "%s</div></div></div>")
    else:
        css, body = PHPBB_CSS, bbcode_html(post)
        frame = ('<div class="headerbar"><h1>A phpBB board</h1></div><h2 class="topic-title">'
                 'Re: Right of Way, a game by forum</h2><div class="post"><div class="postbody">'
                 '<div class="content" id="post">%s</div></div></div>')
    spec = json.dumps(checks).replace("<", "\\u003c").replace("&", "\\u0026")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>%s</style></head>"
            "<body>%s<script type=\"application/json\" id=\"checks\">%s</script>"
            "<pre id=\"verdict\" style=\"display: none\"></pre><script>%s</script>"
            "</body></html>\n") % (css, frame % body, spec, MEASURE)


def png_stats(path):
    """Width, height and the share of pixels unlike the top-left one, for 8-bit
    RGB or RGBA PNGs without interlacing (what Chromium writes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return {"png": False}
    at, idat, head = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + length
    width, height, depth, colour, _, _, interlace = head
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        return {"png": True, "width": width, "height": height, "decoded": False}
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    background = rows[0][:3]
    colours, other = set(), 0
    for row in rows:
        for x in range(0, stride, channels):
            pixel = row[x:x + 3]
            colours.add(pixel)
            if pixel != background:
                other += 1
    return {"png": True, "width": width, "height": height, "decoded": True,
            "colours": len(colours), "not_background": other / float(width * height)}


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("page")
    p.add_argument("--markup", choices=["markdown", "bbcode"], required=True)
    p.add_argument("post")
    p.add_argument("html")
    p.add_argument("--visible", action="append", default=[])
    p.add_argument("--hidden", action="append", default=[])
    p.add_argument("--literal", action="append", default=[])
    s = sub.add_parser("png")
    s.add_argument("file")
    args = parser.parse_args()
    if args.command == "page":
        post = open(args.post, encoding="utf-8").read()
        checks = {"visible": args.visible, "hidden": args.hidden, "literal": args.literal}
        with open(args.html, "w", encoding="utf-8") as out:
            out.write(page(args.markup, post, checks))
    else:
        print(json.dumps(png_stats(args.file)))


if __name__ == "__main__":
    main()
