import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { sourceRemovedActivity } from '../../services/catalog/activity.js';
import { listSources, removeSource } from '../../services/catalog/ingest.js';
import { logActivity } from '../../services/runtime/activity.js';
import { NotFound } from '../../services/runtime/errors.js';
import { noteUnaskedRetirement, progressBar, retirePrompt } from './catalog-output.js';
import { withApp } from './context.js';
import { commandActor } from './ingest.js';

/** `cogitave sources list | remove <name>`: the named documentation folders in the catalog. */
const list = new Command('list')
  .description(
    'List the sources of the catalog: each ingested folder (and legacy: nodes from before sources), its pages, nodes, generator, versions and last ingest.',
  )
  .option('--json', 'print JSON')
  .action(async (flags: { json?: boolean }) => {
    await withApp(true, async ({ eventStore }) => {
      const sources = await listSources(eventStore);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ sources })}\n`);
        return;
      }
      if (sources.length === 0) {
        process.stdout.write('no sources: the catalog is empty (cogitave ingest <dir> adds one)\n');
        return;
      }
      for (const source of sources) {
        process.stdout.write(
          `${source.name.padEnd(24)} ${String(source.pages).padStart(6)} pages ${String(source.nodes).padStart(7)} nodes  ${source.generator ?? '-'}  ${source.versions.length > 0 ? `versions ${source.versions.join(', ')}  ` : ''}${source.root ?? '(no folder recorded)'}${source.lastIngested ? `  ingested ${source.lastIngested}` : ''}\n`,
        );
      }
    });
  });

const remove = new Command('remove')
  .description(
    'Remove a source: retire every node it holds (asks first in a terminal when that is more than a few pages). Other sources are not touched.',
  )
  .argument('<name>', 'source name (see sources list)')
  .option('--dry-run', 'print what would be retired; append nothing')
  .option('--yes', 'do not ask')
  .option('--json', 'print JSON')
  .action(async (name: string, flags: { dryRun?: boolean; yes?: boolean; json?: boolean }) => {
    await withApp(true, async ({ eventStore, logger }) => {
      const known = await listSources(eventStore);
      if (!known.some((source) => source.name === name)) {
        throw new NotFound(
          `no source "${name}"; the catalog has ${known.map((s) => s.name).join(', ') || 'none'}`,
        );
      }
      const bar = flags.json
        ? { update: () => undefined, stop: () => undefined }
        : progressBar('remove');
      const confirmRetire = retirePrompt(flags.yes ?? false);
      const report = await removeSource(eventStore, {
        source: name,
        dryRun: flags.dryRun ?? false,
        ...(confirmRetire ? { confirmRetire } : {}),
        meta: { commandId: randomUUID(), actor: commandActor(), at: new Date().toISOString() },
        onProgress: (done, total) => {
          bar.update(done, total);
        },
      }).finally(() => {
        bar.stop();
      });
      if (report.applied) {
        logActivity(logger, sourceRemovedActivity(report, commandActor()));
        noteUnaskedRetirement(report.pages, name, confirmRetire !== undefined, flags.yes ?? false);
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(report)}\n`);
      else if (report.declined) process.stdout.write('nothing was retired: not confirmed\n');
      else {
        process.stdout.write(
          `${report.applied ? 'retired' : 'would retire'} ${report.retired} nodes (${report.pages} pages) of source ${name}\n`,
        );
      }
    });
  });

export const sourcesCommand = new Command('sources')
  .description('List and remove the sources (ingested documentation folders) of the catalog.')
  .addCommand(list)
  .addCommand(remove);
