// A small Docusaurus 3 site with the askai plugin (taken from this repository by its path):
// the classic preset's docs in two versions (1.0 and the docs folder, "next") and a blog,
// so the build has the list pages (tags, authors, archive) the index must leave out.
const path = require("node:path");

module.exports = {
  title: "Lantern",
  url: process.env.SITE_URL || "https://lantern.example",
  baseUrl: "/",
  onBrokenLinks: "throw",
  presets: [[
    "classic",
    {
      docs: { routeBasePath: "/", sidebarPath: require.resolve("./sidebars.js") },
      blog: { showReadingTime: false, onUntruncatedBlogPosts: "ignore" },
    },
  ]],
  plugins: [[path.resolve(__dirname, "../../../web/docusaurus-plugin"), {}]],
};
