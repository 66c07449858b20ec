#!/usr/bin/env python3
"""The gpuspec binary's HTML pages of the fixtures, checked as a reader gets them.

  html_pages_test.py html5   GPUSPEC FIXTURES OUT   an HTML5 parser (html5lib, strict) reads each
                                                    page without error; no URL; the embedded JSON
                                                    equals the report file
  html_pages_test.py browser GPUSPEC FIXTURES OUT   headless Chromium through chromedriver (the
                                                    W3C WebDriver protocol, spoken here with the
                                                    standard library) renders each page at 1280 px
                                                    and at print size (A4 at 96 dpi, print media),
                                                    JavaScript on and off: the screenshot is not
                                                    blank, no console error, no element wider
                                                    than the viewport, and a degraded fixture's
                                                    finding is on the first screen; axe-core's
                                                    WCAG 2.0 and 2.1 A and AA rules (colour
                                                    contrast among them) find no violation; no
                                                    header, badge or host cell broken inside a
                                                    word. Screenshots stay in OUT.

The answer first (issue 31): a failing check page, a diff page, and a check and a compare of 50
nodes (healthy.json copied 50 times, node-7 and node-41 with one GPU at half speed, node-23 with
one at 80%, as a fleet's reports come): on the first screen at 1280 x 800, the verdict and every
row of the table of what is not passing, with its action. The 50-node pages are under 2 MB.

Exit 77 (skipped) where html5lib, chromium, chromedriver or axe-core (PyPI's axe-selenium-python,
in .deps/python: scripts/install-deps.sh) is missing.
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

# (page, command arguments, the reason code its first screen must show or None)
CHECK_PAGES = [
    ("check-healthy", "healthy", None),
    ("check-thermal-throttle", "degraded-thermal-throttle", "GPUSPEC-THERMAL-THROTTLE"),
    ("check-slow-gpu", "degraded-sibling-outlier", "GPUSPEC-SIBLING-OUTLIER"),
    ("check-pcie-link", "degraded-pcie-link-degraded", "GPUSPEC-PCIE-LINK-DEGRADED"),
    ("check-burnin-mismatch", "degraded-burnin-checksum-mismatch",
     "GPUSPEC-BURNIN-CHECKSUM-MISMATCH"),
    ("check-inconclusive", "inconclusive-gpu-not-measured", "GPUSPEC-GPU-NOT-MEASURED"),
    ("check-ecc-uncorrected", "degraded-ecc-uncorrected", "GPUSPEC-ECC-UNCORRECTED"),
]

# The pages whose first screen (1280 x 800) must hold the verdict and every row of their table of
# what is not passing, each with its action; the hosts the fleet pages' tables must name.
ANSWER_PAGES = {"check-ecc-uncorrected": [], "check-pcie-link": [], "diff": [],
                "check-fleet": ["node-7", "node-23", "node-41"],
                "compare-fleet": ["node-7", "node-23", "node-41"]}
FLEET_SLOW = {7: 0.5, 23: 0.8, 41: 0.5}  # node -> the speed of its GPU (node % 8)
FLEET_PAGE_LIMIT = 2_000_000  # bytes (issue 31: the 50-node check page was 10 MB)


def make_fleet(fixtures, out):
    """50 copies of healthy.json, node-0 .. node-49; FLEET_SLOW's nodes with one GPU slowed (its
    samples, statistics and efficiencies scaled, as check_fixtures' scale_device_results does)."""
    healthy = json.load(open(os.path.join(fixtures, "check", "healthy.json")))
    folder = os.path.join(out, "fleet")
    os.makedirs(folder, exist_ok=True)
    files = []
    for k in range(50):
        r = json.loads(json.dumps(healthy))
        r["host"]["hostname"] = f"node-{k}"
        factor = FLEET_SLOW.get(k)
        for res in r["results"] if factor else []:
            if res["devices"] != [k % 8]:
                continue
            res["samples"] = [v * factor for v in res["samples"]]
            for key in ("median", "mean", "min", "max", "stddev", "q1", "q3"):
                if res["stats"].get(key) is not None:
                    res["stats"][key] *= factor
            for key in ("efficiency", "efficiency_clock_adjusted"):
                if res.get(key) is not None:
                    res[key] *= factor
        path = os.path.join(folder, f"node-{k}.json")
        json.dump(r, open(path, "w"), indent=2)
        files.append(path)
    return sorted(files)  # as a shell's glob gives them: node-0, node-1, node-10, ...


def make_pages(gpuspec, fixtures, out):
    """Writes every page into OUT; returns [(name, path, code, [embedded report files])]."""
    os.makedirs(out, exist_ok=True)
    pages = []
    for name, fixture, code in CHECK_PAGES:
        src = os.path.join(fixtures, "check", fixture + ".json")
        path = os.path.join(out, name + ".html")
        subprocess.run([gpuspec, "check", src, "--format", "html", "-o", path],
                       check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pages.append((name, path, code, [src]))
    diff_files = [os.path.join(fixtures, "diff", f) for f in ("baseline.json", "regressed.json")]
    path = os.path.join(out, "diff.html")
    with open(path, "wb") as f:
        subprocess.run([gpuspec, "diff", *diff_files, "--format", "html"], stdout=f, check=False)
    pages.append(("diff", path, "regression", diff_files))
    cmp_files = [os.path.join(fixtures, "check", f + ".json")
                 for f in ("healthy", "degraded-sibling-outlier", "degraded-thermal-throttle")]
    path = os.path.join(out, "compare.html")
    with open(path, "wb") as f:
        subprocess.run([gpuspec, "compare", *cmp_files, "--format", "html"], stdout=f, check=False)
    pages.append(("compare", path, "OUTLIER", []))
    fleet = make_fleet(fixtures, out)
    path = os.path.join(out, "check-fleet.html")
    with open(path, "wb") as f:
        subprocess.run([gpuspec, "check", *fleet, "--format", "html"], stdout=f, check=False)
    pages.append(("check-fleet", path, "GPUSPEC-FLEET-OUTLIER", fleet))
    path = os.path.join(out, "compare-fleet.html")
    with open(path, "wb") as f:
        subprocess.run([gpuspec, "compare", *fleet, "--format", "html"], stdout=f, check=False)
    pages.append(("compare-fleet", path, "GPUSPEC-FLEET-OUTLIER", []))
    for _, path, _, _ in pages:
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            sys.exit(f"html_pages_test: {path}: no page written")
    return pages


def embedded_json(text, element_id):
    marker = f'<script type="application/json" id="{element_id}">\n'
    at = text.find(marker)
    if at < 0:
        return None
    start = at + len(marker)
    return json.loads(text[start:text.index("</script>", start)])


def run_html5(pages):
    try:
        import html5lib  # Debian's python3-html5lib
    except ImportError:
        print("html_pages_test: html5lib missing (python3-html5lib): skipped")
        return 77
    failures = []
    for name, path, _, reports in pages:
        text = open(path, encoding="utf-8").read()
        try:
            tree = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)
        except Exception as e:  # html5lib raises ParseError with the position
            failures.append(f"{name}: not valid HTML5: {e}")
            continue
        # Nothing that loads or links: no element with a src, href, action or xlink attribute,
        # no CSS url() or @import (a datasheet's address as text is no link).
        for e in tree.iter():
            for attr in e.attrib:
                if attr in ("src", "href", "action", "srcset", "poster", "data") or \
                        "xlink" in attr:
                    failures.append(f"{name}: <{e.tag} {attr}=...>: the page must stand alone")
        for e in tree.iter("style"):
            if "url(" in (e.text or "") or "@import" in (e.text or ""):
                failures.append(f"{name}: its style loads something")
        # A page of many reports embeds those of the nodes not passing only.
        embedded = 0
        for i, report in enumerate(reports):
            inside = embedded_json(text, f"gpuspec-report-{i}")
            if inside is None and len(reports) > 1:
                continue
            embedded += 1
            if inside != json.load(open(report)):
                failures.append(f"{name}: embedded gpuspec-report-{i} differs from {report}")
        if name in ANSWER_PAGES and ANSWER_PAGES[name] and reports and \
                embedded != len(ANSWER_PAGES[name]):
            failures.append(f"{name}: {embedded} reports embedded, not the "
                            f"{len(ANSWER_PAGES[name])} of the nodes not passing")
        if name.endswith("-fleet") and len(text.encode()) >= FLEET_PAGE_LIMIT:
            failures.append(f"{name}: {len(text.encode())} bytes, not under {FLEET_PAGE_LIMIT}")
    for f in failures:
        print("FAIL", f)
    print(f"html_pages_test html5: {len(pages)} pages, {len(failures)} failures")
    return 1 if failures else 0


# ---- the browser ------------------------------------------------------------------------------

# The fraction of a screenshot's pixels (every fourth) that are not near-white, counted by the
# browser itself on a canvas (the standard library has no PNG decoder).
INK = """
const done = arguments[arguments.length - 1];
const img = new Image();
img.onload = function () {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let ink = 0, n = 0;
  for (let i = 0; i < d.length; i += 16, ++n) if (Math.min(d[i], d[i + 1], d[i + 2]) < 235) ++ink;
  done(ink / n);
};
img.onerror = function () { done(-1); };
img.src = 'data:image/png;base64,' + arguments[0];
"""


class webdriver:
    def __init__(self, port, javascript):
        self.base = f"http://127.0.0.1:{port}"
        options = {"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars", "--window-size=1280,900"]}
        if not javascript:
            options["prefs"] = {"profile.managed_default_content_settings.javascript": 2}
        if os.path.exists("/usr/bin/chromium"):
            options["binary"] = "/usr/bin/chromium"
        caps = {"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": options, "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        if body is None and method == "POST":
            body = {}
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read()).get("value")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"webdriver {method} {path}: {e.code}: {e.read()[:400]!r}") from e

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def script(self, source):
        return self.s("POST", "/execute/sync", {"script": source, "args": []})

    def close(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        except Exception:
            pass


PROBE = """
const w = document.documentElement.clientWidth;
const wide = [];
for (const e of document.querySelectorAll('body *')) {
  const r = e.getBoundingClientRect();
  if (r.width > 0 && (r.right > w + 1 || r.left < -1)) wide.push(e.tagName + ' ' + Math.round(r.right));
}
return {width: w, height: window.innerHeight, scroll: document.documentElement.scrollWidth,
        wide: wide.slice(0, 5), sorted: (document.querySelector('table.sortable th') || {style: {}}).style.cursor || ''};
"""


def first_screen_top(d, code):
    return d.script("""
for (const e of document.querySelectorAll('table.answer .code, .finding .code, h1')) {
  if (e.textContent.indexOf(%s) >= 0) return e.getBoundingClientRect().top;
}
return null;""" % json.dumps(code))


def check_view(d, name, code, javascript, view, out, failures, shots):
    width, height, media = view
    d.s("POST", "/window/rect", {"width": width, "height": height})
    d.s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia",
                                      "params": {"media": media}})
    d.s("POST", "/refresh")
    probe = d.script(PROBE)
    tag = f"{name} {'js' if javascript else 'nojs'} {media} {probe['width']}px"
    if probe["scroll"] > probe["width"] + 1 or probe["wide"]:
        failures.append(f"{tag}: overflows the viewport: {probe['scroll']} px, {probe['wide']}")
    if javascript != (probe["sorted"] == "pointer"):
        failures.append(f"{tag}: the sorting script {'did not run' if javascript else 'ran'}")
    for word in d.script(BROKEN_WORDS):
        failures.append(f"{tag}: a word broken across lines: {word}")
    if code:
        top = first_screen_top(d, code)
        if top is None or top > probe["height"]:
            failures.append(f"{tag}: {code} is not on the first screen (top {top})")
    encoded = d.s("GET", "/screenshot")
    shot = os.path.join(out, f"{name}-{'js' if javascript else 'nojs'}-{media}.png")
    open(shot, "wb").write(base64.b64decode(encoded))
    shots.append((tag, encoded))
    for entry in d.s("POST", "/se/log", {"type": "browser"}) or []:
        if entry.get("level") in ("SEVERE", "ERROR"):
            failures.append(f"{tag}: console: {entry.get('message')}")


# Words broken across lines (issue 31: "verd ict", "WAR N"): every word of a table header, a
# badge, and the host, GPU and verdict cells of the opening's table on one line.
BROKEN_WORDS = """
const broken = [];
const cells = 'th, .badge, table.answer td:nth-child(-n+3)';
for (const e of document.querySelectorAll(cells)) {
  const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const words = /\\S+/g;
    for (let m = words.exec(n.data); m; m = words.exec(n.data)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
      if (tops.size > 1) broken.push(e.tagName + ' ' + m[0]);
    }
  }
}
return broken.slice(0, 5);
"""

# The first screen of an answer page: the verdict (h1) and every row of the table of what is not
# passing, its last cell (the action) not empty; the hosts that row must name.
ANSWER_SCREEN = """
const h = window.innerHeight, out = {height: h, problems: [], text: ''};
const h1 = document.querySelector('h1');
if (!h1 || h1.getBoundingClientRect().bottom > h) out.problems.push('the verdict is below the first screen');
const rows = document.querySelectorAll('table.answer tbody tr');
if (rows.length === 0) out.problems.push('no table of what is not passing');
for (const r of rows) {
  const b = r.getBoundingClientRect().bottom;
  if (b > h) out.problems.push('row below the first screen (bottom ' + Math.round(b) + '): ' + r.textContent.slice(0, 60));
  if (r.cells[r.cells.length - 1].textContent.trim() === '') out.problems.push('a row without an action');
  out.text += r.textContent + '\\n';
}
return out;
"""


def check_answer_screen(d, name, hosts, failures):
    """At 1280 x 800: the verdict and every not-passing row with its action on the first screen."""
    d.s("POST", "/window/rect", {"width": 1280, "height": 800})
    d.s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia",
                                      "params": {"media": "screen"}})
    d.s("POST", "/refresh")
    seen = d.script(ANSWER_SCREEN)
    for p in seen["problems"]:
        failures.append(f"{name} 1280x{seen['height']}: {p}")
    for host in hosts:
        if host + "GPU" not in seen["text"].replace(" ", "").replace("\n", ""):
            failures.append(f"{name}: the first screen does not name {host}")


# axe-core's rules for WCAG 2.0 A and AA and 2.1 AA (the axe-core 3.1 that
# axe-selenium-python 2.1.6 ships has no wcag21a tag) (issue 31: a FAIL finding's white text
# on pale pink passed every other check). The result: one line per violation and element.
AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']},
                   resultTypes: ['violations']}).then(function (r) {
  const out = [];
  for (const v of r.violations)
    for (const n of v.nodes) out.push(v.id + ': ' + n.target.join(' ') + ': ' + n.failureSummary);
  done(out);
}, function (e) { done(['axe failed: ' + e]); });
"""


def axe_source():
    """axe.min.js as PyPI's axe-selenium-python ships it (found without importing selenium)."""
    import importlib.util
    spec = importlib.util.find_spec("axe_selenium_python")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(spec.submodule_search_locations[0], "node_modules", "axe-core",
                        "axe.min.js")
    return open(path, encoding="utf-8").read() if os.path.exists(path) else None


def check_axe(d, name, axe, failures):
    """Every WCAG A and AA rule on the page as the screen shows it (JS on, 1280 px)."""
    d.s("POST", "/window/rect", {"width": 1280, "height": 900})
    d.s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia",
                                      "params": {"media": "screen"}})
    d.s("POST", "/refresh")
    d.script(axe)
    for line in d.s("POST", "/execute/async", {"script": AXE_RUN, "args": []}) or []:
        failures.append(f"{name}: axe: {line}")


def run_browser(pages, out):
    driver = shutil.which("chromedriver")
    if driver is None or shutil.which("chromium") is None:
        print("html_pages_test: chromium or chromedriver missing: skipped")
        return 77
    axe = axe_source()
    if axe is None:
        print("html_pages_test: axe-core missing (axe-selenium-python in .deps/python): skipped")
        return 77
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    failures = []
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=2)
                break
            except Exception:
                time.sleep(0.1)
        # 1280 px screen; print: A4 at 96 dpi (794 x 1123 CSS px) with print media.
        views = [(1280, 900, "screen"), (794, 1123, "print")]
        shots = []
        with_js = webdriver(port, True)
        try:
            for d, javascript in ((with_js, True), (webdriver(port, False), False)):
                for name, path, code, _ in pages:
                    d.s("POST", "/url", {"url": "file://" + os.path.abspath(path)})
                    for view in views:
                        check_view(d, name, code, javascript, view, out, failures, shots)
                    if javascript:
                        check_axe(d, name, axe, failures)
                        if name in ANSWER_PAGES:
                            check_answer_screen(d, name, ANSWER_PAGES[name], failures)
                if not javascript:
                    d.close()
            # The ink of every screenshot, counted where scripts run (JS on).
            for tag, encoded in shots:
                ink = with_js.s("POST", "/execute/async", {"script": INK, "args": [encoded]})
                if ink < 0.01:
                    failures.append(f"{tag}: the screenshot is blank ({ink:.4f} of it inked)")
        finally:
            with_js.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    for f in failures:
        print("FAIL", f)
    print(f"html_pages_test browser: {len(pages)} pages x 2 views x JS on/off, "
          f"{len(failures)} failures; screenshots in {out}")
    return 1 if failures else 0


def main():
    mode, gpuspec, fixtures, out = sys.argv[1:5]
    pages = make_pages(gpuspec, fixtures, out)
    sys.exit(run_html5(pages) if mode == "html5" else run_browser(pages, out))


if __name__ == "__main__":
    main()
