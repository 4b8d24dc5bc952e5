// The plugin's parts without a Docusaurus install: options, tags, and postBuild's askai step.
// The real Docusaurus build is tests/test_docusaurus_plugin.py (CI only: a large npm install).
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
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
  const out = plugin.writeIndex(plugin.checkOptions({ command: "askai-not-installed-here" }), "/tmp/build", "https://x.example/", (l) => lines.push(l));
  assert.equal(out, null);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /not found; build the index with: pip install askai-graph && askai index \/tmp\/build --out \/tmp\/build\/askai\/index --base-url https:\/\/x.example\//);
});
