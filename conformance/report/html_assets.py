"""The style sheet and the one script of compliance.html.

The page's Content-Security-Policy names both by their SHA-256 hash, so nothing
else (a script or style smuggled in through an answer, however it got past the
escaping) can run or apply. The script only reads the page: it filters the
cases by outcome, component, feature and id, shows the case a permalink
names, and `#feature=NAME` (the cross-release matrix's links) shows that
feature's cases.
"""

from __future__ import annotations

import base64
import hashlib

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 84em; padding: 0 1.2em 4em; color: #24292f; }
h1 { margin-bottom: .2em; } h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .4em 0 1em; font-size: 92%; }
th, td { border: 1px solid #d0d7de; padding: .2em .5em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; max-height: 32em; font-size: 85%; white-space: pre; }
code { font-size: 92%; word-break: break-all; }
.headline { font-size: 115%; }
.rate { font-weight: bold; padding: .1em .4em; border-radius: 3px; white-space: nowrap; }
.rate-good { background: #dafbe1; color: #116329; } .rate-fair { background: #fff1c2; color: #7d4e00; }
.rate-poor { background: #ffebe9; color: #a40e26; } .rate-none { background: #eaeef2; color: #57606a; }
.na { color: #6e7781; }
.outcome { font-weight: bold; padding: 0 .35em; border-radius: 3px; white-space: nowrap; }
.o-pass { color: #116329; } .o-xfail { color: #116329; background: #eaeef2; }
.o-unsupported, .o-skip { color: #6e7781; } .o-xpass { color: #7d4e00; background: #fff1c2; }
.o-fail, .o-error, .o-crash, .o-timeout, .o-malformed, .o-bad-seq, .o-invalid-result, .o-notrun
  { color: #fff; background: #cf222e; }
#filters { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #d0d7de; padding: .5em 0;
  z-index: 2; display: flex; flex-wrap: wrap; gap: .4em 1.2em; align-items: center; font-size: 92%; }
#filters fieldset { border: 0; margin: 0; padding: 0; display: inline; }
#filters label { white-space: nowrap; margin-right: .5em; }
.case { border: 1px solid #d0d7de; border-radius: 6px; padding: .2em 1em .6em; margin: 1em 0; }
.case h3 { font-size: 100%; margin: .6em 0 .3em; }
.facts { margin: .2em 0 .6em; padding-left: 1.2em; }
.rows { columns: 2; font-size: 90%; }
.picture-box { overflow-x: auto; border: 1px solid #eaeef2; margin: .4em 0; padding: .3em; }
.picture-box svg { max-width: none; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: .8em; }
.pair > div { min-width: 0; }
a.permalink { color: #8c959f; text-decoration: none; margin-left: .3em; }
:target { outline: 3px solid #bf8700; outline-offset: 2px; }
[id] { scroll-margin-top: 5.5em; }
.cases td:first-child { max-width: 38em; }
[hidden] { display: none !important; }
"""

SCRIPT = """
(function () {
  'use strict';
  var form = document.getElementById('filters');
  var nodes = Array.prototype.slice.call(document.querySelectorAll('[data-case]'));
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr[data-case]'));
  function wanted() {
    var off = {};
    Array.prototype.forEach.call(form.querySelectorAll('input[name=outcome]'), function (box) {
      off[box.value] = !box.checked;
    });
    return {off: off, component: form.elements.component.value, feature: form.elements.feature.value,
            q: form.elements.q.value.trim().toLowerCase()};
  }
  function matches(el, w) {
    return !w.off[el.getAttribute('data-outcome')] &&
      (!w.component || el.getAttribute('data-component') === w.component) &&
      (!w.feature || (' ' + el.getAttribute('data-features') + ' ').indexOf(' ' + w.feature + ' ') >= 0) &&
      (!w.q || el.getAttribute('data-case').toLowerCase().indexOf(w.q) >= 0);
  }
  function apply() {
    var w = wanted();
    nodes.forEach(function (el) { el.hidden = !matches(el, w); });
    Array.prototype.forEach.call(document.querySelectorAll('[data-group]'), function (group) {
      group.hidden = !group.querySelector('[data-case]:not([hidden])');
    });
    Array.prototype.forEach.call(document.querySelectorAll('[data-empty]'), function (note) {
      var section = document.getElementById(note.getAttribute('data-empty'));
      note.hidden = !section || !!section.querySelector('[data-case]:not([hidden])') ||
        !section.querySelector('[data-case]');
    });
    document.getElementById('shown').textContent =
      rows.filter(function (row) { return !row.hidden; }).length;
  }
  function reveal() {
    var name = location.hash.slice(1);
    try { name = decodeURIComponent(name); } catch (e) { return; }
    if (name.indexOf('feature=') === 0) {
      // A link from the cross-release matrix: the cases of one feature.
      form.reset();
      form.elements.feature.value = name.slice('feature='.length);
      apply();
      name = 'cases';
    }
    var target = name && document.getElementById(name);
    if (!target) { return; }
    var holder = target.closest('[data-case]') || target;
    if (holder.hidden || (holder.closest('[hidden]'))) { form.reset(); apply(); }
    for (var up = target.parentElement; up; up = up.parentElement) {
      if (up.tagName === 'DETAILS') { up.open = true; }
    }
    target.scrollIntoView();
  }
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('reset', function () { setTimeout(apply, 0); });
  form.addEventListener('submit', function (event) { event.preventDefault(); });
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
})();
"""


def digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def policy() -> str:
    """Only the page's own script and style, no network, no plugins, no forms sent anywhere."""
    return (f"default-src 'none'; script-src '{digest(SCRIPT)}'; style-src '{digest(STYLE)}'; "
            "img-src 'none'; base-uri 'none'; form-action 'none'")
