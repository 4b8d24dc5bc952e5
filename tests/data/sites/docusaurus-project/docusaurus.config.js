// A Docusaurus project root as `create-docusaurus` lays it out: askai reads its literals only.
const config = {
  title: 'Keeper',
  url: 'https://keeper.example.org',
  baseUrl: '/',
  presets: [
    [
      'classic',
      {
        docs: {
          showLastUpdateTime: true,
        },
        blog: {
          routeBasePath: 'news',
          showReadingTime: true,
        },
      },
    ],
  ],
};

module.exports = config;
