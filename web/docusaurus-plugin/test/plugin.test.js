// The plugin's parts without a Docusaurus install: options, tags, and postBuild's askai step.
// The real Docusaurus build is tests/test_docusaurus_plugin.py (CI only: a large npm install).
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const plugin = require("..");

test("defaults: a floating widget from the site's root, the index on", () => {
  const options = plugin.validateOptions({ options: {} });
  assert.deepEqual(
    { serverUrl: options.serverUrl, mode: options.mode, index: options.index },
    { serverUrl: null, mode: "floating", index: true },
  );
  const [style, script, element] = plugin.htmlTags(options, "/");
  assert.equal(style.tagName, "style");
  assert.match(style.innerHTML, /\[data-theme="dark"\] askai-widget\{--askai-bg:#17191c/);
  assert.deepEqual(script.attributes, { src: "/widget.js", defer: true, "data-askai-script": true });
  assert.deepEqual(element, { tagName: "askai-widget", customElement: true, attributes: {}, innerHTML: "" });
});

test("options reach the script and the element", () => {
  const options = plugin.checkOptions({
    serverUrl: "https://ask.example.com/", mode: "inline", suggestions: ["How do I install it?"], strings: { send: "Fragen" },
  });
  const [, script, element] = plugin.htmlTags(options, "/docs/");
  assert.equal(script.attributes.src, "https://ask.example.com/widget.js");
  assert.deepEqual(element.attributes, {
    endpoint: "https://ask.example.com/", inline: true, suggestions: '["How do I install it?"]', strings: '{"send":"Fragen"}',
  });
});

test("a wrong option fails with its name", () => {
  assert.throws(() => plugin.checkOptions({ serverURL: "https://x" }), /option 'serverURL': unknown option/);
  assert.throws(() => plugin.checkOptions({ serverUrl: "javascript:alert(1)" }), /option 'serverUrl': must be an http/);
  assert.throws(() => plugin.checkOptions({ mode: "sidebar" }), /option 'mode'/);
  assert.throws(() => plugin.checkOptions({ suggestions: "How?" }), /option 'suggestions'/);
});

test("without the askai command, postBuild prints one line saying how to build the index", () => {
  const lines = [];
  const out = plugin.writeIndex(plugin.checkOptions({ askaiBin: "askai-not-installed-here" }), "/tmp/build", "https://x.example/", (l) => lines.push(l), {});
  assert.equal(out, null);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /'askai-not-installed-here' not found \(set the askaiBin option or ASKAI_BIN to its path, or pipx install \/path\/to\/askai-graph/);
  assert.match(lines[0], /then build the index with: askai index \/tmp\/build --out \/tmp\/build\/askai\/index --base-url https:\/\/x.example\/$/);
  assert.doesNotMatch(lines[0], /pip install askai-graph/);
});

test("the askai executable: the askaiBin option, else ASKAI_BIN, else askai on the PATH", () => {
  const env = { ASKAI_BIN: "/opt/askai/.venv/bin/askai" };
  assert.equal(plugin.askaiBin(plugin.checkOptions({ askaiBin: "/srv/bin/askai" }), env), "/srv/bin/askai");
  assert.equal(plugin.askaiBin(plugin.checkOptions({ command: "/srv/old/askai" }), env), "/srv/old/askai");
  assert.equal(plugin.askaiBin(plugin.checkOptions({}), env), "/opt/askai/.venv/bin/askai");
  assert.equal(plugin.askaiBin(plugin.checkOptions({}), {}), "askai");
  assert.throws(() => plugin.checkOptions({ askaiBin: "" }), /option 'askaiBin': must be the path/);
});

test("postBuild runs the askai that ASKAI_BIN names", () => {
  // A stand-in askai outside the PATH, as a virtual environment's bin/askai is when none is activated.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "askai-bin-"));
  try {
    const bin = path.join(dir, "askai");
    fs.writeFileSync(bin, '#!/bin/sh\necho "stand-in $*"\n', { mode: 0o755 });
    const lines = [];
    const out = plugin.writeIndex(plugin.checkOptions({}), "/tmp/build", "https://x.example/", (l) => lines.push(l), { ASKAI_BIN: bin });
    assert.equal(out, "/tmp/build/askai/index");
    assert.deepEqual(lines, ["askai: stand-in index /tmp/build --out /tmp/build/askai/index --base-url https://x.example/ -q"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
