// docusaurus-plugin-askai: askai-graph's Ask AI widget on every page of a Docusaurus 3 site,
// and the site's index written into the build (build/askai/index/) after each build.
//
//   plugins: [["docusaurus-plugin-askai", { serverUrl: "https://ask.example.com" }]]
//
// Options (the same as the MkDocs plugin's and the Sphinx extension's): serverUrl, mode
// ("floating" | "inline"), index (true), suggestions, strings; and askaiBin (the askai
// executable: the option, else the ASKAI_BIN environment variable, else "askai" on the
// PATH; `command` is its older name). A wrong option fails the build.
//
// Without serverUrl the widget is loaded from the site's own root and asks the server that
// serves the site: `askai serve --site build` serves the pages, the widget and the API on
// one origin. The index is built by the Python package's `askai index` from the HTML the
// build wrote (the built-site reader: main content, canonical URLs, sitemap.xml).
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const NAME = "docusaurus-plugin-askai";
const DEFAULTS = {
  serverUrl: null, mode: "floating", index: true, suggestions: null, strings: null, askaiBin: null, command: null,
};
// No registry serves askai-graph: it is installed from a checkout of its repository.
const INSTALL = "pipx install /path/to/askai-graph (a checkout of its repository)";

// The widget's two palettes (web/src/styles.css), set from the theme's own attribute:
// Docusaurus' dark mode is html[data-theme="dark"], which may differ from the system's.
const LIGHT = {
  bg: "#ffffff", fg: "#1c1e21", muted: "#5b616b", border: "#d9dce1", accent: "#2450c8", "accent-fg": "#ffffff",
  card: "#f5f7fa", code: "#f0f2f5", notice: "#fff6e0", "notice-fg": "#5c4200", error: "#b3261e",
};
const DARK = {
  bg: "#17191c", fg: "#e8eaed", muted: "#a5abb4", border: "#363a40", accent: "#8fb0ff", "accent-fg": "#0d1424",
  card: "#202328", code: "#24272c", notice: "#3a2f12", "notice-fg": "#f4dca0", error: "#ff9d94",
};
const rule = (scheme, palette) =>
  `[data-theme="${scheme}"] askai-widget{` +
  Object.entries(palette).map(([name, value]) => `--askai-${name}:${value}`).join(";") + "}";
const THEME_STYLE = rule("light", LIGHT) + rule("dark", DARK);

function isHttpUrl(value) {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && Boolean(url.host) && value === value.trim();
  } catch {
    return false;
  }
}

/** Return the options with defaults, or throw an Error naming the first wrong one. */
function checkOptions(options = {}) {
  const fail = (name, problem) => {
    throw new Error(`${NAME}: option '${name}': ${problem}`);
  };
  for (const name of Object.keys(options)) {
    if (name !== "id" && !(name in DEFAULTS)) fail(name, `unknown option (the options are ${Object.keys(DEFAULTS).join(", ")})`);
  }
  const checked = { ...DEFAULTS, ...options };
  if (checked.serverUrl !== null && !isHttpUrl(checked.serverUrl)) {
    fail("serverUrl", `must be an http:// or https:// URL (got ${JSON.stringify(checked.serverUrl)})`);
  }
  if (!["floating", "inline"].includes(checked.mode)) fail("mode", "must be 'floating' or 'inline'");
  if (typeof checked.index !== "boolean") fail("index", "must be true or false");
  if (checked.suggestions !== null &&
      !(Array.isArray(checked.suggestions) && checked.suggestions.every((s) => typeof s === "string"))) {
    fail("suggestions", "must be a list of strings");
  }
  if (checked.strings !== null && (typeof checked.strings !== "object" || Array.isArray(checked.strings) ||
      !Object.values(checked.strings).every((s) => typeof s === "string"))) {
    fail("strings", "must be an object of strings");
  }
  for (const name of ["askaiBin", "command"]) {
    if (checked[name] !== null && (typeof checked[name] !== "string" || !checked[name])) {
      fail(name, "must be the path or name of the askai executable");
    }
  }
  return checked;
}

/** The tags Docusaurus puts at the end of every page's body. */
function htmlTags(options, baseUrl = "/") {
  const server = options.serverUrl ? options.serverUrl.replace(/\/+$/, "") : null;
  const attributes = {};
  if (server) attributes.endpoint = options.serverUrl;
  if (options.mode === "inline") attributes.inline = true;
  if (options.suggestions !== null) attributes.suggestions = JSON.stringify(options.suggestions);
  if (options.strings !== null) attributes.strings = JSON.stringify(options.strings);
  return [
    { tagName: "style", attributes: { "data-askai-theme": true }, innerHTML: THEME_STYLE },
    { tagName: "script", attributes: { src: server ? `${server}/widget.js` : `${baseUrl}widget.js`, defer: true, "data-askai-script": true } },
    // Docusaurus refuses an unknown tag name unless it is declared a custom element.
    { tagName: "askai-widget", customElement: true, attributes, innerHTML: "" },
  ];
}

/**
 * The askai executable: the `askaiBin` option (or its older name `command`), else `ASKAI_BIN`,
 * else `askai` on the PATH. A path needs no activated virtual environment (`.venv/bin/askai`).
 */
function askaiBin(options, env = process.env) {
  return options.askaiBin || options.command || env.ASKAI_BIN || "askai";
}

/** Run `askai index` on the build output; say in one line how to do it when askai is not installed. */
function writeIndex(options, outDir, siteUrl, log = console.log, env = process.env) {
  const out = path.join(outDir, "askai", "index");
  const args = ["index", outDir, "--out", out, "--base-url", siteUrl, "-q"];
  const bin = askaiBin(options, env);
  const run = spawnSync(bin, args, { encoding: "utf8" });
  if (run.error && run.error.code === "ENOENT") {
    log(`askai: '${bin}' not found (set the askaiBin option or ASKAI_BIN to its path, or ${INSTALL}); ` +
        `then build the index with: askai ${args.slice(0, -1).join(" ")}`);
    return null;
  }
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`${NAME}: askai index failed: ${(run.stderr || run.stdout).trim()}`);
  const first = run.stdout.split("\n")[0];
  log(`askai: ${first}`);
  return out;
}

function askaiPlugin(context, options) {
  const checked = checkOptions(options);
  return {
    name: NAME,
    injectHtmlTags() {
      return { postBodyTags: htmlTags(checked, context.baseUrl) };
    },
    async postBuild({ outDir, siteConfig }) {
      if (!checked.index) return;
      writeIndex(checked, outDir, new URL(siteConfig.baseUrl, siteConfig.url).href);
    },
  };
}

// Docusaurus calls this before the plugin: a wrong option fails the build at once.
askaiPlugin.validateOptions = ({ options }) => checkOptions(options);

module.exports = askaiPlugin;
module.exports.checkOptions = checkOptions;
module.exports.htmlTags = htmlTags;
module.exports.writeIndex = writeIndex;
module.exports.askaiBin = askaiBin;
module.exports.palettes = { LIGHT, DARK };
