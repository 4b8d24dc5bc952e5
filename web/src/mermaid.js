// Mermaid is large (about 3 MB): it is imported only when an answer contains a diagram.
// securityLevel "strict" encodes labels and disables click callbacks, and bindFunctions
// is never called, so no diagram can run script.
let loading = null;
let count = 0;

function load(base) {
  loading ??= import(new URL("mermaid/mermaid.esm.min.mjs", base).href).then(({ default: mermaid }) => {
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
    return mermaid;
  });
  return loading;
}

export async function renderMermaid(blocks, base) {
  let mermaid;
  try {
    mermaid = await load(base);
  } catch {
    loading = null;
    return; // the source stays visible as a code block
  }
  for (const block of blocks) {
    const source = block.textContent;
    try {
      const { svg } = await mermaid.render(`askai-mermaid-${++count}`, source);
      block.innerHTML = svg;
      block.dataset.askaiMermaid = "rendered";
    } catch {
      block.dataset.askaiMermaid = "failed";
    }
  }
}
