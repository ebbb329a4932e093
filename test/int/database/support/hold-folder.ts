import { openDatabase } from '../../../../services/database/database.js';
import { createLogger } from '../../../../services/runtime/logger.js';
import { forEachLine } from './lines.js';

/**
 * A process that opens an embedded data folder and keeps it until stdin closes or it is
 * killed: `hold-folder.ts <dataDir> [serve]`. It prints its role once the folder is open and
 * answers "sql <statement>" lines on stdin with the rows as JSON.
 */
const [dataDir, mode] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: hold-folder.ts <dataDir> [serve]');
const database = await openDatabase({
  dataDir,
  poolSize: 1,
  logger: createLogger('silent'),
  mustOwn: mode === 'serve',
  command: mode === 'serve' ? 'cogitave serve (test)' : 'cogitave test holder',
});
process.stdout.write(`${JSON.stringify({ role: database.embedded?.role, pid: process.pid })}\n`);
forEachLine(process.stdin, (line) => {
  if (!line.startsWith('sql ')) return;
  database.pool.query(line.slice(4)).then(
    (result) => process.stdout.write(`${JSON.stringify({ rows: result.rows })}\n`),
    (error: unknown) => process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`),
  );
});
process.stdin.on('end', () => {
  void database.close().then(() => process.exit(0));
});
