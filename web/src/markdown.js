// Markdown for answers: markdown-it's default preset with html, linkify and typographer
// off. The Validation gate is tested against exactly this configuration: raw HTML stays
// text, bare URLs stay text, so the only live links are the ones the gate checked.
import MarkdownIt from "markdown-it";

export const MARKDOWN_OPTIONS = Object.freeze({ html: false, linkify: false, typographer: false });

export function createRenderer() {
  const md = new MarkdownIt("default", MARKDOWN_OPTIONS);
  const renderToken = (tokens, idx, options, env, self) => self.renderToken(tokens, idx, options);

  // Every link opens in a new tab without handing the site a window.opener or a referrer.
  const linkOpen = md.renderer.rules.link_open || renderToken;
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx].attrSet("target", "_blank");
    tokens[idx].attrSet("rel", "noopener noreferrer");
    return linkOpen(tokens, idx, options, env, self);
  };

  // A code block wider than the panel scrolls sideways: it takes keyboard focus (and a name,
  // `env.code`), or a keyboard user could never read its end (axe: scrollable-region-focusable).
  const focusable = (html, env) =>
    html.replace(/^<pre>/, `<pre tabindex="0" aria-label="${md.utils.escapeHtml((env && env.code) || "Code")}">`);
  const codeBlock = md.renderer.rules.code_block;
  md.renderer.rules.code_block = (tokens, idx, options, env, self) => focusable(codeBlock(tokens, idx, options, env, self), env);

  // Code blocks get a copy button (labelled `env.copy`); Mermaid blocks stay source text until the answer is
  // complete, then mermaid.js (loaded on demand) turns them into SVG.
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const info = tokens[idx].info.trim().split(/\s+/)[0].toLowerCase();
    const code = focusable(fence(tokens, idx, options, env, self), env);
    if (info === "mermaid") {
      return `<div class="mermaid" data-askai-mermaid>${code}</div>\n`;
    }
    const label = md.utils.escapeHtml((env && env.copy) || "Copy");
    return `<div class="code">${code}<button type="button" class="copy" data-askai-copy>${label}</button></div>\n`;
  };
  return md;
}
