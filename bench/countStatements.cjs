/**
 * Preloaded into the bench's gateway by `npm run bench -- --count-statements` (node --require):
 * counts the SQL statements the process sends through pg, by prepared-statement name or by the
 * text's first words, and writes the tally to bench/profiles/statements-<pid>.json every 2 s and
 * at exit. Divided by a scenario's request count, it says how many round trips a request costs:
 * the figure that found issue 31's regression (a payout's 3 statements had become 7).
 */
const fs = require('node:fs');
const path = require('node:path');
const pg = require(require.resolve('pg', { paths: [process.cwd()] }));

const counts = new Map();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, ...rest) {
  const text = typeof config === 'string' ? config : config?.name ? `NAMED ${config.name}` : config?.text;
  const key = String(text).replace(/\s+/g, ' ').slice(0, 90);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  return query.call(this, config, ...rest);
};

const file = path.join(__dirname, 'profiles', `statements-${process.pid}.json`);
const write = () => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    JSON.stringify(
      [...counts].sort((a, b) => b[1] - a[1]),
      null,
      1,
    ),
  );
};
setInterval(write, 2_000).unref();
process.on('exit', write);
