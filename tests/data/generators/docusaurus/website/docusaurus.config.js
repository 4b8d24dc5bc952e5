// @ts-check
const {themes} = require('prism-react-renderer');

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Marten',
  url: 'https://marten.example',
  baseUrl: '/handbook/',
  trailingSlash: false,
  presets: [
    [
      'classic',
      {
        docs: {
          path: '../docs',
          sidebarPath: require.resolve('./sidebars.js'),
        },
      },
    ],
  ],
  themeConfig: {prism: {theme: themes.github}},
};

module.exports = config;
