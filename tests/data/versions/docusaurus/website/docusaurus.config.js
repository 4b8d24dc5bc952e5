// Written for askai-graph's tests.
module.exports = {
  title: 'Gizmo',
  url: 'https://gizmo.example',
  baseUrl: '/',
  i18n: {defaultLocale: 'en', locales: ['en', 'es']},
};
