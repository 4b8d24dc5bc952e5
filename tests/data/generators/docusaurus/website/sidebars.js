/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */
const sidebars = {
  handbook: [
    'welcome',
    {
      type: 'category',
      label: 'Basics',
      items: ['basics/first-run', {type: 'doc', id: 'basics/tables', label: 'Working with tables'}],
    },
    // Reference pages come last.
    {type: 'category', label: 'Reference', items: ['cli-reference']},
  ],
};

module.exports = sidebars;
