// What the page the widget sits on says of itself: the docs version and language the reader
// is reading, sent with every question so answers and cards come from those pages.
// The widget's `version` and `locale` attributes win; else, on a page a docs generator built
// (its `<meta name="generator">` names Docusaurus or MkDocs), Docusaurus' `docs-version-<name>`
// class and `<html lang>`, MkDocs Material's `lang` and the mike version selector's current value.
// Any other page's `lang` says what language it is written in, not which docs it reads.

const VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LOCALE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/;

function pageVersion(doc) {
  for (const node of [doc.documentElement, doc.body]) {
    const named = node && [...node.classList].find((name) => name.startsWith("docs-version-"));
    if (named) return named.slice("docs-version-".length);
  }
  const mike = doc.querySelector(".md-version__current");
  return mike ? mike.textContent.trim() : "";
}

function builtByDocsGenerator(doc) {
  const generator = doc.querySelector('meta[name="generator"]');
  return /docusaurus|mkdocs/i.test(generator ? generator.content : "");
}

/** Return `{version?, locale?}` for `element` on its page: only well-formed values are sent. */
export function pageScope(element) {
  const doc = element.ownerDocument;
  const docs = builtByDocsGenerator(doc);
  const version = element.getAttribute("version") || (docs ? pageVersion(doc) : "");
  const locale = element.getAttribute("locale") || (docs ? doc.documentElement.lang : "") || "";
  const scope = {};
  if (VERSION.test(version)) scope.version = version;
  if (LOCALE.test(locale)) scope.locale = locale;
  return scope;
}
