// Runs one query on a DuckDB file with DuckDB's Node.js client (@duckdb/node-api), read-only, and prints
// the rows as a JSON array of objects (BIGINTs as strings, doubles as numbers): a second client of the
// steptrace store, independent of the JVM (DuckDbNode.java runs it).
//   node query.cjs NODE_MODULES_DIR DB_FILE SQL
const { createRequire } = require('module');
const [modules, db, sql] = process.argv.slice(2);
const { DuckDBInstance } = createRequire(modules + '/')('@duckdb/node-api');

(async () => {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  const result = await connection.runAndReadAll(sql);
  process.stdout.write(JSON.stringify(result.getRowObjectsJson()));
})().catch((e) => {
  process.stderr.write(String(e.message || e) + '\n');
  process.exit(1);
});
