// Build the reader widget into the Python package (askai_graph/server/static/), so
// `askai serve` needs no Node. Deterministic: the same sources and lock file give the same
// bytes. Writes build.json with a hash of the sources (a test fails when it is stale),
// and THIRD_PARTY_LICENSES.txt for every npm package whose code ships.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const WEB = dirname(fileURLToPath(import.meta.url));
const OUT = join(WEB, "..", "askai_graph", "server", "static");
const SOURCES = ["build.mjs", "package.json", "package-lock.json", ...readdirSync(join(WEB, "src")).map((f) => `src/${f}`)];

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

/** Hash of every input of the build: relative path and content hash, one line each, sorted. */
function sourcesHash() {
  const lines = [...SOURCES].sort().map((path) => `${path}\0${sha256(readFileSync(join(WEB, path)))}\n`);
  return sha256(lines.join(""));
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** License texts of every installed non-dev package in the lock file (all of them ship). */
function licenses() {
  const lock = JSON.parse(readFileSync(join(WEB, "package-lock.json"), "utf8"));
  const parts = [];
  for (const [path, info] of Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b))) {
    if (!path || info.dev || !existsSync(join(WEB, path))) continue;
    const name = path.split("node_modules/").pop();
    const files = readdirSync(join(WEB, path)).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort();
    const texts = files.map((f) => readFileSync(join(WEB, path, f), "utf8").trim());
    const body = texts.length ? texts.join("\n\n") : `License: ${info.license || "see the package"} (no license file in the package)`;
    parts.push(`${"=".repeat(78)}\n${name}@${info.version} (${info.license || "unknown"})\n${"=".repeat(78)}\n${body}\n`);
  }
  return `Third-party software shipped in askai-graph's reader widget\n(from npm; versions pinned in web/package-lock.json)\n\n${parts.join("\n")}`;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

await build({
  entryPoints: [join(WEB, "src", "widget.js")],
  outfile: join(OUT, "widget.js"),
  bundle: true,
  format: "iife",
  minify: true,
  target: ["chrome109", "firefox115", "safari16"],
  loader: { ".css": "text", ".html": "text" },
  legalComments: "none", // the licenses ship in THIRD_PARTY_LICENSES.txt
  logLevel: "warning",
});
cpSync(join(WEB, "src", "index.html"), join(OUT, "index.html"));

// Mermaid ships as its maintainers built it (ESM, split into chunks), loaded lazily.
const mermaidDist = join(WEB, "node_modules", "mermaid", "dist");
cpSync(join(mermaidDist, "mermaid.esm.min.mjs"), join(OUT, "mermaid", "mermaid.esm.min.mjs"));
cpSync(join(mermaidDist, "chunks", "mermaid.esm.min"), join(OUT, "mermaid", "chunks", "mermaid.esm.min"), {
  recursive: true,
  filter: (src) => !src.endsWith(".map"),
});
writeFileSync(join(OUT, "THIRD_PARTY_LICENSES.txt"), licenses());

const files = Object.fromEntries(
  listFiles(OUT)
    .map((path) => [relative(OUT, path).split("\\").join("/"), sha256(readFileSync(path))])
    .sort(([a], [b]) => a.localeCompare(b)),
);
const widget = readFileSync(join(OUT, "widget.js"));
const manifest = {
  sources_sha256: sourcesHash(),
  widget_js_gzip_bytes: gzipSync(widget, { level: 9 }).length,
  files,
};
writeFileSync(join(OUT, "build.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`widget.js: ${widget.length} bytes, ${manifest.widget_js_gzip_bytes} gzipped; ${Object.keys(files).length} files in ${relative(process.cwd(), OUT)}`);
