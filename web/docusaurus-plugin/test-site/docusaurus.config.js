// A minimal Docusaurus 3 site with the askai plugin: the three lines a site owner adds.
module.exports = {
  title: "Lantern",
  url: process.env.SITE_URL || "https://lantern.example",
  baseUrl: "/",
  onBrokenLinks: "throw",
  presets: [["classic", { docs: { routeBasePath: "/", sidebarPath: require.resolve("./sidebars.js") }, blog: false }]],
  plugins: [["docusaurus-plugin-askai", {}]],
};
