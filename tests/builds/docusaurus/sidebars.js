module.exports = {
  docs: ["intro", { type: "category", label: "Guide", items: ["guide/ssl", "guide/install", "guide/configure"] }],
};
