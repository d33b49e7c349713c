'use strict';

// The build: every module of src/ in one file, dist/app.js, that runs src/main.js.
// No bundler: each module becomes a function in a table, with a require() that reads it.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const src = path.join(root, 'src');
const out = path.join(root, 'dist', 'app.js');

const modules = fs
  .readdirSync(src)
  .filter((name) => name.endsWith('.js'))
  .sort()
  .map((name) => {
    const code = fs.readFileSync(path.join(src, name), 'utf8');
    return `  './${name}': function (module, exports, require) {\n${code}\n  },`;
  });

const bundle = `'use strict';
// Built by scripts/build.js from src/: do not edit, run npm run build.
const table = {
${modules.join('\n')}
};
const cache = {};
function load(name) {
  if (!(name in table)) return require(name);
  if (!(name in cache)) {
    const module = { exports: {} };
    cache[name] = module;
    table[name](module, module.exports, load);
  }
  return cache[name].exports;
}
load('./main.js');
`;

fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, bundle);
console.log(`built ${path.relative(root, out)} from ${modules.length} modules`);
